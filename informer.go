package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures an Informer. The zero value means the documented
// defaults.
type Options[T Object] struct {
	// Name identifies the informer in every log record (the "informer"
	// attribute), so a program with ten informers can tell them apart; ""
	// means the Source's String method's result when it has one
	// (source/kube's and source/httpsrc's name their resource or URL),
	// else nothing.
	Name string
	// KeyFunc computes an object's key; nil means the Source's, when it
	// keys its objects itself (KeyedSource), else MetaKey. With such a
	// Source, set the key in its options and leave KeyFunc nil: a
	// different one here would make the Source and the cache disagree
	// about which objects are the same.
	KeyFunc KeyFunc[T]
	// Indexers are indexes of the cache, by name, in addition to
	// NamespaceIndex, which is always present (an entry with that name
	// replaces the default). More can be added at any time with AddIndex.
	Indexers map[string]IndexFunc[T]
	// Transform, if set, is applied to every object from the Source before
	// it enters the cache, for example to drop fields the program does not
	// need. It may change its argument in place only if the Source does not
	// keep it (a Kubernetes source decodes a new object for every event;
	// source/memory shares its objects, so return a copy there), and then
	// only by replacing the object's own fields (obj.ManagedFields = nil,
	// obj.Annotations = trimmed copy): a Kubernetes source shares the
	// values those fields point to between objects (its Sharing option),
	// so deleting a map key or writing into a slice element or a
	// pointed-to struct would change the objects that hold them (the
	// Source then decodes later objects afresh and reports the write:
	// see Handler). Copy, then write: obj.Annotations =
	// maps.Clone(obj.Annotations) before a delete. When
	// Transform fails (a nil result without an error fails too, with
	// ErrNilObject) the error is reported as an *ObjectError with Op
	// "transform" and the object is left out of a list or an add or
	// update, as if the Source had not sent it; a deletion is still
	// applied, with the last cached state.
	Transform func(T) (T, error)
	// ResyncPeriod is the resync period of handlers whose HandlerOptions
	// leave it zero; 0 means no resync. See HandlerOptions.ResyncPeriod.
	ResyncPeriod time.Duration
	// Reflector configures listing and watching. Its OnError and Logger
	// default to the informer's.
	Reflector ReflectorOptions
	// OnError, if set, is called with every error the informer meets: from
	// the reflector (*SourceError, *ObjectError), from key and index
	// functions (*KeyError, *IndexError), and panics recovered from handlers
	// (*HandlerPanicError). It is user code called from the informer's
	// goroutines, never under a lock; it must not block for long.
	OnError func(error)
	// Logger receives the same errors; nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives the informer's measurements: events, lists and
	// why, watch restarts, handlers' latency and panics. Its zero value
	// measures nothing and costs nothing. It is the reflector's too,
	// unless the Reflector field's Metrics sets any callback.
	Metrics Metrics
	// BatchSize is the most keys the process loop takes from the queue at
	// once; 0 means 128.
	BatchSize int
	// DetectMutations turns on the mutation detector, for tests and
	// debugging (it doubles the cache's memory and costs a deep copy per
	// change): the informer keeps a deep copy of every object it puts in
	// the cache and compares the object with it when a later change for
	// its key replaces or deletes it, and for every key when Run ends. A
	// difference means someone wrote into a read-only object (see
	// Handler); it is reported as a *MutationError (ErrObjectMutated) to
	// OnError and the log. It catches what source/kube's sharing guard
	// (always on, with sharing) does not: a write into any part of any
	// object, shared or not (a name, a status, a value only this object
	// holds), and which object was written (the guard names only the
	// object whose decode met the written value, when that value's bytes
	// come again, if ever); with "panic", the first one stops the test. The environment variable
	// INFORMER_MUTATION_DETECTOR (MutationDetectorEnv) turns it on for
	// every informer whose DetectMutations is false: "1" reports, "panic"
	// panics at the first mutation found, as the project's tests do;
	// client-go's KUBE_CACHE_MUTATION_DETECTOR=true is read as "1".
	DetectMutations bool
	// Snapshot configures warm restarts from a file: see SnapshotOptions
	// and Restore. The zero value means none.
	Snapshot SnapshotOptions
	// ServeRestored makes a cache restored from a snapshot count as
	// synced as soon as Run starts, before the source has confirmed its
	// version: the program serves a possibly stale cache at once, and
	// Health reports Unconfirmed (and since when), and not Healthy, until
	// the confirmation. By default (false) HasSynced waits for it.
	ServeRestored bool
}

// HandlerOptions configures one handler.
type HandlerOptions struct {
	// Name identifies the handler in logs and errors.
	Name string
	// ResyncPeriod, when positive, sends the handler an OnUpdate(obj, obj)
	// for every cached object this often; 0 means the informer's
	// ResyncPeriod; a negative value means never.
	ResyncPeriod time.Duration
	// CoalesceAbove picks what a slow handler costs in memory. 0 (the
	// default) queues every notification: memory grows with the backlog,
	// as in client-go. A positive value bounds the backlog by keys: once
	// more than CoalesceAbove notifications are queued, a new notification
	// for a key that already has one queued since then is folded into it,
	// so the handler gets only the newest pending state of each key and
	// memory is O(keys), not O(events). Folding never reorders a key's
	// states and never drops a deletion: add or update followed by update
	// becomes one add or update (with the first notification's old
	// object); add or update followed by delete becomes the delete; a
	// delete followed by a new add stays two notifications.
	CoalesceAbove int
	// RelistUnchanged makes a relist (after an expired resourceVersion or
	// a failed watch) send OnUpdate(old, new) for every object it finds
	// at the resourceVersion the cache already had, as client-go does. By
	// default a relist tells a handler only what changed: objects with
	// another resourceVersion (OnUpdate), new ones (OnAdd) and vanished
	// ones (OnDelete with FinalStateUnknown). An object without a
	// resourceVersion (as many HTTP services serve them) cannot be told
	// unchanged: a relist sends every such object as OnUpdate either way.
	// Periodic resyncs (ResyncPeriod) are sent either way.
	RelistUnchanged bool
}

// Informer keeps an indexed cache of a Source's objects current and tells
// handlers what changed. See the package documentation for its guarantees.
type Informer[T Object] struct {
	opts Options[T]
	log  *slog.Logger
	ix   *Indexer[T]
	fifo *DeltaFIFO[T]
	refl *Reflector[T]
	// keyErr: Options.KeyFunc is not the KeyedSource's; Run returns it.
	keyErr error

	mu        sync.Mutex
	state     int // idle, running, stopped
	listeners []*listener[T]
	pending   []*listener[T] // added while running, not yet admitted
	wg        *sync.WaitGroup
	ctrl      chan struct{}

	applied  applied       // see AppliedResourceVersion
	progress chan struct{} // the reflector's version moved on while the process loop was idle
	idle     atomic.Bool   // the process loop waits, and wants to hear of progress

	synced   chan struct{}
	stopped  chan struct{}
	isSynced bool // process loop

	notes   []keyedNote[T] // process loop scratch
	results []applyResult[T]
	detect  *mutationDetector[T] // nil unless Options.DetectMutations
	snap    snapshots[T]         // warm restarts: see snapshot_informer.go
}

// applyResult is what applying one delta to the cache found.
type applyResult[T Object] struct {
	old     T
	existed bool
	err     error
}

const (
	stateIdle = iota
	stateRunning
	stateStopped
)

type keyedNote[T Object] struct {
	key string
	n   notification[T]
	// unchanged marks an update from a relist that found the object at
	// the resourceVersion the cache had: only listeners that asked for
	// such confirmations (HandlerOptions.RelistUnchanged) get it.
	unchanged bool
}

// New returns an Informer over src. It starts nothing: call Run.
func New[T Object](src Source[T], opts Options[T]) *Informer[T] {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 128
	}
	var keyErr error
	if ks, ok := any(src).(KeyedSource[T]); ok {
		if opts.KeyFunc == nil {
			opts.KeyFunc = ks.KeyFunc()
		} else if !sameKeyFunc(opts.KeyFunc, ks.KeyFunc()) {
			keyErr = fmt.Errorf("%w: set the key in the Source's options and leave Options.KeyFunc nil", ErrKeyFuncConflict)
		}
	}
	inf := &Informer[T]{
		opts:     opts,
		log:      opts.Logger,
		ctrl:     make(chan struct{}, 1),
		progress: make(chan struct{}, 1),
		synced:   make(chan struct{}),
		stopped:  make(chan struct{}),
		keyErr:   keyErr,
	}
	inf.snap.wake = make(chan struct{}, 1)
	inf.applied.order = newVersionOrder(src)
	inf.detect = newMutationDetector[T](detectorMode(opts.DetectMutations))
	if inf.log == nil {
		inf.log = slog.Default()
	}
	name := opts.Name
	if s, ok := any(src).(fmt.Stringer); ok && name == "" {
		name = s.String()
	}
	if name != "" {
		inf.log = inf.log.With("informer", name)
	}
	inf.ix = NewIndexer(IndexerOptions[T]{KeyFunc: opts.KeyFunc, Indexers: opts.Indexers, NamespaceIndex: true})
	inf.fifo = NewDeltaFIFO(DeltaFIFOOptions[T]{KeyFunc: opts.KeyFunc, KnownObjects: inf.ix})
	inf.fifo.bulkOK = true // duplicate keys of a first list are reported by process
	ropts := opts.Reflector
	if ropts.OnError == nil {
		ropts.OnError = opts.OnError
	}
	if ropts.Logger == nil {
		ropts.Logger = inf.log
	}
	if !ropts.Metrics.set() {
		ropts.Metrics = opts.Metrics
	}
	inf.refl = NewReflector[T](src, informerSink[T]{inf}, ropts)
	return inf
}

// Indexer returns the cache. Read it freely; writing to it directly breaks
// the informer's guarantees.
func (inf *Informer[T]) Indexer() *Indexer[T] { return inf.ix }

// Lister returns a read-only view of the cache.
func (inf *Informer[T]) Lister() Lister[T] { return NewLister(inf.ix) }

// AddIndex adds an index to the cache, at any time; see Indexer.AddIndex.
func (inf *Informer[T]) AddIndex(name string, fn IndexFunc[T]) error {
	return inf.ix.AddIndex(name, fn)
}

// LastSyncResourceVersion returns the resourceVersion the cache has reached
// (as far as the reflector has written it), or "" before the first list.
func (inf *Informer[T]) LastSyncResourceVersion() string {
	return inf.refl.LastSyncResourceVersion()
}

// HasSynced reports whether the first complete list is in the cache.
func (inf *Informer[T]) HasSynced() bool {
	select {
	case <-inf.synced:
		return true
	default:
		return false
	}
}

// WaitForSync waits until HasSynced is true: the cache holds the first
// list. It does not wait for handlers, which may not have seen that list
// yet; to print or act on what a handler saw, wait with
// WaitForCacheSync(ctx, inf, reg) and the handler's Registration. It
// returns ctx's error if ctx ends first, joined with LastError when there
// is one (a 404, a 403: the reason it has not synced; errors.Is matches
// both), and ErrStopped if Run returns first.
func (inf *Informer[T]) WaitForSync(ctx context.Context) error {
	select {
	case <-inf.synced:
		return nil
	default:
	}
	select {
	case <-inf.synced:
		return nil
	case <-inf.stopped:
		return ErrStopped
	case <-ctx.Done():
		return waitError(ctx, inf.LastError)
	}
}

// AddHandler registers h, before or after Run. A handler added after the
// informer has started first receives the cache's contents as OnAdd(obj,
// true), consistently with the changes that follow: nothing is missed or
// repeated. It fails with ErrStopped once Run has returned.
func (inf *Informer[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration[T], error) {
	l := newListener(h, opts, inf.report)
	if m := &inf.opts.Metrics; m.HandlerLatency != nil || m.HandlerPanic != nil {
		l.metrics, l.timed = m, m.HandlerLatency != nil
	}
	if l.resync == 0 {
		l.resync = inf.opts.ResyncPeriod
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	switch inf.state {
	case stateStopped:
		return nil, ErrStopped
	case stateIdle:
		inf.listeners = append(inf.listeners, l)
	default:
		inf.pending = append(inf.pending, l)
		inf.poke()
	}
	return &Registration[T]{l: l, poke: inf.poke, lastErr: inf.LastError}, nil
}

// poke wakes the process loop to admit or prune handlers.
func (inf *Informer[T]) poke() {
	select {
	case inf.ctrl <- struct{}{}:
	default:
	}
}

func (inf *Informer[T]) report(err error) {
	inf.log.Warn("informer", "err", err)
	if inf.opts.OnError != nil {
		inf.opts.OnError(err)
	}
}

// Run lists and watches the Source, keeps the cache current and calls the
// handlers, until ctx ends. It returns only after every goroutine it started
// has exited and no handler call is in progress, with ctx's cause. A second
// call returns ErrAlreadyStarted.
func (inf *Informer[T]) Run(ctx context.Context) error {
	inf.mu.Lock()
	if inf.state != stateIdle {
		inf.mu.Unlock()
		return ErrAlreadyStarted
	}
	if inf.keyErr != nil {
		return inf.refuse(inf.keyErr)
	}
	inf.snapshotAtStart()
	inf.state = stateRunning
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg := &sync.WaitGroup{}
	inf.wg = wg
	for _, l := range inf.listeners {
		inf.startListener(runCtx, l)
	}
	inf.mu.Unlock()
	inf.restoredStart()

	wg.Go(func() { inf.refl.Run(runCtx) })
	if inf.opts.Snapshot.Path != "" && inf.opts.Snapshot.Every > 0 {
		wg.Go(func() { inf.snapshotEvery(runCtx) })
	}
	inf.processLoop(runCtx)
	cancel()
	wg.Wait()
	inf.drainForSnapshot(inf.opts.Snapshot.Path != "")
	if inf.detect != nil {
		for _, err := range inf.detect.checkAll("when Run ended") {
			inf.report(err)
		}
	}

	inf.mu.Lock()
	inf.state = stateStopped
	ls := append(inf.listeners, inf.pending...)
	inf.pending = nil
	inf.mu.Unlock()
	for _, l := range ls {
		l.finish()
	}
	inf.snapshotAtEnd()
	inf.fifo.Close()
	close(inf.stopped)
	return context.Cause(ctx)
}

// refuse ends a Run that cannot start (ErrKeyFuncConflict): the informer
// is stopped, its handlers are done, and waits on it return ErrStopped.
// The caller holds inf.mu, which refuse releases.
func (inf *Informer[T]) refuse(err error) error {
	inf.state = stateStopped
	never := append(inf.listeners, inf.pending...) // none was started
	inf.pending = nil
	inf.mu.Unlock()
	for _, l := range never {
		l.finish()
	}
	inf.fifo.Close()
	close(inf.stopped)
	inf.log.Error("informer not started", "err", err)
	return err
}

// startListener starts l's goroutine; the caller holds inf.mu.
func (inf *Informer[T]) startListener(ctx context.Context, l *listener[T]) {
	if l.start() {
		inf.wg.Go(func() { l.run(ctx) })
	}
}

// processLoop pops deltas, applies them to the cache, and hands the
// notifications to the listeners, until ctx ends.
func (inf *Informer[T]) processLoop(ctx context.Context) {
	buf := make([]KeyDeltas[T], 0, inf.opts.BatchSize)
	rs := newResyncer[T]()
	defer rs.stop()
	rs.plan(inf.snapshotListeners(), time.Now())
	for {
		// What the reflector had read before this take: once a take finds
		// the queue empty, all of it is in the cache.
		readRV, lists := inf.refl.readProgress()
		batch, initial, err := inf.fifo.take(buf[:0], inf.opts.BatchSize)
		if err != nil {
			return
		}
		if len(batch) == 0 && inf.isSynced {
			inf.applied.set(readRV, lists)
		}
		if len(batch) == 0 {
			inf.serveSnapshots(readRV)
		}
		if len(batch) > 0 {
			inf.process(batch)
			inf.fifo.done(batch, initial)
			inf.checkSynced(false)
			select {
			case <-ctx.Done():
				return
			case <-inf.ctrl:
				inf.admit(ctx, rs)
			case <-rs.c():
				inf.resync(rs)
			default:
			}
			continue
		}
		if inf.checkSynced(true) {
			inf.applied.set(readRV, lists) // a restored cache confirmed: it is at readRV
		}
		if !inf.waitForWork(ctx, rs, readRV) {
			return
		}
	}
}

// waitForWork waits, with the queue found empty, until there may be work:
// a delta queued, the reflector's version moved on, the queue synced, a
// handler to admit or a resync due. It returns false when ctx ended.
func (inf *Informer[T]) waitForWork(ctx context.Context, rs *resyncer[T], readRV string) bool {
	var fifoSynced <-chan struct{}
	if !inf.isSynced {
		fifoSynced = inf.fifo.Synced()
	}
	// The reflector moves its version on just after the write that moved
	// it; if it did since readRV, take again (what was written is in, or
	// the queue wakes us), so that the applied version catches up.
	// Otherwise its next move wakes the loop (Progress).
	inf.idle.Store(true)
	defer inf.idle.Store(false)
	if inf.isSynced && inf.refl.LastSyncResourceVersion() != readRV {
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-inf.fifo.ready:
	case <-inf.progress:
	case <-fifoSynced:
	case <-inf.ctrl:
		inf.admit(ctx, rs)
	case <-rs.c():
		inf.resync(rs)
	case <-inf.snap.wake:
	}
	return true
}

func (inf *Informer[T]) snapshotListeners() []*listener[T] {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.listeners
}

// checkSynced marks the informer and its listeners synced once the queue
// reports the first list processed, or a restored cache is confirmed
// (empty: the take found the queue empty), and reports whether it did.
func (inf *Informer[T]) checkSynced(empty bool) bool {
	restored := inf.snap.restored && inf.restoredSynced(empty)
	if inf.isSynced || !(restored || inf.fifo.HasSynced()) {
		return false
	}
	inf.isSynced = true
	close(inf.synced)
	for _, l := range inf.snapshotListeners() {
		l.markSynced()
	}
	return true
}

// process applies a batch to the cache, then hands its notifications out.
func (inf *Informer[T]) process(batch []KeyDeltas[T]) {
	results := inf.ix.applyBatch(batch, inf.results[:0])
	notes := inf.notes[:0]
	r := 0
	for _, kd := range batch {
		for _, d := range kd.Deltas {
			if inf.detect != nil {
				inf.detectMutation(kd.Key, d, &results[r])
			}
			// The usual deltas, a watch's update of a cached key and the
			// add of a new one, make their notes here (noteOf's cases,
			// inlined for these); noteOf makes the others.
			if res := &results[r]; res.err == nil && d.Type == DeltaUpdated && res.existed {
				notes = append(notes, keyedNote[T]{key: kd.Key, n: notification[T]{old: res.old, new: d.Object, kind: notifyUpdate}})
			} else if res.err == nil && d.Type != DeltaDeleted && !res.existed {
				notes = append(notes, keyedNote[T]{key: kd.Key, n: notification[T]{new: d.Object, kind: notifyAdd, flag: !inf.isSynced}})
			} else if n, ok := inf.noteOf(&kd, d, res); ok {
				notes = append(notes, n)
			}
			r++
		}
	}
	if len(notes) > 0 {
		inf.hand(notes)
	}
	clear(notes)
	clear(results)
	if cap(notes) > 64*inf.opts.BatchSize {
		notes = nil // an outsized batch: do not keep its scratch
	}
	if cap(results) > 64*inf.opts.BatchSize {
		results = nil
	}
	inf.notes, inf.results = notes[:0], results[:0]
}

// detectMutation checks the object that delta d of key replaced or
// deleted in the cache against its copy, and records the new one.
func (inf *Informer[T]) detectMutation(key string, d Delta[T], res *applyResult[T]) {
	var err error
	switch {
	case d.Type == DeltaDeleted && res.existed:
		err = inf.detect.removed(key)
	case d.Type != DeltaDeleted && res.err == nil:
		err = inf.detect.handedOver(key, d.Object)
	}
	if err != nil {
		inf.report(err)
	}
}

// noteOf is the notification of delta d of kd, which the cache applied with
// result res; ok is false when there is none (a failure, reported, or the
// deletion of a key the cache did not hold).
func (inf *Informer[T]) noteOf(kd *KeyDeltas[T], d Delta[T], res *applyResult[T]) (keyedNote[T], bool) {
	if res.err != nil {
		inf.report(res.err)
	}
	if d.Type == DeltaDeleted {
		return keyedNote[T]{key: kd.Key, n: notification[T]{new: d.Object, kind: notifyDelete, flag: d.FinalStateUnknown}}, res.existed
	}
	if res.err != nil || inf.snap.replaying && inf.replayed(kd, d, res) {
		return keyedNote[T]{}, false
	}
	if !res.existed {
		return keyedNote[T]{key: kd.Key, n: notification[T]{new: d.Object, kind: notifyAdd, flag: !inf.isSynced}}, true
	}
	if kd.fromBulk {
		// A bulk is a first list into an empty cache: the key was already
		// in the same list.
		inf.report(&ObjectError{Op: "list", Err: fmt.Errorf("%w: %q (the later object is kept)", ErrDuplicateKey, kd.Key)})
	}
	// A relist's object at the version the key had just before it is a
	// confirmation: the version in the cache, or the one an earlier delta of
	// this batch gave it (a watch event, or another relist queued while the
	// loop was behind).
	unchanged := d.Type == DeltaReplaced && !kd.fromBulk && sameVersion(res.old, d.Object)
	if unchanged && inf.snap.replaying && !inf.snap.trusted.Load() {
		unchanged = sameState(res.old, d.Object)
	}
	return keyedNote[T]{kd.Key, notification[T]{old: res.old, new: d.Object, kind: notifyUpdate}, unchanged}, true
}

// hand hands notes to every listener: those that asked for a relist's
// confirmations get them too.
func (inf *Informer[T]) hand(notes []keyedNote[T]) {
	for _, l := range inf.snapshotListeners() {
		l.mu.Lock()
		for i := range notes {
			if notes[i].unchanged && !l.relistUnchanged {
				continue
			}
			l.pushLocked(notes[i].key, notes[i].n)
		}
		l.mu.Unlock()
		l.signal()
	}
}

// admit adds the handlers registered while running: each first gets the
// cache's contents as initial adds, then every later change. Run by the
// process loop between batches, so no change falls between the two. It also
// forgets removed handlers.
func (inf *Informer[T]) admit(ctx context.Context, rs *resyncer[T]) {
	inf.mu.Lock()
	adds := inf.pending
	inf.pending = nil
	inf.mu.Unlock()
	for _, l := range adds {
		n := 0
		l.mu.Lock()
		for key, obj := range inf.ix.All() {
			l.pushLocked(key, notification[T]{new: obj, kind: notifyAdd, flag: true})
			if n++; n%batchSize == 0 {
				l.mu.Unlock()
				l.mu.Lock()
			}
		}
		l.mu.Unlock()
		if inf.isSynced {
			l.markSynced()
		}
	}
	inf.mu.Lock()
	kept := make([]*listener[T], 0, len(inf.listeners)+len(adds))
	for _, l := range append(inf.listeners, adds...) {
		l.mu.Lock()
		removed := l.removed
		l.mu.Unlock()
		if !removed {
			kept = append(kept, l)
		}
	}
	inf.listeners = kept
	for _, l := range adds {
		inf.startListener(ctx, l)
	}
	inf.mu.Unlock()
	for _, l := range adds {
		l.signal()
	}
	rs.plan(kept, time.Now())
}

// resync sends every cached object, as OnUpdate(obj, obj), to the listeners
// whose resync period has come.
func (inf *Informer[T]) resync(rs *resyncer[T]) {
	due := rs.due(time.Now())
	if len(due) == 0 {
		return
	}
	for key, obj := range inf.ix.All() {
		for _, l := range due {
			l.mu.Lock()
			l.pushLocked(key, notification[T]{old: obj, new: obj, kind: notifyUpdate})
			l.mu.Unlock()
		}
	}
	for _, l := range due {
		l.signal()
	}
	rs.plan(inf.snapshotListeners(), time.Now())
}

// informerSink is the reflector's view of the informer: the transform, then
// the queue.
type informerSink[T Object] struct{ inf *Informer[T] }

func (s informerSink[T]) transform(obj T) (T, error) {
	fn := s.inf.opts.Transform
	if fn == nil || isNil(obj) {
		return obj, nil
	}
	out, err := fn(obj)
	if err == nil && isNil(out) {
		err = ErrNilObject
	}
	if err != nil {
		return out, &ObjectError{Op: "transform", Err: err}
	}
	return out, nil
}

// Add transforms obj and queues it as added.
func (s informerSink[T]) Add(obj T) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	return s.inf.fifo.Add(obj)
}

// Update transforms obj and queues it as updated.
func (s informerSink[T]) Update(obj T) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	return s.inf.fifo.Update(obj)
}

// Delete transforms obj and queues its deletion; see Options.Transform.
func (s informerSink[T]) Delete(obj T) error {
	out, err := s.transform(obj)
	if err == nil {
		return s.inf.fifo.Delete(out)
	}
	// A deletion is never dropped: it carries the last cached state instead.
	key, kerr := keyOf(s.inf.ix.keyFunc, obj)
	if kerr != nil {
		return errors.Join(err, kerr)
	}
	if cached, ok := s.inf.ix.Get(key); ok {
		obj = cached
	}
	return errors.Join(err, s.inf.fifo.Delete(obj))
}

// BeginReplace starts a relist in the queue.
func (s informerSink[T]) BeginReplace() {
	s.inf.snap.replace.Store(1)
	s.inf.fifo.BeginReplace()
}

// ReplaceItems transforms and queues one page of a relist.
func (s informerSink[T]) ReplaceItems(items []T) error {
	var errs []error
	if s.inf.opts.Transform != nil {
		kept := items[:0]
		for _, obj := range items {
			out, err := s.transform(obj)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			kept = append(kept, out)
		}
		clear(items[len(kept):])
		items = kept
	}
	if err := s.inf.fifo.ReplaceItems(items); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// EndReplace ends a relist in the queue.
// Progress wakes the process loop, if it waits, to move the applied
// version on (see Sink).
func (s informerSink[T]) Progress() {
	s.inf.snap.replace.CompareAndSwap(2, 0)
	if s.inf.idle.Load() {
		select {
		case s.inf.progress <- struct{}{}:
		default:
		}
	}
}

func (s informerSink[T]) EndReplace() error {
	err := s.inf.fifo.EndReplace()
	if err == nil {
		s.inf.snap.replace.CompareAndSwap(1, 2)
	}
	return err
}

// sameVersion reports whether a and b carry the same, non-empty
// resourceVersion: the same state of the object.
func sameVersion[T Object](a, b T) bool {
	rv := a.GetResourceVersion()
	return rv != "" && rv == b.GetResourceVersion()
}

package informer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

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
	wake     progressWake  // shared with the reflector: see progressWake

	synced   chan struct{}
	stopped  chan struct{}
	isSynced bool // process loop

	notes   noteBatch[T] // process loop scratch
	results []applyResult[T]
	// segments holds the drained queue segments of the listeners, which
	// any of them reuses (see notifyQueue.pool).
	segments sync.Pool
	detect   *mutationDetector[T] // nil unless Options.DetectMutations
	snap     snapshots[T]         // warm restarts: see snapshot_informer.go
}

const (
	stateIdle = iota
	stateRunning
	stateStopped
)

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
	inf.wake.ch, inf.wake.replace = inf.progress, &inf.snap.replace
	inf.refl.pub.wake = &inf.wake
	if opts.Transform == nil {
		inf.refl.fifo = inf.fifo
	}
	return inf
}

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

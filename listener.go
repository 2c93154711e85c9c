package informer

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// notifyKind is the kind of a notification.
type notifyKind uint8

const (
	notifyAdd notifyKind = iota + 1
	notifyUpdate
	notifyDelete
)

// notification is one call to make on a handler.
type notification[T Object] struct {
	old, new T
	kind     notifyKind
	flag     bool // OnAdd: isInInitialList; OnDelete: FinalStateUnknown
}

// segmentLen is the number of notifications per queue segment: for a
// pointer T a segment is 480×(8+8+1)+8 = 8168 bytes, just inside the
// allocator's 8 KiB size class.
const segmentLen = 480

// segment is a fixed block of a listener's queue, stored by columns so a
// queued notification costs 17 bytes for a pointer T (old, new, and one
// byte for kind and flag) rather than a padded 24.
type segment[T Object] struct {
	old  [segmentLen]T
	new  [segmentLen]T
	meta [segmentLen]uint8 // kind | flagBit
	next *segment[T]
}

const flagBit = 0x80

// qslot is the position of one queued notification.
type qslot[T Object] struct {
	seg *segment[T]
	i   int
}

func (s qslot[T]) get() notification[T] {
	m := s.seg.meta[s.i]
	return notification[T]{old: s.seg.old[s.i], new: s.seg.new[s.i], kind: notifyKind(m & kindMask), flag: m&flagBit != 0}
}

func (s qslot[T]) set(n notification[T]) {
	s.seg.old[s.i], s.seg.new[s.i], s.seg.meta[s.i] = n.old, n.new, metaOf(n.kind, n.flag)
}

// notifyQueue is a growable ring of notifications built from fixed segments:
// it grows a segment at a time and gives drained segments back, so a backlog
// costs the notifications themselves and little more, and nothing is copied
// when it grows. It keeps one drained segment (spare), and hands the others
// to pool, if it has one (an Informer's, which its listeners share), for
// its next growth or another queue's: a listener that falls behind its
// process loop by a few segments, and catches up, over and over (as in a
// first list), reuses them rather than allocating new ones each time; the
// pool lets them go once unused for two garbage collections.
type notifyQueue[T Object] struct {
	head, tail *segment[T]
	hi, ti     int // next slot to read in head, next slot to write in tail
	len        int
	spare      *segment[T]
	pool       segmentPool // of cleared *segment[T]; nil: none
}

// segmentPool is what a notifyQueue needs of its pool: a *sync.Pool.
type segmentPool interface {
	Get() any
	Put(any)
}

func (q *notifyQueue[T]) newSegment() *segment[T] {
	if s := q.spare; s != nil {
		q.spare = nil
		return s
	}
	if q.pool != nil {
		if s, ok := q.pool.Get().(*segment[T]); ok {
			return s
		}
	}
	return new(segment[T])
}

// room makes sure the tail segment has a free slot at ti.
func (q *notifyQueue[T]) room() {
	switch {
	case q.tail == nil:
		s := q.newSegment()
		q.head, q.tail, q.hi, q.ti = s, s, 0, 0
	case q.ti == segmentLen:
		s := q.newSegment()
		q.tail.next = s
		q.tail, q.ti = s, 0
	}
}

// push appends n and returns its slot, valid until it is popped.
func (q *notifyQueue[T]) push(n notification[T]) qslot[T] {
	q.room()
	p := qslot[T]{q.tail, q.ti}
	p.set(n)
	q.ti++
	q.len++
	return p
}

// front returns the slot pop will return next.
func (q *notifyQueue[T]) front() qslot[T] { return qslot[T]{q.head, q.hi} }

func (q *notifyQueue[T]) pop() notification[T] {
	p := qslot[T]{q.head, q.hi}
	n := p.get()
	p.set(notification[T]{})
	q.hi++
	q.len--
	q.afterPop()
	return n
}

// clear drops every queued notification and the memory behind them.
func (q *notifyQueue[T]) clear() { *q = notifyQueue[T]{pool: q.pool} }

// listener delivers notifications to one handler, in order, from one
// goroutine. The informer's process loop pushes; run pops and calls.
type listener[T Object] struct {
	h Handler[T]
	// fn is h when it is a HandlerFuncs (a value: it cannot change), whose
	// functions callFrom calls directly rather than through h's methods.
	fn              HandlerFuncs[T]
	isFuncs         bool
	name            string
	coalesceAbove   int
	relistUnchanged bool
	resync          time.Duration // owned by the informer's process loop
	report          func(error)
	metrics         *Metrics // nil when neither handler callback is set
	timed           bool     // metrics.HandlerLatency is set
	sampled         uint32   // notifications since the last timed one

	mu        sync.Mutex
	q         notifyQueue[T]
	slots     map[string]qslot[T] // coalescing: newest queued slot per key
	slotKeys  map[qslot[T]]string
	appended  uint64 // notifications appended to q
	handled   uint64 // notifications popped whose call returned
	target    uint64 // synced once handled reaches target (if targetSet)
	targetOK  bool
	removed   bool
	stopped   atomic.Bool  // removed, readable without the lock
	batchLeft atomic.Int32 // taken from q, not yet called
	started   bool

	wake   chan struct{}
	synced chan struct{}
	// beforeWait, a test hook, runs in run between finding the queue
	// empty (and unlocking) and waiting for wake: a push and signal made
	// just then must still wake the listener.
	beforeWait func()
	done       chan struct{}
	doneOnce   sync.Once
}

func newListener[T Object](h Handler[T], opts HandlerOptions, report func(error)) *listener[T] {
	fn, isFuncs := h.(HandlerFuncs[T])
	return &listener[T]{
		h:               h,
		fn:              fn,
		isFuncs:         isFuncs,
		name:            opts.Name,
		coalesceAbove:   opts.CoalesceAbove,
		relistUnchanged: opts.RelistUnchanged,
		resync:          opts.ResyncPeriod,
		report:          report,
		wake:            make(chan struct{}, 1),
		synced:          make(chan struct{}),
		done:            make(chan struct{}),
	}
}

// pushLocked queues n for key. The caller holds l.mu and signals wake after.
func (l *listener[T]) pushLocked(key string, n notification[T]) {
	if l.removed || l.coalesceAbove > 0 {
		l.pushSlowLocked(key, n)
		return
	}
	l.q.push(n)
	l.appended++
}

// pushSlowLocked is pushLocked for a removed or coalescing listener.
func (l *listener[T]) pushSlowLocked(key string, n notification[T]) {
	if l.removed {
		return
	}
	if l.coalesceAbove > 0 {
		if len(l.slots) > 0 {
			if p, ok := l.slots[key]; ok {
				if m, ok := merge(p.get(), n); ok {
					p.set(m)
					return
				}
			}
		}
		if l.q.len >= l.coalesceAbove {
			p := l.q.push(n)
			l.appended++
			if l.slots == nil {
				l.slots = map[string]qslot[T]{}
				l.slotKeys = map[qslot[T]]string{}
			}
			if old, ok := l.slots[key]; ok {
				delete(l.slotKeys, old)
			}
			l.slots[key] = p
			l.slotKeys[p] = key
			return
		}
	}
	l.q.push(n)
	l.appended++
}

// merge folds n into the queued notification p of the same key, if the pair
// can be expressed as one notification that keeps per-key order: add or
// update then update is the add or update of the newest state; add or update
// then delete is the delete; delete then delete is one delete. A delete then
// an add (the key was created again) cannot merge.
func merge[T Object](p, n notification[T]) (notification[T], bool) {
	switch {
	case (p.kind == notifyAdd || p.kind == notifyUpdate) && n.kind == notifyUpdate:
		p.new = n.new
		return p, true
	case (p.kind == notifyAdd || p.kind == notifyUpdate) && n.kind == notifyDelete:
		return n, true
	case p.kind == notifyDelete && n.kind == notifyDelete:
		if !n.flag || p.flag { // keep a known final state over an inferred one
			return n, true
		}
		return p, true
	}
	return p, false
}

// signal wakes the listener's goroutine.
func (l *listener[T]) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// markSynced sets the sync point at everything queued so far.
func (l *listener[T]) markSynced() {
	l.mu.Lock()
	if l.removed {
		// Removed before it synced (say, before Run): it never will, and
		// its WaitForSync reports ErrStopped.
		l.mu.Unlock()
		return
	}
	l.target, l.targetOK = l.appended, true
	l.checkSyncedLocked()
	l.mu.Unlock()
}

func (l *listener[T]) checkSyncedLocked() {
	if l.targetOK && l.handled >= l.target {
		select {
		case <-l.synced:
		default:
			close(l.synced)
		}
	}
}

// run calls the handler for each queued notification until the listener is
// removed or ctx ends.
func (l *listener[T]) run(ctx context.Context) {
	defer l.finish()
	// ctx's end stops the calls as remove does, through stopped: one
	// atomic load per call instead of a receive from ctx.Done (~60
	// instructions). AfterFunc runs its function on a goroutine of its
	// own, which run waits for.
	ran := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		l.stopped.Store(true)
		l.signal()
		close(ran)
	})
	defer func() {
		if !stop() {
			<-ran
		}
	}()
	done := ctx.Done() // read once: a cancelCtx's Done costs an atomic load and a call
	l.mu.Lock()
	for {
		if l.removed || l.stopped.Load() {
			l.mu.Unlock()
			return
		}
		if l.q.len == 0 {
			if l.slots != nil {
				l.slots, l.slotKeys = nil, nil // give a backlog's map back
			}
			l.mu.Unlock()
			if l.beforeWait != nil {
				l.beforeWait()
			}
			select {
			case <-l.wake:
			case <-done:
				return
			}
			l.mu.Lock()
			continue
		}
		// Take a batch under one lock; call it unlocked, in place.
		seg, a, b := l.takeLocked()
		l.batchLeft.Store(int32(b - a))
		l.mu.Unlock()
		called, stopped := a, false
		for called < b && !stopped {
			called, stopped = l.callFrom(seg, b, called)
		}
		l.batchLeft.Store(0)
		l.mu.Lock()
		l.q.release(seg, a, b)
		l.handled += uint64(called - a)
		l.checkSyncedLocked()
	}
}

// listenerBatch is how many notifications a listener takes per lock, and
// coalesceBatch how many a coalescing one does: what it has taken it can
// no longer fold, so its memory bound (CoalesceAbove and a notification
// per key) grows by a batch.
const (
	listenerBatch = 128
	coalesceBatch = 32
)

// endCalls ends callFrom (deferred): unless it returned, the call at *j
// panicked (reported; the calls go on at *j + 1, next) or called
// runtime.Goexit (reported as a panic too).
func (l *listener[T]) endCalls(returned *bool, next, j *int) {
	if *returned {
		return
	}
	if v := recover(); v != nil {
		*next = *j + 1
		l.reportPanic(v)
	} else {
		l.report(&HandlerPanicError{Handler: l.name, Value: goexit, Stack: debug.Stack()})
	}
}

// callFrom calls the handler with the notifications of s from j to b, in
// order, and returns the index after the last call made; stopped is true
// when the listener stopped before b. A panic is contained here, once for
// the calls of a batch rather than once per call (a deferred recover costs
// ~30 instructions): the panicking call counts as made, and the caller
// calls on from the next one. A handler that ends its goroutine
// (runtime.Goexit, as in a failing test) cannot be contained: it is
// reported, and the listener stops.
func (l *listener[T]) callFrom(s *segment[T], b, j int) (next int, stopped bool) {
	returned := false
	defer l.endCalls(&returned, &next, &j)
	meta, old, new := s.meta[:b], s.old[:b], s.new[:b]
	for ; j < len(meta); j++ {
		l.batchLeft.Add(-1)
		if l.stopped.Load() {
			returned = true
			return j, true
		}
		if l.timed {
			if l.sampled++; l.sampled == HandlerSample {
				l.sampled = 0
				l.callTimed(qslot[T]{s, j}.get())
				continue
			}
		}
		// dispatch, inline.
		switch m := meta[j]; notifyKind(m & kindMask) {
		case notifyUpdate:
			if !l.isFuncs {
				l.h.OnUpdate(old[j], new[j])
			} else if l.fn.UpdateFunc != nil {
				l.fn.UpdateFunc(old[j], new[j])
			}
		case notifyAdd:
			if !l.isFuncs {
				l.h.OnAdd(new[j], m&flagBit != 0)
			} else if l.fn.AddFunc != nil {
				l.fn.AddFunc(new[j], m&flagBit != 0)
			}
		case notifyDelete:
			if !l.isFuncs {
				l.h.OnDelete(Deleted[T]{Object: new[j], FinalStateUnknown: m&flagBit != 0})
			} else if l.fn.DeleteFunc != nil {
				l.fn.DeleteFunc(Deleted[T]{Object: new[j], FinalStateUnknown: m&flagBit != 0})
			}
		}
	}
	returned = true
	return j, false
}

// dispatch makes the handler call of n.
func (l *listener[T]) dispatch(n notification[T]) {
	switch n.kind {
	case notifyAdd:
		l.h.OnAdd(n.new, n.flag)
	case notifyUpdate:
		l.h.OnUpdate(n.old, n.new)
	case notifyDelete:
		l.h.OnDelete(Deleted[T]{Object: n.new, FinalStateUnknown: n.flag})
	}
}

func (l *listener[T]) reportPanic(v any) {
	l.report(&HandlerPanicError{Handler: l.name, Value: v, Stack: debug.Stack()})
	if l.metrics != nil && l.metrics.HandlerPanic != nil {
		l.metrics.HandlerPanic(l.name)
	}
}

// call makes one handler call, containing a panic as callFrom does.
func (l *listener[T]) call(n notification[T]) {
	returned := false
	defer func() {
		if v := recover(); v != nil {
			l.reportPanic(v)
		} else if !returned {
			l.report(&HandlerPanicError{Handler: l.name, Value: goexit, Stack: debug.Stack()})
		}
	}()
	l.dispatch(n)
	returned = true
}

// callTimed is call, timed for Metrics.HandlerLatency (one call in
// HandlerSample).
func (l *listener[T]) callTimed(n notification[T]) {
	start := time.Now()
	l.call(n)
	l.metrics.HandlerLatency(l.name, time.Since(start))
}

// goexit is the Value of a HandlerPanicError for a handler that called
// runtime.Goexit.
const goexit = "runtime.Goexit: the handler ended its goroutine and is called no more"

// remove stops deliveries: nothing queued is delivered, and Done closes once
// a call in progress has returned.
func (l *listener[T]) remove() {
	l.mu.Lock()
	l.removed = true
	l.stopped.Store(true)
	l.q.clear()
	l.slots, l.slotKeys = nil, nil
	started := l.started
	l.mu.Unlock()
	l.signal()
	if !started {
		l.finish()
	}
}

// start marks the listener as having a goroutine; false if it was removed.
func (l *listener[T]) start() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.removed || l.started {
		return false
	}
	l.started = true
	return true
}

func (l *listener[T]) finish() {
	l.doneOnce.Do(func() {
		l.mu.Lock()
		l.removed = true
		l.stopped.Store(true)
		l.q.clear()
		l.slots, l.slotKeys = nil, nil
		l.mu.Unlock()
		close(l.done)
	})
}

// Registration is a handler added to an Informer.
type Registration[T Object] struct {
	l       *listener[T]
	poke    func()       // tells the informer to forget removed handlers
	lastErr func() error // the informer's LastError
}

// HasSynced reports whether the informer has synced and this handler has
// returned from every notification of the initial list (or, for a handler
// added later, of the replayed cache).
func (r *Registration[T]) HasSynced() bool {
	select {
	case <-r.l.synced:
		return true
	default:
		return false
	}
}

// WaitForSync waits until HasSynced is true. It returns ctx's error if ctx
// ends first, joined with the informer's LastError when there is one
// (errors.Is matches both), and ErrStopped if the handler is removed or
// the informer stops first.
func (r *Registration[T]) WaitForSync(ctx context.Context) error {
	select {
	case <-r.l.synced:
		return nil
	default:
	}
	select {
	case <-r.l.synced:
		return nil
	case <-r.l.done:
		return ErrStopped
	case <-ctx.Done():
		return waitError(ctx, r.lastErr)
	}
}

// Pending returns how many notifications are queued for this handler, not
// counting a call in progress.
func (r *Registration[T]) Pending() int {
	r.l.mu.Lock()
	defer r.l.mu.Unlock()
	if r.l.removed {
		return 0
	}
	return r.l.q.len + int(r.l.batchLeft.Load())
}

// Remove stops deliveries to the handler: queued notifications are dropped,
// and after a call in progress returns the handler is never called again.
// Done tells when that is. Remove may be called at any time, more than once,
// and from the handler itself (which must then not wait for Done).
func (r *Registration[T]) Remove() {
	r.l.remove()
	if r.poke != nil {
		r.poke()
	}
}

// Done returns a channel closed once the handler will never be called
// again: after Remove, or when the informer's Run has stopped, and in either
// case after any call in progress has returned.
func (r *Registration[T]) Done() <-chan struct{} { return r.l.done }

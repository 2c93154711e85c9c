package informer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// errStalled reports a watch that stayed silent past its deadline.
var errStalled = errors.New("informer: watch stalled")

// initialIdle is how long a streaming list may stay silent (before its
// server answers, and between its initial events) before the reflector
// decides that the server ignored the request and lists instead.
const initialIdle = 10 * time.Second

// errInitialIdle reports a streaming list that stayed silent for
// initialIdle.
var errInitialIdle = fmt.Errorf("no initial event for %s", initialIdle)

// maxSkippedEvents is how many unreadable events (other than events of a
// type it does not know, which carry no change) one stream may have before
// the reflector ends it at once and lists again: each was a change it
// lost.
const maxSkippedEvents = 8

// repairDelay is how long a stream goes on after its first unreadable
// event, at most, before the reflector ends it and lists again to get the
// lost change back: long enough to batch a run of them into one relist,
// short enough that the cache is not left stale for long. A stream that
// ends sooner is repaired then.
const repairDelay = time.Second

// errRepairDue ends a stream repairDelay after its first unreadable event.
var errRepairDue = errors.New("informer: a skipped event is due for repair")

// stream is one watch, or streaming list, being read. It is given what it
// needs when it opens (Reflector.stream): it reads events, writes them into
// the sink, publishes its progress and reports what went wrong; its
// outcome is sorted from its facts (streamFacts).
type stream[T Object] struct {
	sink    Sink[T]
	fifo    *DeltaFIFO[T] // Reflector.fifo
	order   versionOrder
	ptr     bool            // T is a pointer type (pointerType)
	batch   int             // initial events handed to the sink at once
	onEvent func(EventType) // Metrics.Event, or nil
	onSkip  func()          // Metrics.Skipped, or nil
	rep     *reporter
	pub     *published
	listed  func(rv string) // a streaming list's initial events are in, at rv

	ctx     context.Context // the watch's: ends with the stall deadline
	w       Watcher[T]
	started time.Time // before Watch was called
	opened  time.Time // when Watch returned: the stream is open

	f           streamFacts
	count       *atomic.Int64 // initial events so far, for the idle check; <0 once they ended
	page        []T           // initial events not yet handed to the sink
	last        version
	repair      context.CancelCauseFunc // ends ctx with errRepairDue
	repairTimer *time.Timer
	heartbeats  atomic.Int64
	activity    activityStamp // stamps published.activity for events
	confirm     *confirmer    // a watch from a restored version, until confirmed
}

// stream watches from the last resourceVersion until the stream ends. With
// initial, it is a streaming list: the initial events become a replacement,
// and the same stream then goes on as a watch.
func (r *Reflector[T]) stream(ctx context.Context, initial bool) outcome {
	timeout := r.opts.MinWatchTimeout + rand.N(r.opts.MinWatchTimeout)
	// A watch that stays open well past the timeout it asked for is stalled.
	wctx, cancel := context.WithTimeoutCause(ctx, timeout+time.Minute, errStalled)
	defer cancel()
	st := r.newStream(initial)
	wctx, st.repair = context.WithCancelCause(wctx)
	defer st.stopRepair()
	if initial {
		var stop func()
		wctx, st.count, stop = watchInitialIdle(wctx)
		defer stop()
	}
	st.ctx, st.started = wctx, time.Now()
	st.activity.start(&r.pub.activity)
	defer st.activity.stop()
	w, err := r.src.Watch(r.withReports(wctx, st.f.op, st.f.from), WatchOptions{
		ResourceVersion:   st.f.from,
		AllowBookmarks:    true,
		Timeout:           timeout,
		SendInitialEvents: initial,
		Heartbeat:         st.heartbeat,
	})
	if err != nil {
		return st.f.openFailed(err, context.Cause(st.ctx), ctx.Err() != nil)
	}
	defer w.Close()
	st.w, st.opened = w, time.Now()
	if !initial {
		st.confirm = r.startConfirmer(st.started)
		defer st.confirm.stop()
	}
	if initial {
		r.sink.BeginReplace()
		st.page = make([]T, 0, st.batch)
	}
	st.last = newVersion(st.f.from)
	return st.read(ctx)
}

// newStream is a stream with what it needs from r: a watch from the last
// version, or a streaming list.
func (r *Reflector[T]) newStream(initial bool) *stream[T] {
	st := &stream[T]{
		sink: r.sink, fifo: r.fifo, order: r.order, ptr: r.ptr, batch: r.streamBatch(),
		onEvent: r.opts.Metrics.Event, onSkip: r.opts.Metrics.Skipped,
		rep: &r.rep, pub: &r.pub,
		f: streamFacts{op: "watch", from: r.LastSyncResourceVersion(), initial: initial, inInitial: initial},
	}
	if initial {
		st.f.op, st.f.from = "watchlist", ""
		st.listed = func(rv string) {
			r.listed(rv)
			r.setHealth(StateWatching, time.Time{}, 0) // the stream goes on as a watch
		}
	}
	return st
}

// watchInitialIdle returns a context that ends with errInitialIdle when a
// streaming list stays silent for initialIdle, and the counter of initial
// events that the check reads (a negative value stops it).
func watchInitialIdle(ctx context.Context) (context.Context, *atomic.Int64, func()) {
	// A server that serves streaming lists sends the initial events back to
	// back; one silent for initialIdle before their end marker (or before
	// answering at all) ignored the request.
	ictx, cancel := context.WithCancelCause(ctx)
	count := new(atomic.Int64)
	seen := int64(0)
	var idle *time.Timer
	idle = time.AfterFunc(initialIdle, func() {
		switch n := count.Load(); {
		case n < 0: // the initial events ended
		case n != seen:
			seen = n
			idle.Reset(initialIdle)
		default:
			cancel(errInitialIdle)
		}
	})
	return ictx, count, func() { idle.Stop(); cancel(nil) }
}

// alive notes an event after the initial ones: the source answers, which
// ends a run of unreadable events and the last error. (In line, not a
// method of reporter: one would not inline, on the path of every event.)
func (st *stream[T]) alive() {
	st.f.events++
	st.rep.badRun = 0
	st.rep.lastErr.clear()
	st.activity.event()
}

// heartbeat is the Watcher's signal that the stream is alive.
func (st *stream[T]) heartbeat() {
	st.heartbeats.Add(1)
	st.pub.activity.Store(time.Now().UnixNano())
}

// facts are the stream's facts, with its times read now.
func (st *stream[T]) facts() streamFacts {
	f := st.f
	f.heartbeats = st.heartbeats.Load() > 0
	f.open, f.age = time.Since(st.opened), time.Since(st.started)
	return f
}

// read reads events until the stream ends, and says how it went.
func (st *stream[T]) read(ctx context.Context) outcome {
	for {
		ev, err := st.w.Next()
		if st.f.inInitial {
			st.count.Add(1)
		}
		if err != nil && errors.Is(err, ErrBadEvent) {
			if o, done := st.badEvent(err); done {
				return o
			}
			continue
		}
		if err != nil {
			return st.facts().end(err, context.Cause(st.ctx), ctx.Err() != nil)
		}
		st.f.delivered = true
		if st.onEvent != nil {
			st.onEvent(ev.Type)
		}
		if !st.f.inInitial {
			st.alive()
			st.confirm.event()
			if ev.Type >= EventAdded && ev.Type <= EventDeleted && !isNilAs(st.ptr, ev.Object) {
				// A change of a watch, nearly every event: straight
				// to the sink.
				if err := st.change(ev); err != nil {
					return st.facts().outcome(err)
				}
				continue
			}
		}
		if o, done := st.event(ev); done {
			return o
		}
	}
}

// badEvent handles an event the source could not read.
func (st *stream[T]) badEvent(err error) (outcome, bool) {
	rule := st.f.unreadable(err)
	if rule == unreadableFails {
		return st.f.failed(sourceError(st.f.op, st.f.from, err)), true
	}
	st.rep.badEvent(&ObjectError{Op: st.f.op, Err: err})
	if rule == unreadableNoChange {
		return outcome{}, false
	}
	st.skip(err)
	if rule == unreadableSkipped {
		return outcome{}, false
	}
	return st.facts().outcome(st.f.skippedError()), true
}

// skip records an unreadable event that may have carried a change: the
// cache may now lack it, which Health says until a list repairs it. The
// first one starts the repair: the stream ends repairDelay later, if it
// has not ended by then, and the reflector lists again.
func (st *stream[T]) skip(err error) {
	st.f.skipped++
	if st.onSkip != nil {
		st.onSkip()
	}
	if st.f.skipped == 1 {
		st.f.skipErr = err
		st.rep.skips.add(&SourceError{Op: st.f.op, ResourceVersion: st.f.from,
			Err: fmt.Errorf("%w: the first after resourceVersion %q: %w", ErrSkippedEvents, st.last.s, err)})
		st.repairTimer = time.AfterFunc(repairDelay, func() { st.repair(errRepairDue) })
		return
	}
	st.rep.skips.add(nil)
}

// stopRepair stops the repair timer of a stream that ended.
func (st *stream[T]) stopRepair() {
	if st.repairTimer != nil {
		st.repairTimer.Stop()
	}
	st.repair(nil)
}

// event handles one event; done says the stream is over.
func (st *stream[T]) event(ev Event[T]) (outcome, bool) {
	switch ev.Type {
	case EventAdded, EventModified, EventDeleted:
		if isNil(ev.Object) {
			// A change without its object: as unreadable as a garbled
			// one, and repaired the same way (a relist).
			return st.badEvent(fmt.Errorf("%s event: %w", ev.Type, ErrNilObject))
		}
		if st.f.inInitial {
			return st.initialEvent(ev)
		}
		if err := st.change(ev); err != nil {
			return st.facts().outcome(err), true
		}
	case EventBookmark:
		st.bookmark(ev)
	case EventInitialEventsEnd:
		return st.initialEnd(ev)
	default:
		st.rep.badEvent(&ObjectError{Op: st.f.op, Err: fmt.Errorf("%w: %d", ErrUnknownEventType, ev.Type)})
	}
	return outcome{}, false
}

// initialEvent takes one object of a streaming list's initial events.
func (st *stream[T]) initialEvent(ev Event[T]) (outcome, bool) {
	if ev.Type != EventAdded {
		// A plain watch: the server ignored the request.
		return st.f.failed(fmt.Errorf("%w: %s event before the end of the initial events", ErrWatchListUnsupported, ev.Type)), true
	}
	st.f.initialSeen = true
	st.page = append(st.page, ev.Object)
	if len(st.page) >= st.batch {
		st.flush()
	}
	return outcome{}, false
}

// flush hands the initial events read so far to the sink.
func (st *stream[T]) flush() {
	if len(st.page) == 0 {
		return
	}
	if err := st.sink.ReplaceItems(st.page); err != nil {
		st.rep.object(err)
	}
	clear(st.page)
	st.page = st.page[:0]
}

// initialEnd ends a streaming list's initial events: the replacement is
// complete, and the stream goes on as a watch.
func (st *stream[T]) initialEnd(ev Event[T]) (outcome, bool) {
	if !st.f.inInitial {
		st.rep.badEvent(&ObjectError{Op: st.f.op, Err: fmt.Errorf("%w: %s outside a streaming list", ErrUnknownEventType, ev.Type)})
		return outcome{}, false
	}
	st.count.Store(math.MinInt64)
	st.flush()
	st.rep.lastErr.clearAfterList() // before the cache may be synced, as a List's
	if err := st.sink.EndReplace(); err != nil {
		return st.f.failed(err), true
	}
	st.f.inInitial = false
	st.last = newVersion(ev.ResourceVersion)
	st.listed(ev.ResourceVersion)
	return outcome{}, false
}

// change writes one change of a watch into the sink; an error (an event
// out of order) ends the stream.
func (st *stream[T]) change(ev Event[T]) error {
	rv := ev.ResourceVersion
	if rv == "" {
		rv = ev.Object.GetResourceVersion()
	}
	v := newVersion(rv)
	older := st.order.older(v.s, st.last.s)
	if older && (ev.Type != EventDeleted || ev.ResourceVersion != "") {
		return &SourceError{Op: st.f.op, ResourceVersion: st.f.from,
			Err: fmt.Errorf("%w: %s at %q after %q", ErrOutOfOrder, ev.Type, rv, st.last.s)}
	}
	var err error
	switch {
	case st.fifo != nil && ev.Type != EventDeleted:
		// Every watch event's path, when the sink only queues: as the
		// cases below, without the call through Sink.
		t := DeltaAdded
		if ev.Type == EventModified {
			t = DeltaUpdated
		}
		err = st.fifo.enqueue(t, ev.Object)
	case ev.Type == EventAdded:
		err = st.sink.Add(ev.Object)
	case ev.Type == EventModified:
		err = st.sink.Update(ev.Object)
	default:
		// A deletion without a version of its own carries the object's
		// last state, older than the stream: it cannot move the key
		// backwards, and does not move the stream's version.
		err = st.sink.Delete(ev.Object)
	}
	if err != nil {
		st.rep.object(&ObjectError{Op: st.f.op, Err: fmt.Errorf("%s event: %w", ev.Type, err)})
	}
	if rv != "" && !older {
		st.advance(v)
	}
	return nil
}

// bookmark moves the stream's version on without a change.
func (st *stream[T]) bookmark(ev Event[T]) {
	if st.f.inInitial {
		return // progress only; the end marker comes as its own type
	}
	rv := ev.ResourceVersion
	if rv == "" {
		st.rep.object(&ObjectError{Op: st.f.op, Err: ErrBookmarkWithoutVersion})
		return
	}
	if v := newVersion(rv); !st.order.older(v.s, st.last.s) {
		st.advance(v)
	}
}

// advance moves the stream's version on to v, and the reflector's, which
// the applied version follows, unless the stream skipped an unreadable
// event: the cache then lacks a change before v, and has not reached v
// (nor a WaitForResourceVersion for it returned) until the relist that
// follows.
func (st *stream[T]) advance(v version) {
	st.last = v
	if st.f.skipped == 0 {
		st.pub.setLastRV(v.s)
	}
}

// version is a resourceVersion. Versions are ordered only by the
// Source's VersionComparer (versionOrder), as WaitForResourceVersion
// orders them: without one, they are opaque, and no event is out of order.
type version struct{ s string }

func newVersion(s string) version { return version{s: s} }

// older reports whether v is a version the Source orders before last (a
// change at the very version the stream reached is not: a Source may give
// several changes one version).
func (r *Reflector[T]) older(v, last version) bool { return r.order.older(v.s, last.s) }

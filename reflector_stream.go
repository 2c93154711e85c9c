package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// stream is one watch, or streaming list, being read.
type stream[T Object] struct {
	r       *Reflector[T]
	ctx     context.Context // the watch's: ends with the stall deadline
	w       Watcher[T]
	op      string // "watch" or "watchlist"
	from    string
	started time.Time // before Watch was called
	opened  time.Time // when Watch returned: the stream is open

	inInitial bool          // reading a streaming list's initial events
	initial   bool          // it is a streaming list
	count     *atomic.Int64 // initial events so far, for the idle check; <0 once they ended
	page      []T           // initial events not yet handed to the sink
	last      version

	events      int // after the initial events
	skipped     int // unreadable events that may have carried a change
	skipErr     error
	repair      context.CancelCauseFunc // ends ctx with errRepairDue
	repairTimer *time.Timer
	heartbeats  atomic.Int64
	activity    activityStamp // stamps Reflector.activity for events
	delivered   bool
	initialSeen bool
	confirm     *confirmer // a watch from a restored version, until confirmed
}

// stream watches from the last resourceVersion until the stream ends. With
// initial, it is a streaming list: the initial events become a replacement,
// and the same stream then goes on as a watch.
func (r *Reflector[T]) stream(ctx context.Context, initial bool) outcome {
	timeout := r.opts.MinWatchTimeout + rand.N(r.opts.MinWatchTimeout)
	// A watch that stays open well past the timeout it asked for is stalled.
	wctx, cancel := context.WithTimeoutCause(ctx, timeout+time.Minute, errStalled)
	defer cancel()
	st := &stream[T]{r: r, op: "watch", from: r.LastSyncResourceVersion(), initial: initial, inInitial: initial}
	wctx, st.repair = context.WithCancelCause(wctx)
	defer st.stopRepair()
	if initial {
		st.op, st.from = "watchlist", ""
		var stop func()
		wctx, st.count, stop = watchInitialIdle(wctx)
		defer stop()
	}
	st.ctx, st.started = wctx, time.Now()
	st.activity.start(&r.activity)
	defer st.activity.stop()
	w, err := r.src.Watch(r.withReports(wctx, st.op, st.from), WatchOptions{
		ResourceVersion:   st.from,
		AllowBookmarks:    true,
		Timeout:           timeout,
		SendInitialEvents: initial,
		Heartbeat:         st.heartbeat,
	})
	if err != nil {
		return st.openFailed(ctx, err)
	}
	defer w.Close()
	st.w, st.opened = w, time.Now()
	if !initial {
		st.confirm = r.startConfirmer(st.started)
		defer st.confirm.stop()
	}
	if initial {
		r.sink.BeginReplace()
		st.page = make([]T, 0, r.streamBatch())
	}
	st.last = newVersion(st.from)
	return st.read(ctx)
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

// alive notes an event after the initial ones: the source answers.
func (st *stream[T]) alive() {
	st.events++
	st.r.badRun = 0
	st.r.lastErr.clear()
	st.activity.event()
}

// heartbeat is the Watcher's signal that the stream is alive.
func (st *stream[T]) heartbeat() {
	st.heartbeats.Add(1)
	st.r.activity.Store(time.Now().UnixNano())
}

// openFailed is the outcome of a Watch call that failed.
func (st *stream[T]) openFailed(ctx context.Context, err error) outcome {
	switch {
	case st.initial && errors.Is(err, ErrWatchListUnsupported):
		return outcome{err: err}
	case st.initial && ctx.Err() == nil && errors.Is(context.Cause(st.ctx), errInitialIdle):
		return outcome{err: fmt.Errorf("%w: %w", ErrWatchListUnsupported, errInitialIdle)}
	}
	return outcome{err: sourceError(st.op, st.from, err)}
}

// read reads events until the stream ends, and says how it went.
func (st *stream[T]) read(ctx context.Context) outcome {
	for {
		ev, err := st.w.Next()
		if st.inInitial {
			st.count.Add(1)
		}
		if err != nil && errors.Is(err, ErrBadEvent) {
			if o, done := st.badEvent(err); done {
				return o
			}
			continue
		}
		if err != nil {
			return st.end(ctx, err)
		}
		st.delivered = true
		if f := st.r.opts.Metrics.Event; f != nil {
			f(ev.Type)
		}
		if !st.inInitial {
			st.alive()
			st.confirm.event()
			if ev.Type >= EventAdded && ev.Type <= EventDeleted && !isNilAs(st.r.ptr, ev.Object) {
				// A change of a watch, nearly every event: straight
				// to the sink.
				if err := st.change(ev); err != nil {
					return st.outcome(err)
				}
				continue
			}
		}
		if o, done := st.event(ev); done {
			return o
		}
	}
}

// outcome is the stream's outcome, ending with err.
func (st *stream[T]) outcome(err error) outcome {
	// Open time counts from the stream's opening; a stream is short when
	// it ends within productiveAfter of the call that opened it (a Source
	// that waits before it reconnects, as an SSE client does, is not).
	o := outcome{
		err:         err,
		listed:      st.initial && !st.inInitial,
		initialSeen: st.initialSeen,
		delivered:   st.delivered,
		productive:  !st.inInitial && (st.events > 0 || time.Since(st.opened) >= productiveAfter),
		short: !st.inInitial && (st.events > 0 || st.heartbeats.Load() > 0) &&
			time.Since(st.started) < productiveAfter,
	}
	if err != nil && errors.Is(err, ErrOutOfOrder) {
		// The event out of order is no progress: a stream whose first
		// event is out of order (a service that ignores the version it is
		// asked to resume from and replays its history) delivered nothing,
		// and the relist that follows waits a backoff that grows, instead
		// of a relist at once for ever.
		n := st.events - 1
		o.productive, o.delivered, o.short = n > 0, n > 0, false
	}
	return o
}

// failed is the outcome of a streaming list that failed before the end of
// its initial events.
func (st *stream[T]) failed(err error) outcome {
	return outcome{err: err, initialSeen: st.initialSeen, delivered: st.delivered}
}

// badEvent handles an event the source could not read.
func (st *stream[T]) badEvent(err error) (outcome, bool) {
	// An event of a type it does not know carries no change; a duplicate
	// key in a poll's list keeps the later object, as a list does.
	noChange := errors.Is(err, ErrUnknownEventType) || errors.Is(err, ErrDuplicateKey)
	if st.inInitial && !noChange {
		// An object of the list that cannot be read fails the list, as
		// an undecodable item fails a List: skipping it would report
		// synced a cache that lacks it, and nothing would bring it back
		// before the next relist. (An event of a type it does not know
		// carries no object of the list: skipped, as in a watch.)
		return st.failed(sourceError(st.op, st.from, err)), true
	}
	st.r.reportBadEvent(&ObjectError{Op: st.op, Err: err})
	if noChange {
		return outcome{}, false
	}
	st.skip(err)
	if st.skipped < maxSkippedEvents {
		return outcome{}, false
	}
	return st.outcome(st.skippedError()), true
}

// skip records an unreadable event that may have carried a change: the
// cache may now lack it, which Health says until a list repairs it. The
// first one starts the repair: the stream ends repairDelay later, if it
// has not ended by then, and the reflector lists again.
func (st *stream[T]) skip(err error) {
	st.skipped++
	if f := st.r.opts.Metrics.Skipped; f != nil {
		f()
	}
	if st.skipped == 1 {
		st.skipErr = err
		st.r.skips.add(&SourceError{Op: st.op, ResourceVersion: st.from,
			Err: fmt.Errorf("%w: the first after resourceVersion %q: %w", ErrSkippedEvents, st.last.s, err)})
		st.repairTimer = time.AfterFunc(repairDelay, func() { st.repair(errRepairDue) })
		return
	}
	st.r.skips.add(nil)
}

// skippedError is the error of a stream that skipped events, which ends
// in a relist.
func (st *stream[T]) skippedError() error {
	return &SourceError{Op: st.op, ResourceVersion: st.from,
		Err: fmt.Errorf("%w: %d on this stream, the first: %w", ErrSkippedEvents, st.skipped, st.skipErr)}
}

// stopRepair stops the repair timer of a stream that ended.
func (st *stream[T]) stopRepair() {
	if st.repairTimer != nil {
		st.repairTimer.Stop()
	}
	st.repair(nil)
}

// end is the outcome of a stream that Next ended with err.
func (st *stream[T]) end(ctx context.Context, err error) outcome {
	cause := context.Cause(st.ctx)
	switch {
	case ctx.Err() != nil:
		return st.outcome(nil)
	case st.skipped > 0:
		// Ended by the repair timer, or by anything else: a relist,
		// whatever ended it, gets the skipped changes back.
		return st.outcome(st.skippedError())
	case st.inInitial && errors.Is(cause, errInitialIdle):
		return st.failed(fmt.Errorf("%w: %w", ErrWatchListUnsupported, errInitialIdle))
	case errors.Is(cause, errStalled):
		if !st.inInitial && (st.events > 0 || st.heartbeats.Load() > 0) {
			// Busy (or alive) past its deadline: the source ignores
			// timeouts. End it like a server-side timeout.
			return st.outcome(nil)
		}
		// Silent past its deadline: however long it was open, it was
		// not working.
		o := st.outcome(sourceError(st.op, st.from, errStalled))
		o.productive = false
		return o
	case !errors.Is(err, io.EOF):
		if st.inInitial {
			return st.failed(sourceError(st.op, st.from, err))
		}
		return st.outcome(sourceError(st.op, st.from, err))
	case st.inInitial:
		// A server that serves streaming lists holds the stream open
		// until their end marker; one that ends it first ignored the
		// request (a proxy that drops the parameters, a fake server):
		// list instead.
		return st.failed(fmt.Errorf("%w: the stream ended before the end of its initial events", ErrWatchListUnsupported))
	}
	if o := st.outcome(nil); o.productive || st.heartbeats.Load() > 0 {
		// A clean end after a useful watch, or of a quiet one that
		// showed it was alive (a server that ends its quiet streams).
		return o
	}
	return st.outcome(sourceError(st.op, st.from, errEmptyWatch))
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
		if st.inInitial {
			return st.initialEvent(ev)
		}
		if err := st.change(ev); err != nil {
			return st.outcome(err), true
		}
	case EventBookmark:
		st.bookmark(ev)
	case EventInitialEventsEnd:
		return st.initialEnd(ev)
	default:
		st.r.reportBadEvent(&ObjectError{Op: st.op, Err: fmt.Errorf("%w: %d", ErrUnknownEventType, ev.Type)})
	}
	return outcome{}, false
}

// initialEvent takes one object of a streaming list's initial events.
func (st *stream[T]) initialEvent(ev Event[T]) (outcome, bool) {
	if ev.Type != EventAdded {
		// A plain watch: the server ignored the request.
		return st.failed(fmt.Errorf("%w: %s event before the end of the initial events", ErrWatchListUnsupported, ev.Type)), true
	}
	st.initialSeen = true
	st.page = append(st.page, ev.Object)
	if len(st.page) >= st.r.streamBatch() {
		st.flush()
	}
	return outcome{}, false
}

// flush hands the initial events read so far to the sink.
func (st *stream[T]) flush() {
	if len(st.page) == 0 {
		return
	}
	if err := st.r.sink.ReplaceItems(st.page); err != nil {
		st.r.report(err)
	}
	clear(st.page)
	st.page = st.page[:0]
}

// initialEnd ends a streaming list's initial events: the replacement is
// complete, and the stream goes on as a watch.
func (st *stream[T]) initialEnd(ev Event[T]) (outcome, bool) {
	if !st.inInitial {
		st.r.reportBadEvent(&ObjectError{Op: st.op, Err: fmt.Errorf("%w: %s outside a streaming list", ErrUnknownEventType, ev.Type)})
		return outcome{}, false
	}
	st.count.Store(math.MinInt64)
	st.flush()
	if err := st.r.sink.EndReplace(); err != nil {
		return st.failed(err), true
	}
	st.inInitial = false
	st.last = newVersion(ev.ResourceVersion)
	st.r.setLastRV(ev.ResourceVersion)
	st.r.listed()
	st.r.setHealth(StateWatching, time.Time{}, 0) // the stream goes on as a watch
	return outcome{}, false
}

// change writes one change of a watch into the sink; an error (an event
// out of order) ends the stream.
func (st *stream[T]) change(ev Event[T]) error {
	r := st.r
	rv := ev.ResourceVersion
	if rv == "" {
		rv = ev.Object.GetResourceVersion()
	}
	v := newVersion(rv)
	older := st.r.older(v, st.last)
	if older && (ev.Type != EventDeleted || ev.ResourceVersion != "") {
		return &SourceError{Op: st.op, ResourceVersion: st.from,
			Err: fmt.Errorf("%w: %s at %q after %q", ErrOutOfOrder, ev.Type, rv, st.last.s)}
	}
	var err error
	switch ev.Type {
	case EventAdded:
		err = r.sink.Add(ev.Object)
	case EventModified:
		err = r.sink.Update(ev.Object)
	default:
		// A deletion without a version of its own carries the object's
		// last state, older than the stream: it cannot move the key
		// backwards, and does not move the stream's version.
		err = r.sink.Delete(ev.Object)
	}
	if err != nil {
		r.report(&ObjectError{Op: st.op, Err: fmt.Errorf("%s event: %w", ev.Type, err)})
	}
	if rv != "" && !older {
		st.advance(v)
	}
	return nil
}

// bookmark moves the stream's version on without a change.
func (st *stream[T]) bookmark(ev Event[T]) {
	if st.inInitial {
		return // progress only; the end marker comes as its own type
	}
	rv := ev.ResourceVersion
	if rv == "" {
		st.r.report(&ObjectError{Op: st.op, Err: ErrBookmarkWithoutVersion})
		return
	}
	if v := newVersion(rv); !st.r.older(v, st.last) {
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
	if st.skipped == 0 {
		st.r.setLastRV(v.s)
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

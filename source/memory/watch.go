package memory

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/informer-go/informer"
)

// Watch opens a stream of the writes after opts.ResourceVersion ("" or "0":
// from now). It implements informer.Source. A version older than the
// compaction point is an error wrapping informer.ErrExpired (so is Next's
// once the watcher falls behind it), a newer one than the current
// ErrInvalidVersion. A deletion's event carries the deletion's version and
// the last stored state. opts.SendInitialEvents needs Options.WatchList
// (else informer.ErrWatchListUnsupported): an EventAdded per object, by
// key, then EventInitialEventsEnd. Bookmarks (Bookmark) go to watches with
// opts.AllowBookmarks; opts.Timeout ends the stream with io.EOF (a
// time.Timer: synctest's fake time drives it). No goroutine is started.
func (s *Source[T]) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchCalls++
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.failWatches.take(); err != nil {
		return nil, err
	}
	if opts.SendInitialEvents && !s.opts.WatchList {
		return nil, fmt.Errorf("memory: watch: SendInitialEvents: %w", informer.ErrWatchListUnsupported)
	}
	rv, err := s.parseVersionLocked(opts.ResourceVersion)
	if err != nil {
		return nil, fmt.Errorf("memory: watch: %w", err)
	}
	w := &watcher[T]{s: s, ctx: ctx, bookmarks: opts.AllowBookmarks, cursor: rv}
	if opts.SendInitialEvents {
		w.initial = s.stateLocked(s.rv)
		sortEntries(w.initial)
		w.initialEnd = true
		w.cursor = s.rv
	} else if rv < s.compacted {
		return nil, s.expiredError("watch", rv)
	}
	if opts.Timeout > 0 {
		w.timer = time.NewTimer(opts.Timeout)
	}
	s.watchers[w] = struct{}{}
	return w, nil
}

// watcher is the informer.Watcher that Watch returns: a cursor into the
// Source's history, plus the events queued for it alone.
type watcher[T Object] struct {
	s         *Source[T]
	ctx       context.Context
	bookmarks bool
	timer     *time.Timer // nil without a timeout
	timedOut  bool        // the timer fired; only Next uses it

	// Guarded by s.mu.
	cursor     uint64     // the version of the last write delivered
	initial    []entry[T] // initial events not yet delivered
	initialEnd bool       // EventInitialEventsEnd is still to come
	extra      []extra[T] // bookmarks and injected events, in order
	end        error      // why the stream ended; nil while it is open
	closed     bool
}

// extra is an event that is not in the history, to be delivered once the
// watcher has delivered the writes up to after.
type extra[T Object] struct {
	after uint64
	event informer.Event[T]
}

// Next returns the next event. It blocks until there is one, the watch's
// context ends (it returns the context's error), the watcher is closed or
// times out (io.EOF), or a fault ends the stream (DropWatches, compaction).
// Once the stream has ended, Next keeps returning the same error.
func (w *watcher[T]) Next() (informer.Event[T], error) {
	s := w.s
	var timeout <-chan time.Time
	if w.timer != nil {
		timeout = w.timer.C
	}
	for {
		s.mu.Lock()
		if w.end == nil {
			if err := w.ctx.Err(); err != nil {
				w.endLocked(err)
			} else if w.expiredTimer(timeout) {
				w.endLocked(io.EOF)
			} else if !s.stalled {
				if ev, ok := w.nextLocked(); ok {
					s.mu.Unlock()
					return ev, nil
				}
			}
		}
		if w.end != nil {
			err := w.end
			s.mu.Unlock()
			return informer.Event[T]{}, err
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()

		select {
		case <-changed:
		case <-w.ctx.Done():
		case <-timeout:
			w.timedOut = true
		}
	}
}

// expiredTimer reports, without blocking, whether the watch timed out.
func (w *watcher[T]) expiredTimer(timeout <-chan time.Time) bool {
	if w.timedOut || timeout == nil {
		return w.timedOut
	}
	select {
	case <-timeout:
		w.timedOut = true
	default:
	}
	return w.timedOut
}

// nextLocked takes the next event to deliver, if there is one: the initial
// events, then the history in order, with the extra events slotted in after
// the write that was the last one when they were queued. A cursor behind the
// compaction point ends the stream with ErrExpired.
func (w *watcher[T]) nextLocked() (informer.Event[T], bool) {
	s := w.s
	if len(w.initial) > 0 {
		obj := w.initial[0].obj
		w.initial[0] = entry[T]{}
		w.initial = w.initial[1:]
		if len(w.initial) == 0 {
			w.initial = nil
		}
		return informer.Event[T]{Type: informer.EventAdded, Object: obj, ResourceVersion: obj.GetResourceVersion()}, true
	}
	if w.initialEnd {
		w.initialEnd = false
		return informer.Event[T]{Type: informer.EventInitialEventsEnd, ResourceVersion: strconv.FormatUint(w.cursor, 10)}, true
	}
	if len(w.extra) > 0 && w.extra[0].after <= w.cursor {
		ev := w.extra[0].event
		w.extra[0] = extra[T]{}
		w.extra = w.extra[1:]
		if len(w.extra) == 0 {
			w.extra = nil
		}
		return ev, true
	}
	if w.cursor >= s.rv {
		return informer.Event[T]{}, false
	}
	if w.cursor < s.compacted {
		w.endLocked(s.expiredError("watch", w.cursor))
		return informer.Event[T]{}, false
	}
	w.cursor++
	return s.history[w.cursor-s.compacted-1].event(), true
}

// endLocked ends the stream with err, unless it has ended already, and lets
// go of what it still held.
func (w *watcher[T]) endLocked(err error) {
	if w.end != nil {
		return
	}
	w.end = err
	w.initial = nil
	w.initialEnd = false
	w.extra = nil
}

// queueLocked queues ev for delivery after the writes so far.
func (w *watcher[T]) queueLocked(ev informer.Event[T]) {
	w.extra = append(w.extra, extra[T]{after: w.s.rv, event: ev})
}

// Close ends the stream; a blocked Next returns io.EOF. It always returns
// nil.
func (w *watcher[T]) Close() error {
	s := w.s
	s.mu.Lock()
	if !w.closed {
		w.closed = true
		w.endLocked(io.EOF)
		delete(s.watchers, w)
		s.broadcastLocked()
	}
	s.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	return nil
}

package informer

import (
	"errors"
	"time"
)

// Why a list started, as Metrics.List reports it.
const (
	// ListInitial: the first list of Run (not after a warm restart from
	// a snapshot: then the first list is ListExpired, or whatever ended
	// the watch from the snapshot's version).
	ListInitial = "initial"
	// ListExpired: the version to resume from was gone (410 Gone), or an
	// event came out of order.
	ListExpired = "expired"
	// ListUnreadable: events the source could not read were skipped
	// (ErrSkippedEvents), or a streaming list met one: a list gets the
	// changes they carried.
	ListUnreadable = "unreadable"
	// ListWatchEnded: watches kept ending without delivering anything,
	// or a streaming list ended before its initial events did.
	ListWatchEnded = "watch_ended"
	// ListFallback: the source refused a streaming list; it lists instead.
	ListFallback = "fallback"
	// ListError: the last list or streaming list failed; this is its
	// retry.
	ListError = "error"
)

// Why a watch started again, as Metrics.WatchRestart reports it.
const (
	// RestartClosed: the server ended the watch cleanly (its timeout).
	RestartClosed = "closed"
	// RestartStalled: the watch stayed silent past its deadline, or ended
	// at once without an event.
	RestartStalled = "stalled"
	// RestartError: the watch failed (a cut connection, an error event).
	RestartError = "error"
)

// Metrics receives an informer's (or a Reflector's) measurements through
// callbacks, so that any metrics system can record them without this
// package depending on one (metrics/prometheus and metrics/otel, modules
// of their own, are adapters). Nil fields are not called, and with none
// set nothing is measured (no clock is read). Callbacks run on the
// informer's goroutines (the reflector's, a handler's), never under a
// lock; they must be quick and safe for concurrent use.
//
// Gauges that can be read at any time are not callbacks: the number of
// objects (Lister().Len()), how long since the source last confirmed the
// cache current (Health().SinceActivity, the lag), the notifications a
// handler has yet to process (Registration.Pending).
type Metrics struct {
	// Event is called for each event a watch or streaming list delivers,
	// with its type (EventAdded, EventModified, EventDeleted,
	// EventBookmark, EventInitialEventsEnd).
	Event func(t EventType)
	// Skipped is called for each event skipped as unreadable (a decode
	// failure: see ErrSkippedEvents).
	Skipped func()
	// List is called when a list or a streaming list starts, with why:
	// ListInitial, ListExpired, ListUnreadable, ListWatchEnded,
	// ListFallback or ListError.
	List func(streaming bool, reason string)
	// ListItems is called with the number of objects of each page of a
	// list (a streaming list's initial events arrive through Event).
	ListItems func(n int)
	// WatchRestart is called when a watch starts again after one ended,
	// with why: RestartClosed, RestartStalled or RestartError.
	WatchRestart func(reason string)
	// HandlerLatency is called with how long a handler took to process a
	// notification, for one notification in HandlerSample of each
	// handler (timing every one would read the clock twice per
	// notification), with the handler's HandlerOptions.Name.
	HandlerLatency func(handler string, d time.Duration)
	// HandlerPanic is called for each panic recovered from a handler.
	HandlerPanic func(handler string)
}

// HandlerSample is how many notifications of a handler are processed for
// each one Metrics.HandlerLatency times.
const HandlerSample = 16

// set reports whether any callback is set.
func (m *Metrics) set() bool {
	return m.Event != nil || m.Skipped != nil || m.List != nil || m.ListItems != nil ||
		m.WatchRestart != nil || m.HandlerLatency != nil || m.HandlerPanic != nil
}

// listReason classifies the error that led to a list; first is the list
// that starts Run.
func listReason(first bool, err error) string {
	switch {
	case first:
		return ListInitial
	case errors.Is(err, ErrExpired), errors.Is(err, ErrOutOfOrder):
		return ListExpired
	case errors.Is(err, ErrSkippedEvents), errors.Is(err, ErrBadEvent):
		return ListUnreadable
	case errors.Is(err, ErrWatchListUnsupported):
		return ListFallback
	case err == nil, errors.Is(err, errEmptyWatch), errors.Is(err, errStalled):
		return ListWatchEnded
	}
	return ListError
}

// restartReason classifies how a watch ended.
func restartReason(err error) string {
	switch {
	case err == nil:
		return RestartClosed
	case errors.Is(err, errEmptyWatch), errors.Is(err, errStalled):
		return RestartStalled
	}
	return RestartError
}

// metricsStarts is what Reflector.Run remembers to report the start of
// lists and of watches again: the call before (waits aside) and its
// error.
type metricsStarts struct {
	on    bool // List or WatchRestart is set
	first bool // no list started yet
	prev  op
	why   error
}

// before reports the start of a list, or of a watch again, that a is
// about to make.
func (ms *metricsStarts) before(m *Metrics, s state, a action) {
	switch {
	case (a.op == opList && s.list.cont == "") || a.op == opStreamList:
		if m.List != nil {
			m.List(a.op == opStreamList, listReason(ms.first, ms.why))
		}
		ms.first = false
	case a.op == opWatch && ms.prev != opList && m.WatchRestart != nil:
		m.WatchRestart(restartReason(ms.why))
	}
}

package informer

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// What came of an action, and how a stream's end is sorted into it: the
// functions here are pure, as step is (reflector_machine.go); the stream
// (reflector_stream.go) gathers the facts and reads the clock.

// outcome is what came of performing an action.
type outcome struct {
	err error
	// List: err is the sink's (EndReplace), not the Source's.
	sinkErr bool
	// List: the page's continue token ("" on the last page, when the
	// replacement is complete), and its version.
	cont, rv string
	// Streaming list: the initial events completed (the replacement is in).
	listed bool
	// Streaming list: an initial event arrived before the stream failed.
	initialSeen bool
	// Watch or streaming list: any event arrived.
	delivered bool
	// Watch: it delivered an event after its initial events, or stayed
	// open for productiveAfter: a failure after it is a blip, not an outage.
	productive bool
	// Watch: it delivered, and ended (cleanly or not) within
	// productiveAfter of its start.
	short bool
}

// streamFacts is what a stream knows of itself, which its outcome is
// sorted from.
type streamFacts struct {
	op   string // "watch" or "watchlist"
	from string // the version it watches from

	initial     bool  // a streaming list
	inInitial   bool  // its initial events have not ended
	initialSeen bool  // an initial event arrived
	delivered   bool  // any event arrived
	events      int   // events after the initial ones
	heartbeats  bool  // the Watcher signalled that the stream is alive
	skipped     int   // unreadable events that may have carried a change
	skipErr     error // the first of them

	open time.Duration // since Watch returned: the stream opened
	age  time.Duration // since Watch was called
}

// outcome is the outcome of a stream that ends with err.
func (f streamFacts) outcome(err error) outcome {
	// Open time counts from the stream's opening; a stream is short when
	// it ends within productiveAfter of the call that opened it (a Source
	// that waits before it reconnects, as an SSE client does, is not).
	o := outcome{
		err:         err,
		listed:      f.initial && !f.inInitial,
		initialSeen: f.initialSeen,
		delivered:   f.delivered,
		productive:  !f.inInitial && (f.events > 0 || f.open >= productiveAfter),
		short:       !f.inInitial && (f.events > 0 || f.heartbeats) && f.age < productiveAfter,
	}
	if err != nil && errors.Is(err, ErrOutOfOrder) {
		// The event out of order is no progress: a stream whose first
		// event is out of order (a service that ignores the version it is
		// asked to resume from and replays its history) delivered nothing,
		// and the relist that follows waits a backoff that grows, instead
		// of a relist at once for ever.
		n := f.events - 1
		o.productive, o.delivered, o.short = n > 0, n > 0, false
	}
	return o
}

// failed is the outcome of a streaming list that failed before the end of
// its initial events.
func (f streamFacts) failed(err error) outcome {
	return outcome{err: err, initialSeen: f.initialSeen, delivered: f.delivered}
}

// skippedError is the error of a stream that skipped events, which ends
// in a relist.
func (f streamFacts) skippedError() error {
	return &SourceError{Op: f.op, ResourceVersion: f.from,
		Err: fmt.Errorf("%w: %d on this stream, the first: %w", ErrSkippedEvents, f.skipped, f.skipErr)}
}

// openFailed is the outcome of a Watch call that failed with err; cause
// is the stream's context's cause, cancelled whether Run's context ended.
func (f streamFacts) openFailed(err, cause error, cancelled bool) outcome {
	switch {
	case f.initial && errors.Is(err, ErrWatchListUnsupported):
		return outcome{err: err}
	case f.initial && !cancelled && errors.Is(cause, errInitialIdle):
		return outcome{err: fmt.Errorf("%w: %w", ErrWatchListUnsupported, errInitialIdle)}
	}
	return outcome{err: sourceError(f.op, f.from, err)}
}

// end is the outcome of a stream that Next ended with err; cause is the
// stream's context's cause, cancelled whether Run's context ended.
func (f streamFacts) end(err, cause error, cancelled bool) outcome {
	switch {
	case cancelled:
		return f.outcome(nil)
	case f.skipped > 0:
		// Ended by the repair timer, or by anything else: a relist,
		// whatever ended it, gets the skipped changes back.
		return f.outcome(f.skippedError())
	case f.inInitial && errors.Is(cause, errInitialIdle):
		return f.failed(fmt.Errorf("%w: %w", ErrWatchListUnsupported, errInitialIdle))
	case errors.Is(cause, errStalled):
		if !f.inInitial && (f.events > 0 || f.heartbeats) {
			// Busy (or alive) past its deadline: the source ignores
			// timeouts. End it like a server-side timeout.
			return f.outcome(nil)
		}
		// Silent past its deadline: however long it was open, it was
		// not working.
		o := f.outcome(sourceError(f.op, f.from, errStalled))
		o.productive = false
		return o
	case !errors.Is(err, io.EOF):
		if f.inInitial {
			return f.failed(sourceError(f.op, f.from, err))
		}
		return f.outcome(sourceError(f.op, f.from, err))
	case f.inInitial:
		// A server that serves streaming lists holds the stream open
		// until their end marker; one that ends it first ignored the
		// request (a proxy that drops the parameters, a fake server):
		// list instead.
		return f.failed(fmt.Errorf("%w: the stream ended before the end of its initial events", ErrWatchListUnsupported))
	}
	if o := f.outcome(nil); o.productive || f.heartbeats {
		// A clean end after a useful watch, or of a quiet one that
		// showed it was alive (a server that ends its quiet streams).
		return o
	}
	return f.outcome(sourceError(f.op, f.from, errEmptyWatch))
}

// unreadable is what a stream does with an event the source could not
// read.
type unreadable uint8

const (
	unreadableNoChange unreadable = iota // reported: it carried no change
	unreadableFails                      // it fails the streaming list
	unreadableSkipped                    // reported and skipped: the cache may lack a change until a relist
	unreadableTooMany                    // skipped, one too many: the stream ends, for a relist
)

// unreadable sorts an event the source could not read (err), before the
// stream counts it.
func (f streamFacts) unreadable(err error) unreadable {
	// An event of a type it does not know carries no change; a duplicate
	// key in a poll's list keeps the later object, as a list does.
	noChange := errors.Is(err, ErrUnknownEventType) || errors.Is(err, ErrDuplicateKey)
	switch {
	case f.inInitial && !noChange:
		// An object of the list that cannot be read fails the list, as
		// an undecodable item fails a List: skipping it would report
		// synced a cache that lacks it, and nothing would bring it back
		// before the next relist. (An event of a type it does not know
		// carries no object of the list: skipped, as in a watch.)
		return unreadableFails
	case noChange:
		return unreadableNoChange
	case f.skipped+1 < maxSkippedEvents:
		return unreadableSkipped
	}
	return unreadableTooMany
}

package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// TestStreamEnd checks how the end of a stream is sorted into an outcome,
// one row per rule of streamFacts.end.
func TestStreamEnd(t *testing.T) {
	watch := streamFacts{op: "watch", from: "5"}
	busy := watch
	busy.events, busy.delivered, busy.open, busy.age = 3, true, 2*time.Second, 2*time.Second
	quiet := watch
	quiet.open, quiet.age = 10*time.Millisecond, 10*time.Millisecond
	alive := quiet
	alive.heartbeats = true
	long := watch
	long.open, long.age = 2*time.Second, 2*time.Second
	skipped := busy
	skipped.skipped, skipped.skipErr = 2, ErrBadEvent
	initial := streamFacts{op: "watchlist", initial: true, inInitial: true, initialSeen: true, delivered: true}
	listed := initial
	listed.inInitial, listed.open, listed.age = false, 2*time.Second, 2*time.Second
	cut := errors.New("connection reset")

	for _, tc := range []struct {
		name       string
		f          streamFacts
		err, cause error
		cancelled  bool
		want       outcome
		is         error // the outcome's error matches it; nil: no error
	}{
		{"Run ended", busy, io.EOF, context.Canceled, true, outcome{delivered: true, productive: true}, nil},
		{"skipped events", skipped, cut, nil, false, outcome{delivered: true, productive: true}, ErrSkippedEvents},
		{"repair due", skipped, context.Canceled, errRepairDue, false, outcome{delivered: true, productive: true}, ErrSkippedEvents},
		{"initial events idle", initial, context.Canceled, errInitialIdle, false, outcome{initialSeen: true, delivered: true}, ErrWatchListUnsupported},
		{"stalled, busy", busy, context.DeadlineExceeded, errStalled, false, outcome{delivered: true, productive: true}, nil},
		{"stalled, alive", alive, context.DeadlineExceeded, errStalled, false, outcome{short: true}, nil},
		{"stalled, silent", long, context.DeadlineExceeded, errStalled, false, outcome{}, errStalled},
		{"stalled in the initial events", initial, context.DeadlineExceeded, errStalled, false, outcome{initialSeen: true, delivered: true}, errStalled},
		{"cut", busy, cut, nil, false, outcome{delivered: true, productive: true}, ErrTransport},
		{"cut in the initial events", initial, cut, nil, false, outcome{initialSeen: true, delivered: true}, ErrTransport},
		{"ended in the initial events", initial, io.EOF, nil, false, outcome{initialSeen: true, delivered: true}, ErrWatchListUnsupported},
		{"ended after a useful watch", busy, io.EOF, nil, false, outcome{delivered: true, productive: true}, nil},
		{"ended after a streaming list", listed, io.EOF, nil, false, outcome{listed: true, initialSeen: true, delivered: true, productive: true}, nil},
		{"ended quiet but alive", alive, io.EOF, nil, false, outcome{short: true}, nil},
		{"ended open a while", long, io.EOF, nil, false, outcome{productive: true}, nil},
		{"ended empty", quiet, io.EOF, nil, false, outcome{}, errEmptyWatch},
	} {
		if tc.name == "cut" || tc.name == "cut in the initial events" {
			tc.err = &net0{cut}
		}
		o := tc.f.end(tc.err, tc.cause, tc.cancelled)
		got := o
		got.err = nil
		if got != tc.want {
			t.Errorf("%s: outcome %+v, want %+v", tc.name, got, tc.want)
		}
		switch {
		case tc.is == nil && o.err != nil:
			t.Errorf("%s: error %v, want none", tc.name, o.err)
		case tc.is != nil && !errors.Is(o.err, tc.is):
			t.Errorf("%s: error %v, want one matching %v", tc.name, o.err, tc.is)
		}
	}
}

// net0 is a transport error (a net.Error).
type net0 struct{ error }

func (net0) Timeout() bool   { return false }
func (net0) Temporary() bool { return false }

// TestStreamOpenFailed checks the outcome of a Watch call that failed.
func TestStreamOpenFailed(t *testing.T) {
	initial := streamFacts{op: "watchlist", initial: true, inInitial: true}
	watch := streamFacts{op: "watch", from: "5"}
	refused := errors.New("403 Forbidden")
	for _, tc := range []struct {
		name       string
		f          streamFacts
		err, cause error
		cancelled  bool
		is         error
		source     bool // a *SourceError
	}{
		{"streaming list refused", initial, ErrWatchListUnsupported, nil, false, ErrWatchListUnsupported, false},
		{"streaming list idle", initial, context.Canceled, errInitialIdle, false, ErrWatchListUnsupported, false},
		{"streaming list, Run ended", initial, context.Canceled, errInitialIdle, true, context.Canceled, true},
		{"streaming list failed", initial, refused, nil, false, refused, true},
		{"watch failed", watch, refused, nil, false, refused, true},
		{"watch refused a streaming list", watch, ErrWatchListUnsupported, nil, false, ErrWatchListUnsupported, true},
	} {
		o := tc.f.openFailed(tc.err, tc.cause, tc.cancelled)
		var se *SourceError
		if !errors.Is(o.err, tc.is) || errors.As(o.err, &se) != tc.source {
			t.Errorf("%s: error %v, want one matching %v (a *SourceError: %t)", tc.name, o.err, tc.is, tc.source)
		}
		if o.delivered || o.productive || o.listed {
			t.Errorf("%s: outcome %+v of a stream that never opened", tc.name, o)
		}
	}
}

// TestUnreadable checks how an event the source could not read is sorted.
func TestUnreadable(t *testing.T) {
	watch := streamFacts{op: "watch"}
	initial := streamFacts{op: "watchlist", initial: true, inInitial: true}
	nearly := watch
	nearly.skipped = maxSkippedEvents - 2
	full := watch
	full.skipped = maxSkippedEvents - 1
	garbled := fmt.Errorf("line 3: %w", ErrBadEvent)
	unknown := fmt.Errorf("%w: 9", ErrUnknownEventType)
	dup := fmt.Errorf("%w: ns/a", ErrDuplicateKey)
	for _, tc := range []struct {
		name string
		f    streamFacts
		err  error
		want unreadable
	}{
		{"garbled, watch", watch, garbled, unreadableSkipped},
		{"garbled, initial events", initial, garbled, unreadableFails},
		{"unknown type, watch", watch, unknown, unreadableNoChange},
		{"unknown type, initial events", initial, unknown, unreadableNoChange},
		{"duplicate key", watch, dup, unreadableNoChange},
		{"duplicate key, initial events", initial, dup, unreadableNoChange},
		{"the last skipped before too many", nearly, garbled, unreadableSkipped},
		{"one too many", full, garbled, unreadableTooMany},
		{"one too many, but no change", full, unknown, unreadableNoChange},
	} {
		if got := tc.f.unreadable(tc.err); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

package informer

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// The reflector's policy, proven in one place: every rule of step is a row
// of this table, and TestStepCoversEveryPair checks that every state of
// the machine meets every outcome its action can have.

// Outcomes, by name.
var (
	errServer   = &SourceError{Op: "list", Err: errors.New("500 Internal Server Error")}
	errWatch    = &SourceError{Op: "watch", Err: errors.New("500 Internal Server Error")}
	errGone     = &SourceError{Op: "watch", Err: fmt.Errorf("410: %w", ErrExpired)}
	errBadObj   = &SourceError{Op: "watchlist", Err: fmt.Errorf("line 3: %w", ErrBadEvent)}
	errNoStream = fmt.Errorf("%w: the stream ended before the end of its initial events", ErrWatchListUnsupported)
	errOrder    = &SourceError{Op: "watch", Err: fmt.Errorf("%w: MODIFIED at \"3\" after \"5\"", ErrOutOfOrder)}
	errSkipped  = &SourceError{Op: "watch", Err: fmt.Errorf("%w: 3 on this stream, the first: %w", ErrSkippedEvents, ErrBadEvent)}
	errEmpty    = &SourceError{Op: "watch", Err: errEmptyWatch}
	errSilent   = &SourceError{Op: "watch", Err: errStalled}
	errEnd      = errors.New("sink closed")
)

var outcomes = map[string]outcome{
	// List pages.
	"page":          {cont: "tok", rv: "7"},
	"last page":     {},
	"page failed":   {err: errServer},
	"page expired":  {err: &SourceError{Op: "list", Err: ErrExpired}},
	"replace error": {err: errEnd, sinkErr: true},
	// Streaming lists.
	"unsupported":                    {err: errNoStream},
	"bad object":                     {err: errBadObj, initialSeen: true, delivered: true},
	"cut half way":                   {err: errWatch, initialSeen: true, delivered: true},
	"refused":                        {err: errWatch},
	"listed, cut at once":            {err: errWatch, listed: true, initialSeen: true, delivered: true},
	"listed, watched, cut":           {err: errWatch, listed: true, initialSeen: true, delivered: true, productive: true},
	"listed, watched, ended":         {listed: true, initialSeen: true, delivered: true, productive: true},
	"listed, then skipped":           {err: errSkipped, listed: true, delivered: true},
	"listed, then ended without any": {err: errEmpty, listed: true, delivered: true},
	"expired before listing":         {err: errGone},
	// Watches.
	"ended":          {delivered: true, productive: true},
	"ended quiet":    {productive: true},
	"delivered, cut": {err: errWatch, delivered: true, productive: true},
	"failed":         {err: errWatch},
	"expired":        {err: errGone},
	"out of order":   {err: errOrder, delivered: true, productive: true},
	// Its first event out of order (a service that replays its history
	// whatever version it is asked to resume from): no progress.
	"out of order at once": {err: errOrder},
	// Delivered and ended within productiveAfter of its start (a server
	// that ends every stream after an event).
	"ended short": {delivered: true, productive: true, short: true},
	"cut short":   {err: errWatch, delivered: true, productive: true, short: true},
	// A stream that skipped unreadable events (ended by the repair
	// timer, by too many, or by anything else), and one that also
	// delivered.
	"skipped":            {err: errSkipped},
	"delivered, skipped": {err: errSkipped, delivered: true, productive: true},
	"ended empty":        {err: errEmpty},
	"stalled":            {err: errSilent},
	"ctx ended early":    {},
	// Waits.
	"waited": {},
}

// outcomesOf lists the outcomes an action of phase p can have.
var outcomesOf = map[phase][]string{
	phaseList:       {"page", "last page", "page failed", "page expired", "replace error"},
	phaseStreamList: {"unsupported", "bad object", "cut half way", "refused", "listed, cut at once", "listed, watched, cut", "listed, watched, ended", "listed, then skipped", "listed, then ended without any", "expired before listing", "ctx ended early"},
	phaseWatch:      {"ended", "ended quiet", "delivered, cut", "failed", "expired", "out of order", "out of order at once", "ended short", "cut short", "skipped", "delivered, skipped", "ended empty", "stalled"},
	phaseWait:       {"waited"},
}

// States, by name.
var states = map[string]state{
	"first page":                     {phase: phaseList, list: listCursor{from: "0", noWatchList: true}},
	"first page, stalled":            {phase: phaseList, list: listCursor{noWatchList: true}, health: sourceHealth{stalled: true, failures: 2}},
	"first page, once":               {phase: phaseList, list: listCursor{listOnce: true}, health: sourceHealth{failures: 1}},
	"later page":                     {phase: phaseList, list: listCursor{from: "0", cont: "p2", at: "5", noWatchList: true}},
	"later page, retried 4 times":    {phase: phaseList, list: listCursor{cont: "p2", retries: pageRetries, noWatchList: true}, health: sourceHealth{failures: 1}},
	"unpaged":                        {phase: phaseList, list: listCursor{unpaged: true, noWatchList: true}},
	"streaming list":                 {phase: phaseStreamList, health: sourceHealth{failures: 1}},
	"streaming list, progress":       {phase: phaseStreamList, health: sourceHealth{progress: true}},
	"streaming list, cut 4 times":    {phase: phaseStreamList, list: listCursor{streamCuts: pageRetries}, health: sourceHealth{failures: 3}},
	"watch":                          {phase: phaseWatch, health: sourceHealth{failures: 2}},
	"watch, progress":                {phase: phaseWatch, health: sourceHealth{progress: true}},
	"watch, stalled":                 {phase: phaseWatch, health: sourceHealth{stalled: true, failures: 1}},
	"watch, 2 empty":                 {phase: phaseWatch, health: sourceHealth{emptyWatches: maxEmptyWatches - 1, failures: 2}},
	"watch after a paged list":       {phase: phaseWatch, list: listCursor{paged: true, noWatchList: true}},
	"watch, 1 quick retry left":      {phase: phaseWatch, health: sourceHealth{quick: 1, failures: 3}},
	"watch, repaired once":           {phase: phaseWatch, health: sourceHealth{repairs: 1, failures: 1}},
	"restored watch":                 newRestoredState(false),
	"restored watch, 2 failed":       {phase: phaseWatch, list: listCursor{restored: true}, health: sourceHealth{progress: true, emptyWatches: maxEmptyWatches - 1, failures: 2}},
	"watch, 2 short":                 {phase: phaseWatch, health: sourceHealth{shortStreams: maxShortStreams - 1}},
	"wait before list":               {phase: phaseWait, then: phaseList, list: listCursor{noWatchList: true}},
	"wait before watch":              {phase: phaseWait, then: phaseWatch},
	"wait before streaming list":     {phase: phaseWait, then: phaseStreamList},
	"wait before a page, retried 1x": {phase: phaseWait, then: phaseList, list: listCursor{cont: "p2", retries: 1, noWatchList: true}},
}

// want is what a row expects: the next state's phase (and, for a wait,
// what follows it), the action, and a check of the rest of the state.
type want struct {
	phase, then phase
	op          op
	report      level
	reset       bool
	wait        waitKind
}

var stepTable = []struct {
	state, outcome string
	want           want
	// fields are checks of the next state: each returns "" when right.
	fields []func(state) string
}{
	// A List, page by page.
	{"first page", "page", want{phase: phaseList, op: opList}, cond(func(s state) bool {
		return s.list.cont == "tok" && s.list.from == "0" && s.list.paged && s.list.at == "7"
	}, "next page with the token, same version; the list is at the first page's version")},
	{"first page", "last page", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.failures == 0 && s.list.cont == "" && s.list.filled }, "listed: failures forgotten, later lists are not Initial")},
	{"first page", "page failed", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return s.health.failures == 1 && s.list.from == "0" && s.list.filled }, "a failure counted; the same list again, not as Initial")},
	{"first page", "page expired", want{phase: phaseWait, then: phaseList, op: opWait, report: reportRoutine, wait: waitBackoff}, cond(func(s state) bool { return s.list.from == "" && s.health.stalled }, "expired without progress: from the latest, after a backoff")},
	{"first page", "replace error", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return !s.list.filled }, "the sink's error: the first list is still Initial")},
	{"first page, stalled", "last page", want{phase: phaseWatch, op: opWatch, reset: false}, cond(func(s state) bool { return s.health.stalled && s.health.failures == 0 }, "after expiries without progress, a list does not reset the backoff")},
	{"first page, stalled", "page", want{phase: phaseList, op: opList}, nil},
	{"first page, stalled", "page failed", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.failures == 3 }, "")},
	{"first page, stalled", "page expired", want{phase: phaseWait, then: phaseList, op: opWait, report: reportRoutine}, nil},
	{"first page, stalled", "replace error", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure}, nil},
	{"first page, once", "last page", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.listOnce }, "one List, then streaming lists again")},
	{"first page, once", "page", want{phase: phaseList, op: opList}, cond(func(s state) bool { return s.list.listOnce }, "")},
	{"first page, once", "page failed", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, cond(func(s state) bool { return !s.list.listOnce }, "after a failed List, a streaming list again")},
	{"first page, once", "page expired", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, nil},
	{"first page, once", "replace error", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, nil},
	{"later page", "page", want{phase: phaseList, op: opList}, cond(func(s state) bool { return s.list.cont == "tok" && s.list.retries == 0 && s.list.at == "5" }, "a later page keeps the list's version")},
	{"later page", "last page", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.list.cont == "" }, "")},
	{"later page", "page failed", want{phase: phaseWait, then: phaseList, op: opWait, report: reportRoutine, wait: waitPage}, cond(func(s state) bool {
		return s.list.cont == "p2" && s.list.retries == 1 && s.health.failures == 0 && s.list.at == "5" && !s.list.filled
	}, "a failed later page is asked again, soon")},
	{"later page", "page expired", want{phase: phaseList, op: opList, report: reportRoutine}, cond(func(s state) bool { return s.list.unpaged && s.list.cont == "" }, "an expired token: one unpaginated List at once")},
	{"later page", "replace error", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return s.list.cont == "" }, "the sink's error is no page's: start over")},
	{"later page, retried 4 times", "page failed", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return s.list.cont == "" && s.list.retries == 0 && s.health.failures == 2 }, "retries exhausted: start over after a backoff")},
	{"later page, retried 4 times", "page", want{phase: phaseList, op: opList}, cond(func(s state) bool { return s.list.retries == 0 }, "")},
	{"later page, retried 4 times", "last page", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"later page, retried 4 times", "page expired", want{phase: phaseList, op: opList, report: reportRoutine}, cond(func(s state) bool { return s.list.unpaged }, "")},
	{"later page, retried 4 times", "replace error", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure}, nil},
	{"unpaged", "last page", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.unpaged }, "")},
	{"unpaged", "page", want{phase: phaseList, op: opList}, nil},
	{"unpaged", "page failed", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure}, cond(func(s state) bool { return !s.list.unpaged }, "")},
	{"unpaged", "page expired", want{phase: phaseWait, then: phaseList, op: opWait, report: reportRoutine}, nil},
	{"unpaged", "replace error", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure}, nil},

	// Streaming lists.
	{"streaming list", "unsupported", want{phase: phaseList, op: opList, report: reportFallback}, cond(func(s state) bool { return s.list.noWatchList }, "falls back to List for good")},
	{"streaming list", "bad object", want{phase: phaseList, op: opList, report: reportFailure}, cond(func(s state) bool {
		return s.list.listOnce && !s.list.noWatchList && s.health.failures == 2 && s.list.streamCuts == 0
	}, "an unreadable object: one List, at once")},
	{"streaming list", "cut half way", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, reset: true}, cond(func(s state) bool { return s.list.streamCuts == 1 }, "cut after sending some: again after the initial delay")},
	{"streaming list", "refused", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.list.streamCuts == 0 && s.health.failures == 2 }, "")},
	{"streaming list", "listed, cut at once", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, cond(func(s state) bool { return s.health.failures == 1 }, "listed: failures forgotten, then the watch's failure counted")},
	{"streaming list", "listed, watched, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"streaming list", "listed, watched, ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.list.filled }, "listed: later lists are not Initial")},
	{"streaming list", "listed, then skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, cond(func(s state) bool {
		return s.list.from == "" && !s.health.stalled && s.health.repairs == 1 && s.health.failures == 1
	}, "skipped changes are lost: relist at once")},
	{"streaming list", "listed, then ended without any", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, cond(func(s state) bool { return s.health.emptyWatches == 1 }, "")},
	{"streaming list", "expired before listing", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, cond(func(s state) bool { return s.health.stalled }, "")},
	{"streaming list", "ctx ended early", want{phase: phaseStreamList, op: opStreamList}, nil},
	{"streaming list, progress", "expired before listing", want{phase: phaseStreamList, op: opStreamList, report: reportRoutine}, cond(func(s state) bool { return !s.health.progress && !s.health.stalled }, "expired after progress: at once")},
	{"streaming list, progress", "unsupported", want{phase: phaseList, op: opList, report: reportFallback}, nil},
	{"streaming list, progress", "bad object", want{phase: phaseList, op: opList, report: reportFailure}, nil},
	{"streaming list, progress", "cut half way", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, reset: true}, nil},
	{"streaming list, progress", "refused", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, nil},
	{"streaming list, progress", "listed, cut at once", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, nil},
	{"streaming list, progress", "listed, watched, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"streaming list, progress", "listed, watched, ended", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"streaming list, progress", "listed, then skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, nil},
	{"streaming list, progress", "listed, then ended without any", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, nil},
	{"streaming list, progress", "ctx ended early", want{phase: phaseStreamList, op: opStreamList}, nil},
	{"streaming list, cut 4 times", "cut half way", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure, reset: false}, cond(func(s state) bool { return s.list.listOnce && s.list.streamCuts == 0 && s.health.failures == 4 }, "cut too often: the backoff grows, and a paged List gets the state next")},
	{"streaming list, cut 4 times", "listed, watched, ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.list.streamCuts == 0 }, "")},
	{"streaming list, cut 4 times", "unsupported", want{phase: phaseList, op: opList, report: reportFallback}, nil},
	{"streaming list, cut 4 times", "bad object", want{phase: phaseList, op: opList, report: reportFailure}, nil},
	{"streaming list, cut 4 times", "refused", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, nil},
	{"streaming list, cut 4 times", "listed, cut at once", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, nil},
	{"streaming list, cut 4 times", "listed, watched, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"streaming list, cut 4 times", "listed, then skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, nil},
	{"streaming list, cut 4 times", "listed, then ended without any", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, nil},
	{"streaming list, cut 4 times", "expired before listing", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, nil},
	{"streaming list, cut 4 times", "ctx ended early", want{phase: phaseStreamList, op: opStreamList}, nil},

	// Watches.
	{"watch", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool {
		return s.health.failures == 0 && s.health.progress && s.health.quick == quickRetries
	}, "a clean end: watch again at once")},
	{"watch", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.progress }, "open a while counts as progress")},
	{"watch", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return s.health.failures == 0 }, "a blip after progress: resume at once")},
	{"watch", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return s.health.failures == 3 }, "a failure without progress backs off, and the backoff grows")},
	{"watch", "expired", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, cond(func(s state) bool { return s.list.from == "" && s.health.stalled && s.health.failures == 2 }, "expired again before any progress: relist after a backoff")},
	{"watch", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, cond(func(s state) bool { return s.list.from == "" && s.health.stalled }, "out of order: relist, after a backoff")},
	{"watch", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, cond(func(s state) bool { return s.list.from == "" && s.health.failures == 3 && s.health.repairs == 1 }, "skipped changes are lost: relist, at once the first time")},
	{"watch", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, cond(func(s state) bool {
		return s.list.from == "" && s.health.failures == 1 && s.health.repairs == 1 && !s.health.stalled
	}, "")},
	{"watch", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.emptyWatches == 1 }, "")},
	{"watch", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.emptyWatches == 1 }, "")},
	{"watch, progress", "expired", want{phase: phaseStreamList, op: opStreamList, report: reportRoutine}, cond(func(s state) bool { return s.list.from == "" && !s.health.progress && !s.health.stalled }, "the first expiry after progress: relist at once")},
	{"watch, progress", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, progress", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, progress", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch, progress", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	{"watch, progress", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, nil},
	{"watch, progress", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, nil},
	{"watch, progress", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, nil},
	{"watch, progress", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	{"watch, progress", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	{"watch, stalled", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.health.stalled }, "progress ends the stall")},
	{"watch, stalled", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, stalled", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch, stalled", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.stalled }, "")},
	{"watch, stalled", "expired", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, nil},
	{"watch, stalled", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, nil},
	{"watch, stalled", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, nil},
	{"watch, stalled", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, nil},
	{"watch, stalled", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	{"watch, stalled", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	{"watch, 2 empty", "ended empty", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, cond(func(s state) bool {
		return s.health.emptyWatches == 0 && s.list.from == "" && s.health.stalled && s.health.failures == 3
	}, "watches that keep ending empty: relist from the latest")},
	{"watch, 2 empty", "stalled", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.emptyWatches == 0 && s.list.from == "" }, "")},
	{"watch, 2 empty", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.emptyWatches == 0 }, "a watch that delivers ends the count")},
	{"watch, 2 empty", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.emptyWatches == 0 }, "")},
	{"watch, 2 empty", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return s.health.emptyWatches == 0 }, "")},
	{"watch, 2 empty", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.emptyWatches == maxEmptyWatches-1 }, "an error is not an empty watch")},
	{"watch, 2 empty", "expired", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, nil},
	{"watch, 2 empty", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, nil},
	{"watch, 2 empty", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, nil},
	{"watch, 2 empty", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, cond(func(s state) bool { return s.health.emptyWatches == 0 }, "")},

	{"watch after a paged list", "expired", want{phase: phaseList, op: opList, report: reportRoutine}, cond(func(s state) bool { return s.list.unpaged && !s.list.paged && !s.health.stalled && s.list.from == "" }, "a paged list's version gone before its watch: one unpaged List, at once")},
	{"watch after a paged list", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.paged }, "")},
	{"watch after a paged list", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch after a paged list", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch after a paged list", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.list.paged }, "")},
	{"watch after a paged list", "out of order", want{phase: phaseWait, then: phaseList, op: opWait, report: reportRoutine, reset: true}, nil},
	{"watch after a paged list", "skipped", want{phase: phaseList, op: opList, report: reportFailure}, nil},
	{"watch after a paged list", "delivered, skipped", want{phase: phaseList, op: opList, report: reportFailure, reset: true}, nil},
	{"watch after a paged list", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	{"watch after a paged list", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},

	{"watch, 1 quick retry left", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, cond(func(s state) bool { return s.health.quick == 0 && s.health.failures == 4 }, "a failure soon after progress: retried at the initial delay")},
	{"watch, 1 quick retry left", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, nil},
	{"watch, 1 quick retry left", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, reset: true}, nil},
	{"watch, 1 quick retry left", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.quick == quickRetries }, "progress: quick retries again")},
	{"watch, 1 quick retry left", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, 1 quick retry left", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return s.health.quick == quickRetries }, "")},
	{"watch, 1 quick retry left", "expired", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, cond(func(s state) bool { return s.health.quick == 1 }, "")},
	{"watch, 1 quick retry left", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, nil},
	{"watch, 1 quick retry left", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, nil},
	{"watch, 1 quick retry left", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, nil},

	// A repair (a relist for skipped events) was needed since the last
	// watch that made progress without skipping.
	{"watch, repaired once", "delivered, skipped", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, reset: false, wait: waitBackoff}, cond(func(s state) bool { return s.health.repairs == 2 && s.health.stalled && s.list.from == "" }, "streams keep skipping after relists: relist after a backoff that grows, and that lists do not reset")},
	{"watch, repaired once", "skipped", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, reset: false, wait: waitBackoff}, cond(func(s state) bool { return s.health.repairs == 2 && s.health.stalled && s.health.failures == 2 }, "")},
	{"watch, repaired once", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.repairs == 0 }, "progress without skipping: the next repair is at once again")},
	{"watch, repaired once", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.repairs == 0 }, "")},
	{"watch, repaired once", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return s.health.repairs == 0 }, "")},
	{"watch, repaired once", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.repairs == 1 }, "a failure is no progress")},
	{"watch, repaired once", "expired", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, cond(func(s state) bool { return s.health.repairs == 1 }, "")},
	{"watch, repaired once", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, nil},
	{"watch, repaired once", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.repairs == 1 }, "")},
	{"watch, repaired once", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	// Streams that end right after delivering, and a first event out of
	// order.
	{"watch", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.shortStreams == 1 && s.health.failures == 0 }, "one short stream: resumed at once, as progress")},
	{"watch", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return s.health.shortStreams == 1 }, "")},
	{"watch", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool {
		return s.list.from == "" && s.health.stalled && s.health.failures == 3 && !s.health.progress
	}, "out of order at the first event: no progress, a failure, relist after a backoff that grows")},
	{"watch, progress", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, progress", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch, progress", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, nil},
	{"watch, stalled", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, stalled", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch, stalled", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, nil},
	{"watch, 2 empty", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, 2 empty", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch, 2 empty", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, nil},
	{"watch after a paged list", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch after a paged list", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch after a paged list", "out of order at once", want{phase: phaseWait, then: phaseList, op: opWait, report: reportFailure, wait: waitBackoff}, nil},
	{"watch, 1 quick retry left", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, 1 quick retry left", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch, 1 quick retry left", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, nil},
	{"watch, repaired once", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, nil},
	{"watch, repaired once", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, nil},
	{"watch, repaired once", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, nil},
	{"watch, 2 short", "ended short", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return s.health.shortStreams == maxShortStreams && s.health.failures == 1 }, "streams keep ending after an event: the backoff is not reset, and grows")},
	{"watch, 2 short", "cut short", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return s.health.failures == 1 }, "")},
	{"watch, 2 short", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.shortStreams == 0 }, "a stream that stayed open ends the run")},
	{"watch, 2 short", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return s.health.shortStreams == 0 }, "")},
	{"watch, 2 short", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return s.health.shortStreams == 0 }, "")},
	{"watch, 2 short", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.health.shortStreams == maxShortStreams-1 }, "")},
	{"watch, 2 short", "expired", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine}, nil},
	{"watch, 2 short", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, nil},
	{"watch, 2 short", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, nil},
	{"watch, 2 short", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, nil},
	{"watch, 2 short", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, nil},
	{"watch, 2 short", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	{"watch, 2 short", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, nil},
	// Waits.
	{"wait before list", "waited", want{phase: phaseList, op: opList}, nil},
	{"wait before watch", "waited", want{phase: phaseWatch, op: opWatch}, nil},
	{"wait before streaming list", "waited", want{phase: phaseStreamList, op: opStreamList}, nil},
	{"wait before a page, retried 1x", "waited", want{phase: phaseList, op: opList}, cond(func(s state) bool { return s.list.cont == "p2" && s.list.retries == 1 }, "the same page again")},
	// A watch from a restored snapshot's version: confirmed by a
	// productive watch, relisted at once if expired, and after
	// maxEmptyWatches failures of any kind (a server that lost its history
	// may not say "expired").
	{"restored watch", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.restored }, "a productive watch confirms the restored version")},
	{"restored watch", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch", "failed", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return s.list.restored && s.health.emptyWatches == 1 && s.health.failures == 1 }, "a failure of a restored watch counts towards a relist")},
	{"restored watch", "expired", want{phase: phaseStreamList, op: opStreamList, report: reportRoutine}, cond(func(s state) bool { return !s.list.restored && s.list.from == "" && !s.health.progress }, "an expired snapshot: relist at once")},
	{"restored watch", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, cond(func(s state) bool { return !s.list.restored && s.list.from == "" }, "")},
	{"restored watch", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, cond(func(s state) bool { return !s.list.restored && s.health.repairs == 1 }, "")},
	{"restored watch", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch", "ended empty", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.list.restored && s.health.emptyWatches == 1 }, "")},
	{"restored watch", "stalled", want{phase: phaseWait, then: phaseWatch, op: opWait, report: reportFailure}, cond(func(s state) bool { return s.list.restored && s.health.emptyWatches == 1 }, "")},
	{"restored watch, 2 failed", "ended", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.restored && s.health.emptyWatches == 0 && s.health.failures == 0 }, "")},
	{"restored watch, 2 failed", "ended quiet", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.restored && s.health.emptyWatches == 0 }, "")},
	{"restored watch, 2 failed", "delivered, cut", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch, 2 failed", "failed", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool {
		return !s.list.restored && s.list.from == "" && s.health.emptyWatches == 0 && s.health.stalled
	}, "a restored version refused three times: relist, from the latest")},
	{"restored watch, 2 failed", "expired", want{phase: phaseStreamList, op: opStreamList, report: reportRoutine}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch, 2 failed", "out of order", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportRoutine, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch, 2 failed", "skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch, 2 failed", "delivered, skipped", want{phase: phaseStreamList, op: opStreamList, report: reportFailure, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch, 2 failed", "ended empty", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, cond(func(s state) bool { return !s.list.restored && s.list.from == "" }, "")},
	{"restored watch, 2 failed", "stalled", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure}, cond(func(s state) bool { return !s.list.restored && s.list.from == "" }, "")},
	{"restored watch", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.restored && s.health.shortStreams == 1 }, "a short stream that delivered confirms the restored version")},
	{"restored watch", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return !s.list.restored && s.list.from == "" && s.health.failures == 1 }, "out of order at once: relist after a backoff")},
	{"restored watch, 2 failed", "ended short", want{phase: phaseWatch, op: opWatch, reset: true}, cond(func(s state) bool { return !s.list.restored && s.health.failures == 0 }, "")},
	{"restored watch, 2 failed", "cut short", want{phase: phaseWatch, op: opWatch, report: reportRoutine, reset: true}, cond(func(s state) bool { return !s.list.restored }, "")},
	{"restored watch, 2 failed", "out of order at once", want{phase: phaseWait, then: phaseStreamList, op: opWait, report: reportFailure, wait: waitBackoff}, cond(func(s state) bool { return !s.list.restored && s.list.from == "" }, "")},
}

// cond is a check of the next state: why says what the rule is.
func cond(ok func(state) bool, why string) []func(state) string {
	return []func(state) string{func(s state) string {
		if ok(s) {
			return ""
		}
		return fmt.Sprintf("next state %+v breaks the rule: %s", s, why)
	}}
}

func TestStep(t *testing.T) {
	for _, row := range stepTable {
		t.Run(row.state+"/"+row.outcome, func(t *testing.T) {
			s, ok := states[row.state]
			o, ok2 := outcomes[row.outcome]
			if !ok || !ok2 {
				t.Fatalf("no state %q or outcome %q", row.state, row.outcome)
			}
			next, a := step(s, o)
			w := row.want
			if next.phase != w.phase || (w.phase == phaseWait && next.then != w.then) {
				t.Errorf("next phase %v (then %v), want %v (then %v)", next.phase, next.then, w.phase, w.then)
			}
			if a.op != w.op || a.report != w.report || a.resetBackoff != w.reset || (w.op == opWait && a.wait != w.wait) {
				t.Errorf("action %+v, want op %v report %v reset %v wait %v", a, w.op, w.report, w.reset, w.wait)
			}
			for _, check := range row.fields {
				if msg := check(next); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// TestStepCoversEveryPair checks that the table has a row for every state
// and every outcome its phase's action can have.
func TestStepCoversEveryPair(t *testing.T) {
	rows := map[[2]string]bool{}
	for _, row := range stepTable {
		rows[[2]string{row.state, row.outcome}] = true
	}
	for name, s := range states {
		for _, o := range outcomesOf[s.phase] {
			if !rows[[2]string{name, o}] {
				t.Errorf("no row for state %q and outcome %q", name, o)
			}
		}
	}
}

// TestStepIsPure checks that step leaves the state it was given alone and
// answers the same twice.
func TestStepIsPure(t *testing.T) {
	for _, row := range stepTable {
		s := states[row.state]
		before := s
		n1, a1 := step(s, outcomes[row.outcome])
		n2, a2 := step(s, outcomes[row.outcome])
		if s != before || n1 != n2 || !reflect.DeepEqual(a1, a2) {
			t.Errorf("%s/%s: step is not pure", row.state, row.outcome)
		}
	}
}

// TestNewState checks the state Run starts in.
func TestNewState(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mode       WatchListMode
		resumeFrom string
		want       state
	}{
		{"streaming list", WatchListOn, "", state{phase: phaseStreamList, list: listCursor{from: "0"}}},
		{"list", WatchListOff, "", state{phase: phaseList, list: listCursor{from: "0", noWatchList: true}}},
		{"restored", WatchListOn, "9", state{phase: phaseWatch, list: listCursor{restored: true, filled: true}, health: sourceHealth{progress: true}}},
		{"restored, list only", WatchListOff, "9", state{phase: phaseWatch, list: listCursor{restored: true, filled: true, noWatchList: true}, health: sourceHealth{progress: true}}},
	} {
		if got := newState("0", tc.mode, tc.resumeFrom); got != tc.want {
			t.Errorf("%s: newState = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestListOptions checks the ListOptions of each page of a list.
func TestListOptions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		c        listCursor
		pageSize int64
		want     ListOptions
	}{
		{"first page", listCursor{from: "0"}, 100, ListOptions{ResourceVersion: "0", Limit: 100, Initial: true}},
		{"first page, source pages", listCursor{from: "0"}, 0, ListOptions{ResourceVersion: "0", Limit: 0, Initial: true}},
		{"relist", listCursor{filled: true}, 100, ListOptions{Limit: 100}},
		{"later page", listCursor{from: "0", cont: "p2", at: "5", filled: true}, 100, ListOptions{Limit: 100, Continue: "p2"}},
		{"unpaged", listCursor{from: "0", unpaged: true}, 100, ListOptions{Limit: NoLimit, Initial: true}},
		{"whole", listCursor{from: "0"}, -5, ListOptions{ResourceVersion: "0", Limit: NoLimit, Initial: true}},
	} {
		if got := tc.c.options(tc.pageSize); got != tc.want {
			t.Errorf("%s: options = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if v := (listCursor{at: "5"}).version("9"); v != "9" {
		t.Errorf("a first page's version: %q, want 9", v)
	}
	if v := (listCursor{cont: "p2", at: "5"}).version("9"); v != "5" {
		t.Errorf("a later page's version: %q, want the first page's, 5", v)
	}
}

// TestPageRetryDelay checks the wait before a failed page is asked again.
func TestPageRetryDelay(t *testing.T) {
	for retry, want := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		if d := pageRetryDelay(retry, 0); d != want {
			t.Errorf("retry %d: %s, want %s", retry, d, want)
		}
		if d := pageRetryDelay(retry, 7*time.Millisecond); d != want+7*time.Millisecond {
			t.Errorf("retry %d with jitter: %s", retry, d)
		}
	}
}

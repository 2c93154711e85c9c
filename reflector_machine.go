package informer

import (
	"errors"
	"fmt"
	"time"
)

// The reflector's recovery policy, as a state machine: the state between two
// calls to the Source (where it is: phase and listCursor; how the Source
// has answered: sourceHealth), what to do next, and the one function that
// decides, step. step does no I/O, reads no clock and starts nothing: the
// loop in Run performs its actions (reflector.go), what came of them is an
// outcome (reflector_outcome.go), and reflector_machine_test.go proves
// every rule with a table over (state, outcome).

// phase is what the reflector does next.
type phase uint8

const (
	// phaseList: one page of a List (a relist), into a replacement.
	phaseList phase = iota
	// phaseStreamList: a streaming list (a watch that sends the state
	// first), which then goes on as a watch.
	phaseStreamList
	// phaseWatch: a watch from the last version seen.
	phaseWatch
	// phaseWait: waiting out a delay, then phase `then`.
	phaseWait
)

var phaseNames = [...]string{"list", "streaming list", "watch", "wait"}

func (p phase) String() string { return phaseNames[p] }

// state is all the reflector remembers between two calls to the Source:
// where it is (phase, and the list cursor) and how the Source has
// answered lately (health), which paces the backoff.
type state struct {
	phase  phase
	then   phase // phaseWait: the phase after the wait
	list   listCursor
	health sourceHealth
}

// listCursor is where the reflector is in its sync: the list under way,
// and how the next one is made.
type listCursor struct {
	from    string // the version the next list asks for: "" the latest
	cont    string // the continue token of the next page; "" the first page
	at      string // the version of the list under way (its first page's); stale between lists
	retries int    // times the current page was asked again
	unpaged bool   // the next list asks for everything in one response
	paged   bool   // the last list came in several pages, and no watch delivered since
	filled  bool   // a list completed, or the first failed: later lists are not Initial

	noWatchList bool // list only: streaming lists are off, or the source refused one
	listOnce    bool // the next sync is a List: a streaming list had an unreadable event, or was cut too often
	streamCuts  int  // streaming lists cut in a row after sending part of the state

	restored bool // watching from a restored snapshot's version, not yet confirmed by a productive watch or a list
}

// sourceHealth is how the Source has answered lately: the counters that
// decide how long the reflector waits, and when it lists again.
type sourceHealth struct {
	failures     int  // consecutive failures without progress
	stalled      bool // relisting after expiries without progress: lists do not reset the backoff
	progress     bool // a watch delivered something since the last expiry
	emptyWatches int  // consecutive watches that ended without delivering anything
	quick        int  // failures still retried at the initial delay since the last productive watch
	repairs      int  // relists for skipped events since a watch made progress without any
	shortStreams int  // watches in a row that delivered and ended within productiveAfter
}

// newState is the state Run starts in: a streaming list or a List from
// listRV, or, when resumeFrom is set, a watch from a restored snapshot's
// version (newRestoredState). mode is the resolved WatchList mode
// (watchListMode).
func newState(listRV string, mode WatchListMode, resumeFrom string) state {
	noWatchList := mode != WatchListOn
	if resumeFrom != "" {
		return newRestoredState(noWatchList)
	}
	s := state{list: listCursor{from: listRV, noWatchList: noWatchList}}
	s.phase = s.sync()
	return s
}

// newRestoredState is the state a reflector starts in over a sink filled
// from a snapshot: a watch from the snapshot's version, which if it has
// expired is relisted at once (progress), and which, when its watches keep
// failing without delivering (a server that lost its history may not say
// "expired", but "too large" or nothing), gives way to a list like empty
// watches do. The sink is full: a relist is no first list.
func newRestoredState(noWatchList bool) state {
	return state{phase: phaseWatch,
		list:   listCursor{noWatchList: noWatchList, restored: true, filled: true},
		health: sourceHealth{progress: true}}
}

// watchListMode resolves WatchListAuto to WatchListOn or WatchListOff:
// on for a source that prefers streaming lists. Other modes than On are
// Off.
func watchListMode[T Object](mode WatchListMode, src Source[T]) WatchListMode {
	switch mode {
	case WatchListOn:
		return WatchListOn
	case WatchListAuto:
		if p, ok := src.(WatchListPreferrer); ok && p.PrefersWatchList() {
			return WatchListOn
		}
	}
	return WatchListOff
}

// sync is the phase that (re)lists: a streaming list, unless they are off
// or the last one met an object it could not read.
func (s state) sync() phase {
	if s.list.noWatchList || s.list.listOnce {
		return phaseList
	}
	return phaseStreamList
}

// options are the ListOptions of the next page; pageSize is
// ReflectorOptions.PageSize.
func (c listCursor) options(pageSize int64) ListOptions {
	switch {
	case c.cont != "":
		return ListOptions{Limit: max(pageSize, NoLimit), Continue: c.cont, Initial: !c.filled}
	case c.unpaged:
		return ListOptions{Limit: NoLimit, Initial: !c.filled}
	}
	return ListOptions{ResourceVersion: c.from, Limit: max(pageSize, NoLimit), Initial: !c.filled}
}

// version is the version of the list under way, given its page's
// (pageRV): a later page's is the first's.
func (c listCursor) version(pageRV string) string {
	if c.cont != "" {
		return c.at
	}
	return pageRV
}

// op is the call an action makes.
type op uint8

const (
	opList op = iota
	opStreamList
	opWatch
	opWait
)

// waitKind is how long an opWait waits.
type waitKind uint8

const (
	waitBackoff waitKind = iota // the backoff's next delay
	waitPage                    // a short delay before asking for a failed page again
)

// level is how the outcome's error is reported before the action.
type level uint8

const (
	reportNone     level = iota
	reportRoutine        // Info: the reflector recovers at once, nothing is wrong
	reportFailure        // Warn, summarised over a streak of failures
	reportFallback       // Info: streaming lists are off for good
)

// action is what the loop does next: report the last outcome's error,
// reset the backoff if asked, and then make the call.
type action struct {
	op     op
	report level
	// resetBackoff forgets earlier failures before the call: the next
	// backoff delay is the initial one.
	resetBackoff bool
	wait         waitKind
	// retry is, for waitPage, how many times the page was asked again
	// before this wait.
	retry int
	// err, when set, is reported instead of the outcome's error.
	err error
}

// pageRetries is how many times a list asks again for a page after the
// first that failed, before it gives up and starts over after a backoff.
const pageRetries = 4

// pageRetryBase is the wait before a failed page is asked again the first
// time (pageRetryDelay).
const pageRetryBase = 50 * time.Millisecond

// pageRetryDelay is the wait before a failed page is asked again after
// retry earlier retries: pageRetryBase doubled per retry, plus jitter
// (drawn in [0, pageRetryBase) by the caller).
func pageRetryDelay(retry int, jitter time.Duration) time.Duration {
	return pageRetryBase<<retry + jitter
}

// productiveAfter is how long a watch must stay open to count as
// productive without delivering an event: a failure after it is resumed at
// once instead of backing off.
const productiveAfter = time.Second

// quickRetries is how many failures after a productive watch are retried
// at the initial delay before the backoff grows.
const quickRetries = 4

// maxEmptyWatches is how many watches in a row may end without delivering
// anything (at once and cleanly, or stalled) before the reflector lists
// again: a source that keeps ending its streams may be telling, in a way
// the reflector cannot read, that the version it resumes from is gone.
const maxEmptyWatches = 3

// errEmptyWatch reports a watch that ended without delivering anything.
var errEmptyWatch = errors.New("watch ended at once without an event")

// maxShortStreams is how many watches in a row may deliver and end within
// productiveAfter of their start, each resumed at once, before the
// reflector waits a backoff before the next: a server that ends every
// stream right after an event (a close-after-send SSE endpoint) would
// otherwise be reconnected to at once, for ever.
const maxShortStreams = 3

// errShortStreams reports watches that keep ending right after delivering.
var errShortStreams = &SourceError{Op: "watch", Err: fmt.Errorf("%d watches in a row ended within %s of their start: reconnecting after a backoff", maxShortStreams, productiveAfter)}

// step is the reflector's policy: given the state and what came of its
// last action, the next state and action.
func step(s state, o outcome) (state, action) {
	switch s.phase {
	case phaseList:
		return s.afterList(o)
	case phaseStreamList:
		return s.afterStreamList(o)
	case phaseWatch:
		return s.afterWatch(o)
	default:
		return s.to(s.then, action{})
	}
}

// to moves s to p and returns the action that performs p.
func (s state) to(p phase, a action) (state, action) {
	s.phase = p
	switch p {
	case phaseList:
		a.op = opList
	case phaseStreamList:
		a.op = opStreamList
	case phaseWatch:
		a.op = opWatch
	}
	return s, a
}

// waitThen moves s to a wait of kind w, after which comes p.
func (s state) waitThen(p phase, w waitKind, a action) (state, action) {
	s.phase, s.then = phaseWait, p
	a.op, a.wait = opWait, w
	return s, a
}

// afterList follows one page of a List.
func (s state) afterList(o outcome) (state, action) {
	if o.err == nil && o.cont != "" {
		// The next page.
		s.list.at = s.list.version(o.rv)
		s.list.cont, s.list.retries, s.list.paged = o.cont, 0, true
		return s.to(phaseList, action{})
	}
	if o.err == nil {
		// The replacement is complete. The backoff starts over, unless
		// the lists follow expiries that made no progress: then only a
		// watch that delivers resets it.
		s.list.cont, s.list.retries, s.list.unpaged, s.list.listOnce = "", 0, false, false
		s.list.filled, s.list.restored = true, false
		s.health.failures, s.health.emptyWatches = 0, 0
		return s.to(phaseWatch, action{resetBackoff: !s.health.stalled})
	}
	if s.list.cont == "" && !o.sinkErr {
		// A first list in one response that fails (a collection too
		// large to send within a timeout fails that way every time)
		// is not asked for again: later lists page, as relists do.
		s.list.filled = true
	}
	expired := errors.Is(o.err, ErrExpired)
	page := s.list.cont != "" && !o.sinkErr // a later page failed, not the sink
	switch {
	case page && !expired && s.list.retries < pageRetries:
		// A later page failed (a cut, a truncated body, a 500): its
		// token is still good, so ask for that page again, soon, rather
		// than start over, which under a fault rate per page a long list
		// might never get through.
		s.list.retries++
		return s.waitThen(phaseList, waitPage, action{report: reportRoutine, retry: s.list.retries - 1})
	case page && expired:
		// The snapshot the pages came from was compacted away: paging
		// again could expire again, for ever, under frequent compaction.
		// List everything in one response, at once: it cannot expire
		// half way.
		s.list.cont, s.list.retries, s.list.unpaged = "", 0, true
		return s.to(phaseList, action{report: reportRoutine})
	}
	s.list.cont, s.list.retries, s.list.unpaged, s.list.listOnce = "", 0, false, false
	return s.failed(o)
}

// afterStreamList follows a streaming list, and the watch it went on as.
func (s state) afterStreamList(o outcome) (state, action) {
	var a action
	switch {
	case o.listed:
		s.list.streamCuts = 0
	case o.err != nil && o.initialSeen && s.list.streamCuts < pageRetries && !errors.Is(o.err, ErrBadEvent):
		// Cut after sending part of the state: start over after the
		// initial delay, not a growing one, a few times (as a paged list
		// asks a failed page again). Not for an object it could not
		// read: that is no accident of the connection, and will be there
		// again.
		s.list.streamCuts++
		a.resetBackoff = true
	case o.err != nil && o.initialSeen && !errors.Is(o.err, ErrBadEvent):
		// Cut again and again: the state may not come through this
		// connection in one stream. The next sync is a List, which gets
		// it page by page, each page asked again when it fails; the
		// syncs after it stream again.
		s.list.streamCuts, s.list.listOnce = 0, true
	}
	if o.delivered || o.productive {
		s.health.progress = true
	}
	switch {
	case errors.Is(o.err, ErrWatchListUnsupported):
		s.list.noWatchList = true
		a.report = reportFallback
		return s.to(phaseList, a)
	case !o.listed && errors.Is(o.err, ErrBadEvent):
		// An event of the list it could not read: an object of the
		// list, or a garbled line. List instead, at once: a List reads
		// every object or fails saying why, and a stream's stray line
		// does not hold the sync back (retrying the stream could starve).
		s.list.listOnce = true
		s.health.failures++
		a.report = reportFailure
		return s.to(phaseList, a)
	case o.listed:
		// The replacement is in; the stream went on as a watch, and
		// what follows is the watch's outcome.
		s.list.filled = true
		s.health.failures, s.health.emptyWatches = 0, 0
		a.resetBackoff = true
		s.phase = phaseWatch
		return s.afterWatchWith(o, a)
	}
	s.phase = phaseStreamList
	return s.afterWatchWith(o, a)
}

// afterWatch follows a watch.
func (s state) afterWatch(o outcome) (state, action) {
	var a action
	if s.list.restored && errors.Is(o.err, ErrExpired) {
		// The source refused the restored snapshot's version.
		a.err = restoredExpired(o.err)
	}
	if o.delivered || o.productive {
		s.health.progress = true
	}
	return s.afterWatchWith(o, a)
}

// afterWatchWith applies the rules shared by a watch and a streaming list:
// progress resets the backoff; a clean end watches again at once.
func (s state) afterWatchWith(o outcome, a action) (state, action) {
	if o.short {
		s.health.shortStreams++
	} else if o.productive {
		s.health.shortStreams = 0
	}
	if o.short && s.health.shortStreams >= maxShortStreams && !needsList(o.err) {
		// Streams keep ending right after they deliver: the events they
		// delivered no longer reset the backoff, which bounds the rate of
		// reconnections, and each one counts as a failure (Health and
		// LastError say so) until a stream stays open.
		s.health.failures++
		a.report, a.err, a.resetBackoff = reportFailure, errShortStreams, false
		return s.waitThen(phaseWatch, waitBackoff, a)
	}
	if o.productive {
		s.health.failures, s.health.stalled, s.health.emptyWatches, s.list.paged, s.list.restored = 0, false, 0, false, false
		s.health.quick = quickRetries
		a.resetBackoff = true
		if !errors.Is(o.err, ErrSkippedEvents) {
			s.health.repairs = 0
		}
	}
	if o.err == nil {
		// A clean end: watch again at once (a streaming list that did
		// not complete starts over).
		return s.to(s.phase, a)
	}
	return s.failedWith(o, a)
}

// needsList reports whether err calls for a list: skipped events, an
// expired version, an event out of order.
func needsList(err error) bool {
	return errors.Is(err, ErrSkippedEvents) || errors.Is(err, ErrExpired) || errors.Is(err, ErrOutOfOrder)
}

// failed applies the rules for a failed call.
func (s state) failed(o outcome) (state, action) { return s.failedWith(o, action{}) }

func (s state) failedWith(o outcome, a action) (state, action) {
	err := o.err
	switch {
	case errors.Is(err, ErrSkippedEvents):
		return s.repair(a)
	case errors.Is(err, ErrOutOfOrder) && !o.productive:
		// Out of order at once: no progress, and a failure.
		s.health.failures++
		s, a = s.relist(err, a)
		a.report = reportFailure
		return s, a
	case errors.Is(err, ErrExpired), errors.Is(err, ErrOutOfOrder):
		return s.relist(err, a)
	case o.productive && s.phase == phaseWatch:
		// A watch that delivered and then broke (a reset, a load
		// balancer's cut): resume at once.
		a.report = reportRoutine
		return s.to(phaseWatch, a)
	}
	s.health.failures++
	a.report = reportFailure
	if s.health.quick > 0 {
		// A blip after a healthy run (a burst of 500s, a server
		// restarting): the first few failures are retried at the
		// initial delay, as a failed page is asked again, so that the
		// cache is not left a growing delay behind once it is over;
		// from then on the backoff grows.
		s.health.quick--
		a.resetBackoff = true
	}
	retry := s.phase
	if retry != phaseWatch {
		retry = s.sync()
	}
	if s.phase == phaseWatch && (s.list.restored || errors.Is(err, errEmptyWatch) || errors.Is(err, errStalled)) {
		// A restored version whose watches keep failing counts as
		// empty watches do: the server may have lost it without saying.
		s.health.emptyWatches++
		if s.health.emptyWatches >= maxEmptyWatches {
			s.list.restored = false
			// Watches keep ending without delivering anything: the
			// version they resume from may be gone in a way the source
			// does not say. List again, from the latest state.
			s.health.emptyWatches, s.list.from, s.health.stalled = 0, "", true
			retry = s.sync()
		}
	}
	return s.waitThen(retry, waitBackoff, a)
}

// relist follows an error that calls for a list from the most recent
// state (an older one may be gone): an expired version, an event out of
// order. At once the first time after progress; if it
// expires again before anything was read, back off like any error, and the
// lists that follow do not reset the backoff until a watch makes progress.
func (s state) relist(err error, a action) (state, action) {
	expired := errors.Is(err, ErrExpired)
	s.list.from, s.list.restored = "", false
	a.report = reportRoutine
	if expired && s.health.progress {
		s.health.progress = false
		return s.to(s.sync(), a)
	}
	if expired && s.list.paged {
		// The version of a list read in pages was gone before its watch
		// began: the pages took too long (a failed page asked again, a
		// slow server), and a list like it would age as much. List
		// everything in one response, at once, whose version is as
		// fresh as a list's can be. (Backing off instead, growing with
		// each such list, left a cache seconds behind after bursts of
		// errors on later pages.)
		s.list.paged, s.list.unpaged = false, true
		return s.to(phaseList, a)
	}
	s.health.stalled = true
	return s.waitThen(s.sync(), waitBackoff, a)
}

// repair follows a stream that skipped unreadable events, ended by the
// first of them (repairDelay later), by too many, or by anything else:
// each may have carried a change the cache now lacks, which only a list
// brings back. At once, after a stream that made progress without
// skipping; when the streams after those relists keep skipping (a server
// that garbles some of its events for good), after a backoff that grows
// and that lists do not reset, so that a large cache is not listed again
// every second.
func (s state) repair(a action) (state, action) {
	s.list.from, s.list.restored = "", false
	s.health.failures++
	a.report = reportFailure
	s.health.repairs++
	if s.health.repairs == 1 {
		return s.to(s.sync(), a)
	}
	s.health.stalled = true
	a.resetBackoff = false
	return s.waitThen(s.sync(), waitBackoff, a)
}

package informer

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Reflector lists a Source and then watches it, writing what it reads into a
// Sink. Its recovery policy is a state machine (see the package doc's
// diagram): a List, page by page, or a streaming list, then watches from
// the last resourceVersion seen; a watch that ends is resumed; an expired
// version, an event out of order, or a stream that keeps failing to
// deliver leads to a new list; errors back off with a capped, jittered
// exponential delay that resets after a healthy run.
type Reflector[T Object] struct {
	src  Source[T]
	sink Sink[T]
	opts ReflectorOptions
	log  *slog.Logger

	mu     sync.Mutex
	lastRV string
	lists  uint64 // completed lists; guarded by mu
	health health // guarded by mu

	onProgress func()       // the sink's Progress, if it has one
	order      versionOrder // the Source's (VersionComparer), or nil
	lastErr    lastError
	skips      skippedEvents // since the last list
	reports    reports       // what the Source reported (Report)
	activity   atomic.Int64  // unix nanoseconds of the last event or heartbeat

	ptr         bool      // T is a pointer type (pointerType)
	lastWarn    time.Time // when a failure was last logged at Warn
	badRun      int       // unreadable events in a row, for their summary
	lastBadWarn time.Time // when an unreadable event was last logged at Warn
	resume      resumer   // warm restarts: see snapshot_reflector.go
}

// NewReflector returns a Reflector that keeps sink in step with src. It
// starts nothing: Run does.
func NewReflector[T Object](src Source[T], sink Sink[T], opts ReflectorOptions) *Reflector[T] {
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	r := &Reflector[T]{src: src, sink: sink, opts: opts, log: opts.Logger, order: newVersionOrder(src), ptr: pointerType[T]()}
	if r.log == nil {
		r.log = slog.Default()
	}
	if opts.Name != "" {
		r.log = r.log.With("reflector", opts.Name)
	}
	if p, ok := sink.(interface{ Progress() }); ok {
		r.onProgress = p.Progress
	}
	if c, ok := sink.(interface{ Confirmed() }); ok {
		r.resume.onConfirm = c.Confirmed
	}
	if l, ok := sink.(interface{ ListVersion(string) }); ok {
		r.resume.onList = l.ListVersion
	}
	r.resume.from = opts.ResumeFrom
	r.opts.WatchList = watchListMode(opts.WatchList, src)
	return r
}

// LastSyncResourceVersion returns the resourceVersion of the last list or
// event the reflector wrote into its sink, or "" before the first list.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

// readProgress returns LastSyncResourceVersion and how many lists had
// completed when it was read.
func (r *Reflector[T]) readProgress() (string, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV, r.lists
}

func (r *Reflector[T]) setLastRV(rv string) {
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
	if r.onProgress != nil {
		r.onProgress()
	}
}

// streamBatch is how many objects of a streaming list's initial events
// go to the sink at once: PageSize, or 500.
func (r *Reflector[T]) streamBatch() int {
	if r.opts.PageSize > 0 {
		return int(min(r.opts.PageSize, 1<<20))
	}
	return 500
}

// Run lists and watches until ctx ends, and then returns ctx's cause.
//
// Reconnecting: a watch that made progress (delivered an event, or stayed
// open for a while) and then ended, cleanly or with an error, is resumed at
// once from the last resourceVersion. Only failures that made no progress
// back off, and the backoff starts over after a successful list and after
// every productive watch, so a blip costs a reconnect, not seconds of
// staleness, while a server that is down is retried ever less often.
//
// Run is a loop over the reflector's state machine: it performs an action
// (a page of a List, a streaming list, a watch, a wait), hands what came of
// it to the policy (step), and performs the action the policy returns.
func (r *Reflector[T]) Run(ctx context.Context) error {
	b := newBackoff(r.opts.Backoff)
	s := newState(r.opts.ListResourceVersion, r.opts.WatchList, r.resume.from)
	if r.resume.from != "" {
		r.startResumed()
	}
	_, a := s.to(s.phase, action{})
	var o outcome
	m := metricsStarts{on: r.opts.Metrics.List != nil || r.opts.Metrics.WatchRestart != nil, first: r.resume.from == ""}
	for ctx.Err() == nil {
		if a.resetBackoff {
			b.reset()
		}
		err := o.err
		if a.err != nil {
			err = a.err
		}
		r.reportOutcome(a.report, err, s.health.failures)
		if m.on {
			m.before(&r.opts.Metrics, s, a)
		}
		o = r.perform(ctx, s, a, b)
		if ctx.Err() != nil {
			break
		}
		if m.on && a.op != opWait {
			m.prev, m.why = a.op, o.err
		}
		s, a = step(s, o)
	}
	r.setHealth(StateStopped, time.Time{}, s.health.failures)
	return context.Cause(ctx)
}

// perform does what a tells, in state s, and says what came of it.
func (r *Reflector[T]) perform(ctx context.Context, s state, a action, b *backoff) outcome {
	switch a.op {
	case opList:
		r.setHealth(StateListing, time.Time{}, s.health.failures)
		return r.listPage(ctx, s)
	case opStreamList:
		r.setHealth(StateListing, time.Time{}, s.health.failures)
		return r.stream(ctx, true)
	case opWatch:
		r.setHealth(StateWatching, time.Time{}, s.health.failures)
		return r.stream(ctx, false)
	}
	var d time.Duration
	if a.wait == waitPage {
		d = pageRetryDelay(a.retry, rand.N(pageRetryBase))
	} else {
		d = b.delay(time.Now())
	}
	r.setHealth(StateBackingOff, time.Now().Add(d), s.health.failures)
	sleep(ctx, d)
	return outcome{}
}

// sleep waits for d or ctx's end, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// listPage reads one page of a List: the first starts a replacement, the
// last ends it.
func (r *Reflector[T]) listPage(ctx context.Context, s state) outcome {
	c := s.list
	if c.cont == "" {
		r.sink.BeginReplace()
	}
	page, err := r.src.List(r.withReports(ctx, "list", c.from), c.options(r.opts.PageSize))
	if err != nil {
		return outcome{err: sourceError("list", c.from, err)}
	}
	if c.cont == "" {
		r.listVersion(page.ResourceVersion)
	}
	if f := r.opts.Metrics.ListItems; f != nil {
		f(len(page.Items))
	}
	if err := r.sink.ReplaceItems(page.Items); err != nil {
		r.report(err) // bad items are skipped; the rest is in
	}
	if page.Continue != "" {
		return outcome{cont: page.Continue, rv: page.ResourceVersion}
	}
	if err := r.sink.EndReplace(); err != nil {
		return outcome{err: err, sinkErr: true}
	}
	r.setLastRV(c.version(page.ResourceVersion))
	r.listed()
	return outcome{}
}

// reportOutcome reports an outcome's error at the level the policy chose.
func (r *Reflector[T]) reportOutcome(l level, err error, failures int) {
	if err == nil {
		return
	}
	switch l {
	case reportRoutine:
		r.reportRoutine(err)
	case reportFallback:
		r.log.Info("streaming list not supported by the source; falling back to list", "err", err)
	case reportFailure:
		r.reportFailure(err, failures)
	}
}

// reportFailure logs and hands on a failure of the source. One that keeps
// failing (a server down for a while) is logged at Warn on its 1st, 2nd,
// 4th, 8th... consecutive failure and at least once a minute, with the
// count, and at Debug in between; OnError gets every one.
func (r *Reflector[T]) reportFailure(err error, failures int) {
	r.lastErr.set(err)
	now := time.Now()
	if failures&(failures-1) != 0 && now.Sub(r.lastWarn) < time.Minute {
		r.log.Debug("informer reflector", "err", err, "failures", failures)
	} else {
		r.log.Warn("informer reflector", "err", err, "failures", failures)
		r.lastWarn = now
	}
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
}

// report logs and hands on an error about an object: one the sink
// rejected, an event it could not use.
func (r *Reflector[T]) report(err error) {
	r.log.Warn("informer reflector", "err", err)
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
}

// reportBadEvent reports an event the source could not read. A run of
// them is summarised like a streak of failures: at Warn on the 1st, 2nd,
// 4th, 8th... in a row and at least once a minute, with the count, at
// Debug in between.
func (r *Reflector[T]) reportBadEvent(err error) {
	r.badRun++
	now := time.Now()
	if r.badRun&(r.badRun-1) != 0 && now.Sub(r.lastBadWarn) < time.Minute {
		r.log.Debug("informer reflector", "err", err, "unreadable", r.badRun)
	} else {
		r.log.Warn("informer reflector", "err", err, "unreadable", r.badRun)
		r.lastBadWarn = now
	}
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
}

// reportRoutine reports an error that the reflector recovers from by
// itself at once (an expired resourceVersion and its relist, a productive
// watch cut and resumed): at Info level, since nothing is wrong.
func (r *Reflector[T]) reportRoutine(err error) {
	r.lastErr.set(err)
	r.log.Info("informer reflector: recovering", "err", err)
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
}

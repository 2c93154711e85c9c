package informer

import (
	"context"
	"log/slog"
	"math/rand/v2"
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
	// fifo is the sink when it is a *DeltaFIFO, or the informer's queue
	// when the informer's sink would only pass changes on to it (no
	// Transform): a watch's changes go to it without a call through Sink.
	fifo  *DeltaFIFO[T]
	opts  ReflectorOptions
	order versionOrder // the Source's (VersionComparer), or nil
	ptr   bool         // T is a pointer type (pointerType)

	pub    published // what readers see: the version, lists, Health's state
	rep    reporter  // what went wrong: logs, OnError, LastError, skipped events
	resume resumer   // warm restarts: see snapshot_reflector.go
}

// NewReflector returns a Reflector that keeps sink in step with src. It
// starts nothing: Run does.
func NewReflector[T Object](src Source[T], sink Sink[T], opts ReflectorOptions) *Reflector[T] {
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	r := &Reflector[T]{src: src, sink: sink, opts: opts, order: newVersionOrder(src), ptr: pointerType[T]()}
	r.rep.log, r.rep.onError = opts.Logger, opts.OnError
	if r.rep.log == nil {
		r.rep.log = slog.Default()
	}
	if opts.Name != "" {
		r.rep.log = r.rep.log.With("reflector", opts.Name)
	}
	r.fifo, _ = sink.(*DeltaFIFO[T])
	if p, ok := sink.(interface{ Progress() }); ok {
		r.pub.onProgress = p.Progress
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
	rv, _ := r.pub.progress()
	return rv
}

// readProgress returns LastSyncResourceVersion and how many lists had
// completed when it was read.
func (r *Reflector[T]) readProgress() (string, uint64) { return r.pub.progress() }

func (r *Reflector[T]) setLastRV(rv string) { r.pub.setLastRV(rv) }

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
		r.rep.outcome(a.report, err, s.health.failures)
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
		r.rep.object(err) // bad items are skipped; the rest is in
	}
	if page.Continue != "" {
		return outcome{cont: page.Continue, rv: page.ResourceVersion}
	}
	// The list's errors are forgotten before the sink ends the
	// replacement, after which the cache may be synced: a program that
	// waited for the sync must not find them in LastError.
	r.rep.lastErr.clearAfterList()
	if err := r.sink.EndReplace(); err != nil {
		return outcome{err: err, sinkErr: true}
	}
	r.listed(c.version(page.ResourceVersion))
	return outcome{}
}

package informer

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"
)

// Report hands err, a problem that a Source found and worked around
// without failing the call it is serving, to the reflector that made the
// call with ctx (List's, or Watch's for what its Watcher's Next finds):
// the reflector logs it at Warn and passes it to OnError, wrapped in a
// *SourceError, and an err matching ErrObjectMutated (source/kube's
// sharing guard: a value that cached objects share was found written
// into) is counted in Health.Mutations and kept as Health.LastMutation.
// It reports whether a reflector took it; a Source called by other code
// should log err itself. Call it from within the call that ctx was given
// to (List, or the Watcher's Next), never later.
func Report(ctx context.Context, err error) bool {
	f, _ := ctx.Value(reportKey{}).(func(error))
	if f == nil || err == nil {
		return false
	}
	f(err)
	return true
}

type reportKey struct{}

// reports is what a reflector keeps of the errors Report handed it.
type reports struct {
	mutations atomic.Int64
	last      atomic.Pointer[SourceError]
}

// withReports returns ctx for a Source call of op from version rv, whose
// Report calls reach r.
func (r *Reflector[T]) withReports(ctx context.Context, op, rv string) context.Context {
	return context.WithValue(ctx, reportKey{}, func(err error) {
		se := &SourceError{Op: op, ResourceVersion: rv, Err: err}
		if errors.Is(err, ErrObjectMutated) {
			r.rep.reports.last.Store(se)
			r.rep.reports.mutations.Add(1)
		}
		r.rep.object(se)
	})
}

// reporter is how a reflector tells what went wrong: it logs, calls
// OnError, and keeps what Health and LastError read (atomics). Its
// counters belong to Run's goroutine.
type reporter struct {
	log     *slog.Logger
	onError func(error) // ReflectorOptions.OnError, or nil

	lastErr lastError
	skips   skippedEvents // since the last list
	reports reports       // what the Source reported (Report)

	lastWarn    time.Time // when a failure was last logged at Warn
	badRun      int       // unreadable events in a row, for their summary
	lastBadWarn time.Time // when an unreadable event was last logged at Warn
}

// outcome reports an outcome's error at the level the policy chose.
func (p *reporter) outcome(l level, err error, failures int) {
	if err == nil {
		return
	}
	switch l {
	case reportRoutine:
		p.routine(err)
	case reportFallback:
		p.log.Info("streaming list not supported by the source; falling back to list", "err", err)
	case reportFailure:
		p.failure(err, failures)
	}
}

// failure logs and hands on a failure of the source. One that keeps
// failing (a server down for a while) is logged at Warn on its 1st, 2nd,
// 4th, 8th... consecutive failure and at least once a minute, with the
// count, and at Debug in between; OnError gets every one.
func (p *reporter) failure(err error, failures int) {
	p.lastErr.set(err)
	now := time.Now()
	if failures&(failures-1) != 0 && now.Sub(p.lastWarn) < time.Minute {
		p.log.Debug("informer reflector", "err", err, "failures", failures)
	} else {
		p.log.Warn("informer reflector", "err", err, "failures", failures)
		p.lastWarn = now
	}
	if p.onError != nil {
		p.onError(err)
	}
}

// object logs and hands on an error about an object: one the sink
// rejected, an event it could not use.
func (p *reporter) object(err error) {
	p.log.Warn("informer reflector", "err", err)
	if p.onError != nil {
		p.onError(err)
	}
}

// badEvent reports an event the source could not read. A run of them is
// summarised like a streak of failures: at Warn on the 1st, 2nd, 4th,
// 8th... in a row and at least once a minute, with the count, at Debug in
// between.
func (p *reporter) badEvent(err error) {
	p.badRun++
	now := time.Now()
	if p.badRun&(p.badRun-1) != 0 && now.Sub(p.lastBadWarn) < time.Minute {
		p.log.Debug("informer reflector", "err", err, "unreadable", p.badRun)
	} else {
		p.log.Warn("informer reflector", "err", err, "unreadable", p.badRun)
		p.lastBadWarn = now
	}
	if p.onError != nil {
		p.onError(err)
	}
}

// routine reports an error that the reflector recovers from by itself at
// once (an expired resourceVersion and its relist, a productive watch cut
// and resumed): at Info level, since nothing is wrong.
func (p *reporter) routine(err error) {
	p.lastErr.set(err)
	p.log.Info("informer reflector: recovering", "err", err)
	if p.onError != nil {
		p.onError(err)
	}
}

// listed notes a list that completed: skipped events are repaired, and
// errors other than a watch's are forgotten.
func (p *reporter) listed() {
	p.lastErr.clearAfterList()
	p.skips.repaired()
}

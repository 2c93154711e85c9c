package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/informer-go/informer/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// jitter is the largest fraction of RetryPeriod added to a candidate's
// wait, so that candidates do not all ask at once.
const jitter = 0.2

// outcome is what one attempt to acquire or renew the lease found.
type outcome int

const (
	acquired    outcome = iota // we hold the lease, renewed now
	heldByOther                // another candidate holds a lease that has not expired
	lostRace                   // a 409: another candidate wrote first
	failed                     // the request failed
)

// acquire tries to acquire the lease every RetryPeriod (jittered), or as
// soon as the lease seen expires, until it does or ctx ends.
func (e *Elector) acquire(ctx context.Context) bool {
	for {
		start := time.Now()
		actx, cancel := context.WithTimeout(ctx, e.opts.RenewDeadline)
		out, err := e.tryAcquireOrRenew(actx, start)
		cancel()
		e.opts.Metrics.attempt(false, start, out, err)
		if out == acquired {
			e.answered()
			e.until = start.Add(e.opts.RenewDeadline)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		e.logAttempt(out, err, false)
		wait := e.opts.RetryPeriod + time.Duration(rand.Float64()*jitter*float64(e.opts.RetryPeriod))
		if out == heldByOther {
			// Try the moment the lease expires, if that comes first.
			if d := time.Until(e.expiry()); d > 0 && d < wait {
				wait = d
			}
		}
		if !sleep(ctx, wait) {
			return false
		}
	}
}

// lead runs fn while the lease is renewed, and reports whether Run should
// campaign again.
func (e *Elector) lead(ctx context.Context, fn func(context.Context)) (again bool) {
	// The function's context ends only by cancel, so that its cause says
	// why (ErrStopped rather than ctx's own cause); the loop below cancels
	// it as soon as ctx ends.
	leadCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	e.setLeads(true)
	e.opts.Metrics.leading(true)
	e.log.Info("leaderelection: leading", "until", e.until.Format(time.RFC3339Nano))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				e.log.Error("leaderelection: the leader's function panicked", "panic", fmt.Sprint(p))
			}
		}()
		fn(leadCtx)
	}()

	stop := func(reason error) {
		cancel(reason)
		<-done
		e.setLeads(false)
		e.opts.Metrics.leading(false)
		switch {
		case errors.Is(reason, ErrLeaseLost):
			e.log.Info("leaderelection: stopped leading", "reason", reason)
		case reason == nil:
			e.log.Info("leaderelection: stopped leading: the function returned")
		default:
			e.log.Info("leaderelection: stopped leading: stopping")
		}
		if f := e.opts.OnStoppedLeading; f != nil {
			f(reason)
		}
	}

	timer := time.NewTimer(e.opts.RetryPeriod)
	defer timer.Stop()
	for {
		select {
		case <-done:
			stop(nil)
			e.release(ctx)
			return false
		case <-ctx.Done():
			stop(ErrStopped)
			e.release(ctx)
			return false
		case <-timer.C:
		}
		start := time.Now()
		if !start.Before(e.until) {
			reason := fmt.Errorf("%w: not renewed within %s", ErrLeaseLost, e.opts.RenewDeadline)
			if last := e.LastError(); last != nil {
				reason = fmt.Errorf("%w: not renewed within %s: %w", ErrLeaseLost, e.opts.RenewDeadline, last)
			}
			stop(reason)
			return true
		}
		rctx, rcancel := context.WithDeadline(ctx, e.until)
		out, err := e.tryAcquireOrRenew(rctx, start)
		rcancel()
		e.opts.Metrics.attempt(true, start, out, err)
		switch {
		case out == acquired:
			e.answered()
			e.until = start.Add(e.opts.RenewDeadline)
			timer.Reset(e.opts.RetryPeriod)
			continue
		case ctx.Err() != nil:
			stop(ErrStopped)
			e.release(ctx)
			return false
		case out == heldByOther || out == lostRace:
			e.answered()
			stop(fmt.Errorf("%w: %s holds the lease", ErrLeaseLost, e.observed.Holder()))
			return true
		}
		e.logAttempt(out, err, true)
		timer.Reset(max(0, min(e.opts.RetryPeriod, time.Until(e.until))))
	}
}

// tryAcquireOrRenew makes one attempt to take or renew the lease at now.
func (e *Elector) tryAcquireOrRenew(ctx context.Context, now time.Time) (outcome, error) {
	return e.attempt(ctx, now, e.IsLeader())
}

// attempt is tryAcquireOrRenew; fast lets a leader write without reading
// the lease first.
func (e *Elector) attempt(ctx context.Context, now time.Time, fast bool) (outcome, error) {
	var cur *Lease
	cached := fast && e.observed != nil && e.observed.Holder() == e.opts.Identity
	if cached {
		// A leader renews from the lease it last wrote, without reading
		// it first; a conflict sends it to read.
		cur = e.observed
	} else {
		got, err := e.client.Get(ctx, e.opts.Namespace, e.opts.Name)
		switch {
		case errors.Is(err, kube.ErrNotFound):
			return e.create(ctx, now)
		case err != nil:
			return failed, err
		}
		e.observe(got, now)
		cur = got
		if h := cur.Holder(); h != "" && h != e.opts.Identity && now.Before(e.expiry()) {
			return heldByOther, nil
		}
	}
	next := cur.DeepCopy()
	s := &next.Spec
	if cur.Holder() != e.opts.Identity {
		s.HolderIdentity = ptr(e.opts.Identity)
		s.AcquireTime = ptr(metav1.NewMicroTime(now))
		s.LeaseTransitions = ptr(transitions(cur) + 1)
		if cur.Holder() == "" && cur.Spec.LeaseTransitions == nil {
			s.LeaseTransitions = ptr(int32(0))
		}
	}
	s.LeaseDurationSeconds = ptr(e.durationSeconds())
	s.RenewTime = ptr(metav1.NewMicroTime(now))
	updated, err := e.client.Update(ctx, next)
	switch {
	case lostTo(err):
		if cached {
			// Someone else wrote since: read the lease at once to see who.
			return e.attempt(ctx, now, false)
		}
		return lostRace, err
	case err != nil:
		return failed, err
	}
	e.observe(updated, now)
	return acquired, nil
}

// create creates the lease, held by this candidate.
func (e *Elector) create(ctx context.Context, now time.Time) (outcome, error) {
	l := &Lease{}
	l.Namespace, l.Name = e.opts.Namespace, e.opts.Name
	l.Spec = LeaseSpec{
		HolderIdentity:       ptr(e.opts.Identity),
		LeaseDurationSeconds: ptr(e.durationSeconds()),
		AcquireTime:          ptr(metav1.NewMicroTime(now)),
		RenewTime:            ptr(metav1.NewMicroTime(now)),
		LeaseTransitions:     ptr(int32(0)),
	}
	created, err := e.client.Create(ctx, l)
	switch {
	case lostTo(err):
		return lostRace, err
	case err != nil:
		return failed, err
	}
	e.observe(created, now)
	return acquired, nil
}

// release gives the lease up, if this candidate still holds it, so that
// another takes it at once. The lease keeps its transitions; its holder is
// emptied and its duration set to a second. It waits ReleaseTimeout at
// most (or RenewDeadline, if shorter).
func (e *Elector) release(ctx context.Context) {
	// The write is conditional on the resourceVersion this candidate last
	// wrote: if another wrote since, it fails, and nothing is released.
	cur := e.observed
	if cur == nil || cur.Holder() != e.opts.Identity {
		return
	}
	now := time.Now()
	next := cur.DeepCopy()
	next.Spec.HolderIdentity = nil
	next.Spec.LeaseDurationSeconds = ptr(int32(1))
	next.Spec.AcquireTime = ptr(metav1.NewMicroTime(now))
	next.Spec.RenewTime = ptr(metav1.NewMicroTime(now))
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(ReleaseTimeout, e.opts.RenewDeadline))
	defer cancel()
	updated, err := e.client.Update(rctx, next)
	if err != nil {
		e.log.Info("leaderelection: could not release the lease; it expires after LeaseDuration", "err", err)
		return
	}
	e.observe(updated, now)
	e.log.Info("leaderelection: released the lease")
}

// observe records the lease as seen at now, and reports a new holder.
func (e *Elector) observe(l *Lease, now time.Time) {
	if e.observed == nil || e.observed.ResourceVersion != l.ResourceVersion || l.ResourceVersion == "" {
		e.observedTime = now
	}
	e.observed = l
	holder := l.Holder()
	e.mu.Lock()
	changed := holder != e.leader
	e.leader = holder
	e.mu.Unlock()
	if !changed {
		return
	}
	if holder == "" {
		e.log.Info("leaderelection: the lease is free")
	} else if holder != e.opts.Identity {
		e.log.Info("leaderelection: new leader", "leader", holder)
	}
	e.opts.Metrics.transition(holder)
	if f := e.opts.OnNewLeader; f != nil {
		f(holder)
	}
}

// expiry is when the lease as last seen expires, by our clock.
func (e *Elector) expiry() time.Time {
	d := e.opts.LeaseDuration
	if e.observed != nil {
		if s := e.observed.Spec.LeaseDurationSeconds; s != nil && *s > 0 {
			d = time.Duration(*s) * time.Second
		}
	}
	return e.observedTime.Add(d)
}

func (e *Elector) durationSeconds() int32 {
	return int32((e.opts.LeaseDuration + time.Second - 1) / time.Second)
}

func transitions(l *Lease) int32 {
	if t := l.Spec.LeaseTransitions; t != nil {
		return *t
	}
	return 0
}

func (e *Elector) setLeads(v bool) {
	e.mu.Lock()
	e.leads = v
	e.mu.Unlock()
}

// logAttempt records an attempt that did not acquire or renew the lease:
// one the server answered (held by another, a race lost) at Debug, a
// failed one through failedAttempt.
func (e *Elector) logAttempt(out outcome, err error, leading bool) {
	switch out {
	case heldByOther:
		e.answered()
		e.log.Debug("leaderelection: the lease is held", "leader", e.observed.Holder(), "expires", e.expiry().Format(time.RFC3339Nano))
	case lostRace:
		e.answered()
		e.log.Debug("leaderelection: another candidate wrote the lease first", "err", err)
	case failed:
		e.failedAttempt(err, leading)
	}
}

// sleep waits d or until ctx ends, and reports whether ctx is still alive.
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

// lostTo reports whether a write failed because another candidate wrote
// first: a 409, for a stale resourceVersion or a name that exists.
func lostTo(err error) bool {
	return errors.Is(err, kube.ErrConflict) || errors.Is(err, kube.ErrAlreadyExists)
}

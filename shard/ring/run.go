package ring

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/shard"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Run joins the ring and runs work over the member's ranges until ctx
// ends. Each time the ranges change, work's context is cancelled (cause
// ErrHandoff) and, once work has returned, work runs again over the new
// ranges (with Options.Incremental, per piece: see there). work must return promptly when its context ends, and only once
// nothing it started still works on its ranges: its return is what lets
// another member take them. It is also cancelled (ErrLeaseLost) when the
// Lease could not be renewed for RenewDeadline, and must then return
// within LeaseDuration − RenewDeadline, before the others may evict the
// member. A work that returns on its own runs again at the next renewal.
// A queue kept across calls of work keeps the keys of ranges that moved
// away: see PruneQueue.
//
// When ctx ends, Run cancels work (ErrStopped), waits for it, deletes the
// member's Lease (so that the others take its ranges at their next
// renewal instead of after LeaseDuration) and returns nil. Run may be
// called once at a time.
func (m *Member) Run(ctx context.Context, work func(ctx context.Context, a Assignment)) error {
	if !m.running.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: Run called twice at once", ErrInvalidOptions)
	}
	defer m.running.Store(false)
	r := &runState{m: m, work: work, seen: map[string]observation{}, ended: make(chan struct{}, 1)}
	for ctx.Err() == nil {
		r.step(ctx)
		wait := m.opts.RetryPeriod - time.Duration(rand.Float64()*0.2*float64(m.opts.RetryPeriod))
		if !r.wake.IsZero() {
			wait = min(wait, max(time.Until(r.wake), time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-r.ended:
		}
		t.Stop()
	}
	r.stop(ErrStopped)
	r.leave(ctx)
	return nil
}

// observation is when a member last saw a Lease change, by its clock.
type observation struct {
	rv string
	at time.Time
}

// runState is the state of Run's goroutine.
type runState struct {
	m     *Member
	work  func(context.Context, Assignment)
	own   *leaderelection.Lease // as last written; nil before joining
	claim shard.Set             // what own claims
	seen  map[string]observation
	epoch uint64
	gens  []*generation // disjoint; at most one unless Options.Incremental
	ended chan struct{} // a token when a work returns
	err   error
	// wake, when set, is when the next step is due if before RetryPeriod:
	// a Lease's expiry, or a quick look while others release ranges.
	wake time.Time
	// waiting is since when the member waits for ranges others claim.
	waiting time.Time
}

// wakeBy makes the next step run by t at the latest.
func (r *runState) wakeBy(t time.Time) {
	if r.wake.IsZero() || t.Before(r.wake) {
		r.wake = t
	}
}

// released makes the next step come soon while others still claim part
// of desired (their handoff is under way), for LeaseDuration at most.
func (r *runState) released(desired, target shard.Set, now time.Time) {
	if target.Equal(desired) {
		r.waiting = time.Time{}
		return
	}
	if r.waiting.IsZero() {
		r.waiting = now
	}
	if now.Sub(r.waiting) < r.m.opts.LeaseDuration {
		r.wakeBy(now.Add(r.m.opts.RetryPeriod / 4))
	}
}

// step renews (or creates) the member's Lease, reads the others', and
// moves the member's work to the ranges it owns.
func (r *runState) step(ctx context.Context) {
	m := r.m
	now := time.Now()
	r.wake = time.Time{}
	if r.reap() {
		// Run it again at the next renewal, not at once: a work that
		// fails at its start must not spin.
		r.renew(ctx, now)
		return
	}
	if !r.renew(ctx, now) {
		if !r.fenced(time.Now()) {
			r.stop(fmt.Errorf("%w: not renewed within %s: %w", ErrLeaseLost, m.opts.RenewDeadline, r.err))
		}
		return
	}
	leases, err := r.list(ctx)
	if err != nil {
		return
	}
	live, others := r.observe(leases, time.Now())
	desired := Assign(live, m.opts.Identity)
	others = r.evict(ctx, desired, others)
	target := desired.Subtract(claims(others))
	r.released(desired, target, now)
	if len(r.gens) > 0 && r.working().Equal(target) {
		return
	}
	if len(r.gens) == 0 && target.Empty() && r.claim.Empty() {
		return
	}
	r.move(ctx, target)
}

// move stops the work (with Options.Incremental, only the work over
// ranges that leave), publishes target as the claim, checks that nobody
// else claims its new part, and starts the work over what is free.
func (r *runState) move(ctx context.Context, target shard.Set) {
	m := r.m
	working := r.working()
	lost := working.Subtract(target)
	r.stopWhere(func(g *generation) bool { return !m.opts.Incremental || g.a.Ranges.Overlaps(lost) },
		fmt.Errorf("%w: %v → %v", ErrHandoff, working, target))
	kept := r.working()
	if !r.writeClaim(ctx, target) {
		return
	}
	start := target.Subtract(kept)
	if fresh := target.Subtract(working); !fresh.Empty() {
		leases, err := r.list(ctx) // after our claim: of two members claiming at once, one sees the other
		if err != nil {
			return
		}
		var taken shard.Set
		for _, l := range leases {
			if l.Name != m.lease {
				taken = append(taken, claimOf(l)...)
			}
		}
		if t := shard.NewSet(taken...); t.Overlaps(fresh) {
			m.log.Info("ring: ranges still claimed by others", "ranges", fresh.Intersect(t).String())
			start = start.Subtract(t)
			claim := shard.NewSet(append(slices.Clone(kept), start...)...)
			r.released(target, claim, time.Now())
			// Withdraw the claim on them at once: the other member may
			// have seen it and kept out too, and then neither would work
			// them while it stands.
			if !r.writeClaim(ctx, claim) {
				return
			}
		}
	}
	if start.Empty() || !r.fenced(time.Now()) {
		return
	}
	r.startGen(start)
}

// fenced reports whether the member may work at now: its last renewal
// started less than RenewDeadline ago.
func (r *runState) fenced(now time.Time) bool {
	return now.Sub(r.m.base) < time.Duration(r.m.deadline.Load())
}

// renew writes the member's Lease (creating it the first time) with its
// claim, conditional on the version last written.
func (r *runState) renew(ctx context.Context, now time.Time) bool {
	if r.own == nil {
		return r.join(ctx, now)
	}
	return r.write(ctx, now, r.claim)
}

// writeClaim writes claim into the Lease.
func (r *runState) writeClaim(ctx context.Context, claim shard.Set) bool {
	if r.own == nil {
		return false
	}
	return r.write(ctx, time.Now(), claim)
}

// write updates the Lease. Only the member writes its Lease (the others
// only delete it, to evict it): a conflict means a write of its own that
// timed out did happen, and the Lease is read again; a missing Lease
// means another member evicted this one.
func (r *runState) write(ctx context.Context, now time.Time, claim shard.Set) bool {
	m := r.m
	wctx, cancel := r.requestContext(ctx)
	defer cancel()
	for attempt := 0; ; attempt++ {
		next := r.own.DeepCopy()
		next.Spec.RenewTime = ptr(metav1.NewMicroTime(now))
		setClaim(next, claim)
		got, err := m.client.Update(wctx, next)
		if errors.Is(err, kube.ErrConflict) && attempt == 0 {
			cur, gerr := m.client.Get(wctx, r.own.Namespace, r.own.Name)
			if gerr == nil && cur.Holder() == m.opts.Identity {
				r.own, r.claim = cur, claimOf(cur)
				continue
			}
			err = fmt.Errorf("%w (read again: %w)", err, gerr)
			if errors.Is(gerr, kube.ErrNotFound) {
				err = gerr
			}
		}
		switch {
		case errors.Is(err, kube.ErrNotFound):
			r.stop(fmt.Errorf("%w: %w", ErrEvicted, err))
			m.log.Info("ring: evicted; joining again", "err", err)
			r.own, r.claim = nil, nil
			r.fail(err)
			return false
		case err != nil:
			// The write may have happened: the claim is the larger of
			// the two until a write says otherwise.
			r.claim = shard.NewSet(append(slices.Clone(r.claim), claim...)...)
			r.fail(err)
			return false
		}
		r.own, r.claim = got, claim
		r.renewed(now)
		return true
	}
}

// join creates the member's Lease, claiming nothing. A Lease of the same
// name left by an earlier process is taken over once it has expired.
func (r *runState) join(ctx context.Context, now time.Time) bool {
	m := r.m
	l := &leaderelection.Lease{}
	l.Namespace, l.Name = m.opts.Namespace, m.lease
	l.Labels = map[string]string{LabelRing: m.opts.Name}
	l.Spec.HolderIdentity = ptr(m.opts.Identity)
	l.Spec.LeaseDurationSeconds = ptr(int32(max(1, m.opts.LeaseDuration/time.Second)))
	l.Spec.AcquireTime = ptr(metav1.NewMicroTime(now))
	l.Spec.RenewTime = l.Spec.AcquireTime
	setClaim(l, nil)
	wctx, cancel := r.requestContext(ctx)
	defer cancel()
	got, err := m.client.Create(wctx, l)
	if errors.Is(err, kube.ErrAlreadyExists) {
		old, gerr := m.client.Get(wctx, l.Namespace, l.Name)
		if gerr != nil {
			r.fail(gerr)
			return false
		}
		o, ok := r.seen[old.Name]
		if !ok || o.rv != old.ResourceVersion {
			o = observation{rv: old.ResourceVersion, at: now}
			r.seen[old.Name] = o
			m.log.Info("ring: a lease of this identity exists; waiting for it to expire", "lease", old.Name)
		}
		if now.Sub(o.at) < m.opts.LeaseDuration {
			r.wakeBy(o.at.Add(m.opts.LeaseDuration))
			return false
		}
		if err := m.client.Delete(wctx, old.Namespace, old.Name, old.ResourceVersion); err != nil && !errors.Is(err, kube.ErrNotFound) {
			r.fail(err)
			return false
		}
		got, err = m.client.Create(wctx, l)
	}
	if err != nil {
		r.fail(err)
		return false
	}
	r.own, r.claim = got, nil
	m.log.Info("ring: joined", "lease", got.Name)
	r.renewed(now)
	return true
}

// requestContext bounds a request by the fence deadline (at least
// RetryPeriod when there is none yet).
func (r *runState) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	left := time.Duration(r.m.deadline.Load()) - time.Since(r.m.base)
	return context.WithTimeout(ctx, max(left, r.m.opts.RetryPeriod))
}

func (r *runState) renewed(start time.Time) {
	m := r.m
	m.deadline.Store(int64(start.Sub(m.base) + m.opts.RenewDeadline))
	r.err = nil
	m.mu.Lock()
	m.status.Renewed, m.status.LastError, m.status.Claim = start, nil, r.claim
	m.mu.Unlock()
}

func (r *runState) fail(err error) {
	r.err = err
	r.m.log.Debug("ring: request failed", "err", err)
	r.m.mu.Lock()
	r.m.status.LastError = err
	r.m.mu.Unlock()
}

// list reads the ring's Leases.
func (r *runState) list(ctx context.Context) ([]*leaderelection.Lease, error) {
	m := r.m
	lctx, cancel := context.WithTimeout(ctx, m.opts.RenewDeadline)
	defer cancel()
	leases, err := m.client.List(lctx, m.opts.Namespace, LabelRing+"="+m.opts.Name)
	if err != nil {
		r.fail(err)
	}
	return leases, err
}

// member is another member's Lease as this one sees it.
type member struct {
	lease   *leaderelection.Lease
	claim   shard.Set
	expired bool
}

// observe records which Leases changed, and returns the live members'
// identities (this one's included) and the other members.
func (r *runState) observe(leases []*leaderelection.Lease, now time.Time) ([]string, []member) {
	m := r.m
	live := []string{m.opts.Identity}
	var others []member
	present := map[string]bool{}
	for _, l := range leases {
		present[l.Name] = true
		if l.Name == m.lease {
			continue
		}
		o, ok := r.seen[l.Name]
		if !ok || o.rv != l.ResourceVersion {
			o = observation{rv: l.ResourceVersion, at: now}
			r.seen[l.Name] = o
		}
		expired := now.Sub(o.at) >= m.opts.LeaseDuration
		if !expired {
			r.wakeBy(o.at.Add(m.opts.LeaseDuration)) // look again as it expires
			if l.Holder() != "" {
				live = append(live, l.Holder())
			}
		}
		others = append(others, member{lease: l, claim: claimOf(l), expired: expired})
	}
	for name := range r.seen {
		if !present[name] && name != m.lease {
			delete(r.seen, name)
		}
	}
	slices.Sort(live)
	live = slices.Compact(live)
	m.mu.Lock()
	if !slices.Equal(m.status.Members, live) {
		m.log.Info("ring: members", "members", live)
	}
	m.status.Members = live
	m.mu.Unlock()
	return live, others
}

// evict deletes the expired Leases whose claims stand in the way of
// desired, each conditional on the version last seen: a member that
// renewed since is not evicted. It returns the members left.
func (r *runState) evict(ctx context.Context, desired shard.Set, others []member) []member {
	m := r.m
	kept := others[:0]
	for _, o := range others {
		if o.expired && (o.claim.Overlaps(desired) || o.claim.Empty()) {
			dctx, cancel := context.WithTimeout(ctx, m.opts.RetryPeriod)
			err := m.client.Delete(dctx, o.lease.Namespace, o.lease.Name, o.lease.ResourceVersion)
			cancel()
			if err == nil || errors.Is(err, kube.ErrNotFound) {
				m.log.Info("ring: evicted an expired member", "member", o.lease.Holder(), "lease", o.lease.Name, "claim", o.claim.String())
				delete(r.seen, o.lease.Name)
				continue
			}
			r.fail(err)
		}
		kept = append(kept, o)
	}
	return kept
}

// leave deletes the member's Lease, so that the others take its ranges
// at once.
func (r *runState) leave(ctx context.Context) {
	if r.own == nil {
		return
	}
	m := r.m
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(LeaveTimeout, m.opts.RenewDeadline))
	defer cancel()
	if err := m.client.Delete(lctx, r.own.Namespace, r.own.Name, r.own.ResourceVersion); err != nil {
		m.log.Info("ring: could not delete the lease on leaving", "err", err)
		return
	}
	m.log.Info("ring: left")
	r.own = nil
}

func claimOf(l *leaderelection.Lease) shard.Set {
	c, _ := decodeClaim(l.Annotations[AnnotationClaim])
	return c
}

func setClaim(l *leaderelection.Lease, claim shard.Set) {
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[AnnotationClaim] = encodeClaim(claim)
}

// claims returns the union of the members' claims.
func claims(ms []member) shard.Set {
	var rs []shard.Range
	for _, o := range ms {
		rs = append(rs, o.claim...)
	}
	return shard.NewSet(rs...)
}

func ptr[T any](v T) *T { return &v }

package ring

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer/shard"
)

// generation is one run of the work function over one assignment.
type generation struct {
	a      Assignment
	synced atomic.Bool
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// working returns the ranges the member's work covers now.
func (r *runState) working() shard.Set {
	var rs []shard.Range
	for _, g := range r.gens {
		rs = append(rs, g.a.Ranges...)
	}
	return shard.NewSet(rs...)
}

// startGen runs the work over ranges, with a watchdog that cancels it at
// the fence deadline.
func (r *runState) startGen(ranges shard.Set) {
	m := r.m
	r.epoch++
	g := &generation{done: make(chan struct{})}
	g.a = Assignment{Identity: m.opts.Identity, Epoch: r.epoch, Ranges: ranges, synced: &g.synced, log: m.log}
	ctx, cancel := context.WithCancelCause(context.Background())
	g.cancel = cancel
	m.log.Info("ring: working", "ranges", ranges.String(), "epoch", r.epoch)
	go func() {
		defer func() {
			close(g.done)
			select {
			case r.ended <- struct{}{}:
			default:
			}
		}()
		defer func() {
			if p := recover(); p != nil {
				m.log.Error("ring: the work panicked", "panic", fmt.Sprint(p), "epoch", g.a.Epoch)
			}
		}()
		r.work(ctx, g.a)
	}()
	go m.watchdog(ctx, g)
	r.gens = append(r.gens, g)
	r.publish()
}

// watchdog cancels g's work when the fence deadline passes without a
// renewal.
func (m *Member) watchdog(ctx context.Context, g *generation) {
	for {
		left := time.Duration(m.deadline.Load()) - time.Since(m.base)
		if left <= 0 {
			g.cancel(fmt.Errorf("%w: not renewed within %s", ErrLeaseLost, m.opts.RenewDeadline))
			return
		}
		t := time.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-g.done:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// stop cancels all the work with cause and waits for it to return.
func (r *runState) stop(cause error) {
	r.stopWhere(func(*generation) bool { return true }, cause)
}

// stopWhere cancels the work of the generations that match with cause,
// all at once, and waits for each to return.
func (r *runState) stopWhere(match func(*generation) bool, cause error) {
	var stopping, left []*generation
	for _, g := range r.gens {
		if match(g) {
			g.cancel(cause)
			stopping = append(stopping, g)
		} else {
			left = append(left, g)
		}
	}
	if len(stopping) == 0 {
		return
	}
	for _, g := range stopping {
		<-g.done
		r.m.log.Info("ring: stopped working", "ranges", g.a.Ranges.String(), "epoch", g.a.Epoch, "reason", cause)
	}
	r.gens = left
	r.publish()
}

// reap forgets the generations whose work returned on its own, and
// reports whether there were any.
func (r *runState) reap() bool {
	n := len(r.gens)
	r.gens = slices.DeleteFunc(r.gens, func(g *generation) bool {
		select {
		case <-g.done:
			r.m.log.Info("ring: the work returned on its own", "ranges", g.a.Ranges.String(), "epoch", g.a.Epoch)
			return true
		default:
			return false
		}
	})
	if len(r.gens) == n {
		return false
	}
	r.publish()
	return true
}

// publish copies the generations into the member's status.
func (r *runState) publish() {
	m := r.m
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gens = slices.Clone(r.gens)
	m.status.Ranges = r.working()
	if m.status.Ranges.Empty() {
		m.status.Ranges = nil
	}
	for _, g := range r.gens {
		m.status.Epoch = max(m.status.Epoch, g.a.Epoch)
	}
}

package ring_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/shard/ring"
)

const (
	leaseDuration = 3 * time.Second
	renewDeadline = 2 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

// span is one assignment's work, from its start to its end, in the
// order of a global sequence (causal, unlike a clock reading).
type span struct {
	member     string
	epoch      uint64
	ranges     shard.Set
	start, end int64 // end 0 while it runs
	startAt    time.Time
	endAt      time.Time
}

// recorder records every assignment's work and checks that no two
// overlap in hashes while both run.
type recorder struct {
	seq   atomic.Int64
	mu    sync.Mutex
	spans []*span
	drain time.Duration // how long work takes to stop
}

func (r *recorder) work(ctx context.Context, a ring.Assignment) {
	r.run(a, func() {
		a.Synced()
		<-ctx.Done()
		if r.drain > 0 {
			time.Sleep(r.drain)
		}
	})
}

// run records fn as the work of a, from its call to its return.
func (r *recorder) run(a ring.Assignment, fn func()) {
	s := &span{member: a.Identity, epoch: a.Epoch, ranges: a.Ranges}
	r.mu.Lock()
	s.start = r.seq.Add(1)
	s.startAt = time.Now()
	r.spans = append(r.spans, s)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		s.end = r.seq.Add(1)
		s.endAt = time.Now()
		r.mu.Unlock()
	}()
	fn()
}

// overlaps returns a description of two spans that worked the same
// hashes at once, "" if none did.
func (r *recorder) overlaps() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, a := range r.spans {
		for _, b := range r.spans[i+1:] {
			if a.member == b.member && a.epoch == b.epoch || !a.ranges.Overlaps(b.ranges) {
				continue
			}
			aEnd, bEnd := a.end, b.end
			if aEnd == 0 {
				aEnd = 1 << 62
			}
			if bEnd == 0 {
				bEnd = 1 << 62
			}
			if a.start < bEnd && b.start < aEnd {
				return fmt.Sprintf("%s#%d %v [%d,%d) and %s#%d %v [%d,%d)", a.member, a.epoch, a.ranges, a.start, a.end, b.member, b.epoch, b.ranges, b.start, b.end)
			}
		}
	}
	return ""
}

// running returns the ranges worked now, by member.
func (r *recorder) running() map[string]shard.Set {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]shard.Set{}
	for _, s := range r.spans {
		if s.end == 0 {
			out[s.member] = shard.NewSet(append(slices.Clone(out[s.member]), s.ranges...)...)
		}
	}
	return out
}

// lastStart returns when member's work last started.
func (r *recorder) lastStart(member string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var t time.Time
	for _, s := range r.spans {
		if s.member == member && s.startAt.After(t) {
			t = s.startAt
		}
	}
	return t
}

// span returns a copy of member's work of epoch.
func (r *recorder) span(member string, epoch uint64) span {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.spans {
		if s.member == member && s.epoch == epoch {
			return *s
		}
	}
	return span{}
}

// lastEnd returns when member's work last ended.
func (r *recorder) lastEnd(member string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var t time.Time
	for _, s := range r.spans {
		if s.member == member && s.endAt.After(t) {
			t = s.endAt
		}
	}
	return t
}

// covered reports whether the running work covers the whole space.
func (r *recorder) covered() bool {
	var all []shard.Range
	for _, s := range r.running() {
		all = append(all, s...)
	}
	return shard.NewSet(all...).IsAll()
}

type runner struct {
	m      *ring.Member
	c      *client
	cancel context.CancelFunc
	done   chan error
}

type harness struct {
	t   *testing.T
	st  *store
	rec *recorder
	ms  map[string]*runner
	log syncBuf
	// incremental starts the members with Options.Incremental.
	incremental bool
}

// syncBuf collects the members' logs, shown when a test fails.
type syncBuf struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, st: newStore(), rec: &recorder{}, ms: map[string]*runner{}}
	t.Cleanup(func() {
		for _, r := range h.ms {
			r.cancel()
			<-r.done
		}
		if t.Failed() {
			h.log.mu.Lock()
			t.Logf("the members' log:\n%s", h.log.b)
			h.log.mu.Unlock()
		}
	})
	return h
}

func (h *harness) start(id string) *runner {
	return h.startWith(id, h.rec.work)
}

// startWith starts a member running work.
func (h *harness) startWith(id string, work func(context.Context, ring.Assignment)) *runner {
	c := &client{s: h.st}
	m, err := ring.New(c, ring.Options{Namespace: "ns", Name: "ctl", Identity: id,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod, Incremental: h.incremental,
		Logger: slog.New(slog.NewTextHandler(&h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.t.Context())
	r := &runner{m: m, c: c, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- m.Run(ctx, work) }()
	h.ms[id] = r
	return r
}

// stop ends a member gracefully.
func (h *harness) stop(id string) {
	r := h.ms[id]
	r.cancel()
	if err := <-r.done; err != nil {
		h.t.Fatal(err)
	}
	delete(h.ms, id)
}

// kill ends a member as SIGKILL does: nothing more reaches the server,
// its Lease stays.
func (h *harness) kill(id string) {
	r := h.ms[id]
	r.c.down.Store(true)
	r.cancel()
	<-r.done
	delete(h.ms, id)
}

// settle waits until the running work covers the space, one range per
// live member, and returns how long that took; it fails after limit.
func (h *harness) settle(limit time.Duration) time.Duration {
	h.t.Helper()
	start := time.Now()
	for {
		run := h.rec.running()
		if h.rec.covered() && len(run) == len(h.ms) {
			ok := true
			for id := range h.ms {
				st := h.ms[id].m.Health()
				if !st.Synced || st.Ranges.Fraction() < 0.99/float64(len(h.ms)) || len(st.Members) != len(h.ms) || !st.Claim.Equal(st.Ranges) {
					ok = false
				}
			}
			if ok {
				return time.Since(start)
			}
		}
		if o := h.rec.overlaps(); o != "" {
			h.t.Fatalf("overlap: %s", o)
		}
		if time.Since(start) > limit {
			h.t.Fatalf("not settled after %s: running %v", limit, run)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (h *harness) check() {
	h.t.Helper()
	if o := h.rec.overlaps(); o != "" {
		h.t.Fatalf("two members worked the same hashes at once: %s", o)
	}
}

// TestRingScale: 3 members share the space equally; scaling to 5 and
// down to 2 moves ranges without two members ever working a hash at once
// and ends with the space covered.
func TestRingScale(t *testing.T) {
	modes(t, func(t *testing.T, h *harness) {
		h.rec.drain = 200 * time.Millisecond
		for _, id := range []string{"a", "b", "c"} {
			h.start(id)
		}
		d := h.settle(10 * time.Second)
		t.Logf("3 members settled in %s", d)
		for id, r := range h.ms {
			st := r.m.Health()
			if !st.Running || st.Err() != nil || st.Identity != id || st.Epoch == 0 || !st.Claim.Equal(st.Ranges) {
				t.Fatalf("%s: %+v", id, st)
			}
			if want := ring.Assign([]string{"a", "b", "c"}, id); !st.Ranges.Equal(want) || len(st.Members) != 3 {
				t.Fatalf("%s: %+v, want ranges %v", id, st, want)
			}
		}
		h.start("d")
		h.start("e")
		t.Logf("3→5 rebalanced in %s", h.settle(10*time.Second))
		h.stop("a")
		h.stop("c")
		h.stop("e")
		t.Logf("5→2 rebalanced in %s", h.settle(10*time.Second))
		for id, r := range h.ms {
			if f := r.m.Health().Ranges.Fraction(); f != 0.5 {
				t.Fatalf("%s works %v of the space, want half", id, f)
			}
		}
		h.check()
		for id := range h.ms {
			h.stop(id)
		}
		h.check()
		if n := len(h.st.leases); n != 0 {
			t.Fatalf("%d leases left after every member left", n)
		}
	})
}

// TestRingKill: a member killed (its Lease left behind) has its range
// taken over within LeaseDuration and a few renewals, never while it
// could still work.
func TestRingKill(t *testing.T) {
	modes(t, func(t *testing.T, h *harness) {
		for _, id := range []string{"a", "b", "c"} {
			h.start(id)
		}
		h.settle(10 * time.Second)
		h.kill("b")
		d := h.settle(leaseDuration + 5*time.Second)
		t.Logf("covered again %s after the kill", d)
		if d > leaseDuration+2*time.Second {
			t.Fatalf("covered again after %s, want at most LeaseDuration + 2 s", d)
		}
		h.check()
		for id := range h.ms {
			h.stop(id)
		}
	})
}

// TestRingPartition: a member that can no longer renew its Lease (but
// whose work goes on) stops working before anyone else takes its range.
func TestRingPartition(t *testing.T) {
	modes(t, func(t *testing.T, h *harness) {
		h.rec.drain = 500 * time.Millisecond // within LeaseDuration − RenewDeadline
		for _, id := range []string{"a", "b", "c"} {
			h.start(id)
		}
		h.settle(10 * time.Second)
		p := h.ms["b"]
		p.c.down.Store(true)
		cut := time.Now()
		// b's work must end RenewDeadline after its last renewal at most.
		for len(h.rec.running()) == 3 {
			if o := h.rec.overlaps(); o != "" {
				t.Fatalf("overlap: %s", o)
			}
			if time.Since(cut) > leaseDuration+5*time.Second {
				t.Fatalf("b still works %s after the cut", time.Since(cut))
			}
			time.Sleep(50 * time.Millisecond)
		}
		if d := h.rec.lastEnd("b").Sub(cut); d > renewDeadline+h.rec.drain {
			t.Fatalf("b stopped %s after the cut", d)
		}
		if err := p.m.Health().Err(); !errors.Is(err, ring.ErrLeaseLost) {
			t.Fatalf("b's health: %v, want ErrLeaseLost", err)
		}
		delete(h.ms, "b") // the others take its range
		h.settle(leaseDuration + 5*time.Second)
		h.check()
		// b comes back: it was evicted, joins again, and the space is
		// shared among three again.
		p.c.down.Store(false)
		h.ms["b"] = p
		h.settle(10 * time.Second)
		h.check()
		for id := range h.ms {
			h.stop(id)
		}
	})
}

// TestRingListFails: a member that renews but cannot read the others'
// Leases keeps its range, and takes nothing it cannot see is free.
func TestRingListFails(t *testing.T) {
	modes(t, func(t *testing.T, h *harness) {
		for _, id := range []string{"a", "b"} {
			h.start(id)
		}
		h.settle(10 * time.Second)
		h.ms["a"].c.listDown.Store(true)
		h.start("c")
		time.Sleep(10 * time.Second)
		h.check()
		h.ms["a"].c.listDown.Store(false)
		h.settle(10 * time.Second)
		h.check()
		for id := range h.ms {
			h.stop(id)
		}
	})
}

func TestAssign(t *testing.T) {
	ms := []string{"c", "a", "b", "a"}
	var all []shard.Range
	for _, id := range []string{"a", "b", "c"} {
		s := ring.Assign(ms, id)
		if len(s) != 1 {
			t.Fatalf("%s: %v", id, s)
		}
		all = append(all, s...)
	}
	if !shard.NewSet(all...).IsAll() || !slices.Equal(ring.Assign(ms, "a"), shard.Set{shard.Split(3, 0)}) {
		t.Fatalf("assignments %v", all)
	}
	if ring.Assign(ms, "z") != nil {
		t.Fatal("a non-member owns something")
	}
}

// TestRingWorkReturnsEarly: a work function that returns at once is run
// again once per renewal, not in a loop.
func TestRingWorkReturnsEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStore()
		m, err := ring.New(&client{s: st}, ring.Options{Namespace: "ns", Name: "ctl", Identity: "a",
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		var runs atomic.Int64
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- m.Run(ctx, func(context.Context, ring.Assignment) { runs.Add(1) }) }()
		time.Sleep(10 * time.Second)
		cancel()
		<-done
		if n := runs.Load(); n < 5 || n > int64(10*time.Second/(retryPeriod*8/10))+1 {
			t.Fatalf("the work ran %d times in 10 s with RetryPeriod %s", n, retryPeriod)
		}
	})
}

// TestRingRestartSameIdentity: a member restarted under the identity of a
// Lease still present (a killed pod that comes back with its name) waits
// until that Lease has expired before taking it over: the old process
// may only be paused.
func TestRingRestartSameIdentity(t *testing.T) {
	modes(t, func(t *testing.T, h *harness) {
		h.start("a")
		h.start("b")
		h.settle(10 * time.Second)
		h.kill("a")
		killed := time.Now()
		h.start("a")
		took := h.settle(5*leaseDuration + 10*time.Second)
		t.Logf("settled %s after the restart", took)
		if d := time.Since(killed); d < leaseDuration {
			t.Fatalf("the new a worked %s after the old one was killed, before its Lease expired", d)
		}
		h.check()
	})
}

// TestRingClaimRace: b, alone at its first read, claims the whole space;
// a, joining at that moment, has claimed its half, so b's check finds it
// and b works only the other half. a, having seen b's claim, keeps out
// too. b must then withdraw its claim on a's half, or neither works it
// (the gap once seen after a same-identity restart, and when two members
// start together).
func TestRingClaimRace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStore()
		half := shard.NewSet(shard.Split(2, 0))
		// a is played by hand: its Lease appears, claiming the first
		// half, between b's claim of everything and b's check.
		putA := func(claim string) {
			st.mu.Lock()
			defer st.mu.Unlock()
			st.rv++
			id := "a"
			l := &leaderelection.Lease{}
			l.Namespace, l.Name, l.ResourceVersion = "ns", "ctl-a", strconv.Itoa(st.rv)
			l.Labels = map[string]string{ring.LabelRing: "ctl"}
			l.Annotations = map[string]string{ring.AnnotationClaim: claim}
			l.Spec.HolderIdentity = &id
			st.leases["ns/ctl-a"] = l
		}
		c := &client{s: st, onList: func(n int) {
			if n == 2 {
				putA("0000000000000000-8000000000000000")
			}
		}}
		m, err := ring.New(c, ring.Options{Namespace: "ns", Name: "ctl", Identity: "b",
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx, rec.work) }()
		t.Cleanup(func() { cancel(); <-done })
		synctest.Wait()
		if got := m.Health().Ranges; !got.Equal(shard.NewSet(shard.Split(2, 1))) {
			t.Fatalf("b works %v, want the second half only (a claims the first)", got)
		}
		// a saw b's claim of everything and keeps out: it claims nothing
		// and renews.
		for range 4 {
			putA("")
			time.Sleep(retryPeriod)
		}
		if st := m.Health(); !st.Claim.Equal(st.Ranges) || st.Claim.Overlaps(half) {
			t.Fatalf("b works %v and claims %v: a's half is kept from a and unworked", st.Ranges, st.Claim)
		}
	})
}

// modes runs body in a bubble twice: with the work run over all of a
// member's ranges, and with Options.Incremental.
func modes(t *testing.T, body func(t *testing.T, h *harness)) {
	for _, inc := range []bool{false, true} {
		t.Run(fmt.Sprintf("incremental=%v", inc), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t)
				h.incremental = inc
				body(t, h)
			})
		})
	}
}

// TestRingIncrementalKeepsWork: with Options.Incremental, the survivors
// of a death only grow: their work goes on, and one more piece each
// covers what they gain. Without it, their work restarts.
func TestRingIncrementalKeepsWork(t *testing.T) {
	modes(t, func(t *testing.T, h *harness) {
		for _, id := range []string{"a", "b", "c"} {
			h.start(id)
		}
		h.settle(10 * time.Second)
		before := map[string]uint64{"a": h.ms["a"].m.Health().Epoch, "c": h.ms["c"].m.Health().Epoch}
		h.kill("b")
		h.settle(leaseDuration + 5*time.Second)
		h.check()
		for _, id := range []string{"a", "c"} {
			w := h.rec.span(id, before[id])
			if kept := w.end == 0; kept != h.incremental {
				t.Errorf("%s's work before the kill (%v, epoch %d) still runs: %v, want %v", id, w.ranges, w.epoch, kept, h.incremental)
			}
			if st := h.ms[id].m.Health(); !st.Ranges.Equal(ring.Assign([]string{"a", "c"}, id)) {
				t.Errorf("%s works %v", id, st.Ranges)
			}
		}
		// A join cuts the grown ranges: the pieces that lose a part stop,
		// the others go on, and the space is shared by three again.
		h.start("b")
		h.settle(10 * time.Second)
		h.check()
	})
}

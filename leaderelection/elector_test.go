package leaderelection_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/leaderelection"
)

// fence records who runs the leader's function when, and every moment two
// ran at once.
type fence struct {
	mu         sync.Mutex
	active     string
	terms      []term
	violations []string
}

type term struct {
	id         string
	start, end time.Time
	cause      error
}

func (f *fence) run(id string) func(ctx context.Context) {
	return func(ctx context.Context) {
		f.mu.Lock()
		if f.active != "" {
			f.violations = append(f.violations, fmt.Sprintf("%s started leading at %s while %s led", id, time.Now().Format(time.StampMilli), f.active))
		}
		f.active = id
		f.terms = append(f.terms, term{id: id, start: time.Now()})
		i := len(f.terms) - 1
		f.mu.Unlock()
		<-ctx.Done()
		f.mu.Lock()
		if f.active == id {
			f.active = ""
		}
		f.terms[i].end = time.Now()
		f.terms[i].cause = context.Cause(ctx)
		f.mu.Unlock()
	}
}

func (f *fence) leader() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.active
}

func (f *fence) last() term {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.terms) == 0 {
		return term{}
	}
	return f.terms[len(f.terms)-1]
}

func (f *fence) all() []term {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]term(nil), f.terms...)
}

func (f *fence) check(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range f.violations {
		t.Error("two leaders:", v)
	}
}

// candidate is one Elector running in the test's bubble.
type candidate struct {
	id     string
	client *leaseClient
	el     *leaderelection.Elector
	cancel context.CancelFunc
	done   chan error
}

var quiet = slog.New(slog.DiscardHandler)

func newCandidate(t *testing.T, s *leaseServer, id string, opts leaderelection.Options) *candidate {
	t.Helper()
	c := &candidate{id: id, client: &leaseClient{s: s}, done: make(chan error, 1)}
	opts.Namespace, opts.Name, opts.Identity = "ns", "lease", id
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	el, err := leaderelection.New(c.client, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.el = el
	return c
}

func (c *candidate) start(f *fence) { c.startFn(f.run(c.id)) }

func (c *candidate) startFn(fn func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go func() { c.done <- c.el.Run(ctx, fn) }()
}

func (c *candidate) stop(t *testing.T) {
	t.Helper()
	c.cancel()
	if err := <-c.done; !errors.Is(err, context.Canceled) {
		t.Errorf("%s: Run returned %v, want context.Canceled", c.id, err)
	}
}

// waitFor sleeps in steps of 10 ms (in the bubble's time) until cond
// holds, for at most limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, limit)
		}
	}
}

func renewTime(s *leaseServer) time.Time { return s.get().Spec.RenewTime.Time }

// TestPartitionedLeaderStepsDownBeforeTakeover: a leader whose requests
// hang stops at exactly RenewDeadline after the start of its last renewal,
// and another candidate leads only after that, within LeaseDuration plus
// one jittered RetryPeriod of that renewal; never two at once.
func TestPartitionedLeaderStepsDownBeforeTakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		a := newCandidate(t, s, "a", leaderelection.Options{})
		a.start(&f)
		waitFor(t, time.Second, "first leader", func() bool { return f.leader() == "a" })
		b := newCandidate(t, s, "b", leaderelection.Options{})
		c := newCandidate(t, s, "c", leaderelection.Options{})
		b.start(&f)
		c.start(&f)
		time.Sleep(7 * time.Second) // a few renewals
		if f.leader() != "a" || !a.el.IsLeader() || b.el.Leader() != "a" {
			t.Fatalf("leader %q, a.IsLeader %v, b sees %q; want a", f.leader(), a.el.IsLeader(), b.el.Leader())
		}
		synctest.Wait()
		last := renewTime(s)
		a.client.set(hang)

		waitFor(t, time.Minute, "new leader", func() bool { l := f.leader(); return l != "" && l != "a" })
		next := f.last()
		aTerm := f.all()[0]
		if want := last.Add(leaderelection.DefaultRenewDeadline); !aTerm.end.Equal(want) {
			t.Errorf("a stopped at %s, want %s (RenewDeadline after its last renewal at %s)", aTerm.end, want, last)
		}
		if !errors.Is(aTerm.cause, leaderelection.ErrLeaseLost) {
			t.Errorf("a's context cause %v, want ErrLeaseLost", aTerm.cause)
		}
		if lim := last.Add(leaderelection.DefaultLeaseDuration + leaderelection.DefaultRetryPeriod*12/10); next.start.After(lim) {
			t.Errorf("%s took over at %s, after %s", next.id, next.start.Sub(last), lim.Sub(last))
		}
		if next.start.Sub(last) < leaderelection.DefaultLeaseDuration {
			t.Errorf("%s took over %s after the last renewal, before LeaseDuration", next.id, next.start.Sub(last))
		}
		if got := *s.get().Spec.LeaseTransitions; got != 1 {
			t.Errorf("leaseTransitions %d, want 1", got)
		}
		// The partition heals: a campaigns again (once its hung request
		// has timed out) and follows.
		a.client.set(up)
		time.Sleep(leaderelection.DefaultRenewDeadline + 3*time.Second)
		if a.el.IsLeader() || a.el.Leader() != next.id {
			t.Errorf("after healing, a leads %v and sees %q; want %q", a.el.IsLeader(), a.el.Leader(), next.id)
		}
		for _, c := range []*candidate{a, b, c} {
			c.stop(t)
		}
		f.check(t)
	})
}

// TestShutdownReleasesAtOnce: a leader whose Run ends cancels its
// function (cause ErrStopped), waits for it to return, then releases the
// lease, and a waiting candidate takes it within one jittered RetryPeriod,
// not LeaseDuration.
func TestShutdownReleasesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		a := newCandidate(t, s, "a", leaderelection.Options{})
		var heldAtEnd string
		run := f.run("a")
		a.startFn(func(ctx context.Context) {
			run(ctx)
			time.Sleep(time.Second) // winding down
			heldAtEnd = s.get().Holder()
		})
		waitFor(t, time.Second, "first leader", func() bool { return f.leader() == "a" })
		b := newCandidate(t, s, "b", leaderelection.Options{})
		b.start(&f)
		time.Sleep(3 * time.Second)
		stopped := time.Now()
		a.stop(t)
		if d := time.Since(stopped); d != time.Second {
			t.Errorf("a's Run returned %s after the stop, want 1 s (after its function, which winds down for a second)", d)
		}
		if heldAtEnd != "a" {
			t.Errorf("while a's function wound down the lease was held by %q: released before the function returned", heldAtEnd)
		}
		if cause := f.all()[0].cause; !errors.Is(cause, leaderelection.ErrStopped) {
			t.Errorf("a's context cause %v, want ErrStopped", cause)
		}
		if h := s.get().Holder(); h != "" {
			t.Errorf("after a stopped, the lease is held by %q", h)
		}
		released := time.Now()
		waitFor(t, leaderelection.DefaultRetryPeriod*12/10+time.Millisecond, "takeover", func() bool { return f.leader() == "b" })
		t.Logf("b took over %s after a released the lease", time.Since(released))
		if got := *s.get().Spec.LeaseTransitions; got != 1 {
			t.Errorf("leaseTransitions %d, want 1", got)
		}
		b.stop(t)
		f.check(t)
	})
}

// TestRenewFailuresStepDown: a leader whose renewals fail (500) steps down
// RenewDeadline after its last good renewal, and leads again when the
// server answers, the lease still its own (no transition).
func TestRenewFailuresStepDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		var stopped []error
		a := newCandidate(t, s, "a", leaderelection.Options{OnStoppedLeading: func(err error) { stopped = append(stopped, err) }})
		a.start(&f)
		waitFor(t, time.Second, "leader", func() bool { return f.leader() == "a" })
		time.Sleep(3 * time.Second)
		synctest.Wait()
		last := renewTime(s)
		a.client.set(fail)
		waitFor(t, time.Minute, "step down", func() bool { return f.leader() == "" })
		if got, want := f.all()[0].end, last.Add(leaderelection.DefaultRenewDeadline); !got.Equal(want) {
			t.Errorf("stepped down %s after the last renewal, want %s", got.Sub(last), want.Sub(last))
		}
		a.client.set(up)
		waitFor(t, 5*time.Second, "leading again", func() bool { return f.leader() == "a" })
		if got := *s.get().Spec.LeaseTransitions; got != 0 {
			t.Errorf("leaseTransitions %d, want 0 (the same holder)", got)
		}
		a.stop(t)
		if len(stopped) != 2 || !errors.Is(stopped[0], leaderelection.ErrLeaseLost) || !errors.Is(stopped[1], leaderelection.ErrStopped) {
			t.Errorf("OnStoppedLeading got %v, want [ErrLeaseLost ErrStopped]", stopped)
		}
		f.check(t)
	})
}

// TestAnotherHolderEndsTheTerm: when the lease is taken over behind the
// leader's back, its next renewal conflicts, it reads the lease, sees the
// other holder and stops at once.
func TestAnotherHolderEndsTheTerm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		var seen []string
		a := newCandidate(t, s, "a", leaderelection.Options{OnNewLeader: func(id string) { seen = append(seen, id) }})
		a.start(&f)
		waitFor(t, time.Second, "leader", func() bool { return f.leader() == "a" })
		l := s.get()
		intruder := "intruder"
		l.Spec.HolderIdentity = &intruder
		s.set(l)
		taken := time.Now()
		waitFor(t, leaderelection.DefaultRetryPeriod+time.Millisecond, "step down", func() bool { return f.leader() == "" })
		t.Logf("stepped down %s after the takeover", time.Since(taken))
		if cause := f.all()[0].cause; !errors.Is(cause, leaderelection.ErrLeaseLost) {
			t.Errorf("cause %v, want ErrLeaseLost", cause)
		}
		if a.el.Leader() != intruder {
			t.Errorf("Leader() = %q, want %q", a.el.Leader(), intruder)
		}
		a.stop(t)
		if h := s.get().Holder(); h != intruder {
			t.Errorf("a released a lease it no longer held: holder %q", h)
		}
		if fmt.Sprint(seen) != "[a intruder]" {
			t.Errorf("OnNewLeader saw %v, want [a intruder]", seen)
		}
	})
}

// TestSimultaneousCandidates: three candidates start at once on a lease
// that does not exist; one creates it, the others lose the race (409) and
// wait.
func TestSimultaneousCandidates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		var cs []*candidate
		for _, id := range []string{"a", "b", "c"} {
			c := newCandidate(t, s, id, leaderelection.Options{})
			c.start(&f)
			cs = append(cs, c)
		}
		time.Sleep(10 * time.Second)
		leaders := 0
		for _, c := range cs {
			if c.el.IsLeader() {
				leaders++
			}
		}
		if leaders != 1 || len(f.all()) != 1 || *s.get().Spec.LeaseTransitions != 0 {
			t.Errorf("%d leaders, %d terms, %d transitions; want 1, 1, 0", leaders, len(f.all()), *s.get().Spec.LeaseTransitions)
		}
		for _, c := range cs {
			c.stop(t)
		}
		f.check(t)
	})
}

// TestFunctionReturnsReleases: a function that returns on its own ends the
// term: the lease is released and Run returns nil. A panic does the same,
// and is logged.
func TestFunctionReturnsReleases(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(context.Context)
	}{
		{"returns", func(context.Context) {}},
		{"panics", func(context.Context) { panic("boom") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &leaseServer{}
				el, err := leaderelection.New(&leaseClient{s: s}, leaderelection.Options{Namespace: "ns", Name: "l", Identity: "a", Logger: quiet})
				if err != nil {
					t.Fatal(err)
				}
				if err := el.Run(context.Background(), tc.fn); err != nil {
					t.Errorf("Run = %v, want nil", err)
				}
				if h := s.get().Holder(); h != "" {
					t.Errorf("holder %q after the function returned, want released", h)
				}
			})
		})
	}
}

// TestRunTwice: a second Run of a running Elector fails at once; once the
// first has returned, Run works again.
func TestRunTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		el, _ := leaderelection.New(&leaseClient{s: &leaseServer{}}, leaderelection.Options{Namespace: "ns", Name: "l", Logger: quiet})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- el.Run(ctx, func(ctx context.Context) { <-ctx.Done() }) }()
		synctest.Wait()
		if err := el.Run(ctx, func(context.Context) {}); !errors.Is(err, leaderelection.ErrRunning) {
			t.Errorf("second Run = %v, want ErrRunning", err)
		}
		cancel()
		<-done
		// Once Run has returned, the Elector can run again.
		ran := false
		if err := el.Run(context.Background(), func(context.Context) { ran = true }); err != nil || !ran {
			t.Errorf("Run after the first returned = %v, function called %v; want nil, true", err, ran)
		}
	})
}

func TestOptionsValidation(t *testing.T) {
	c := &leaseClient{s: &leaseServer{}}
	for _, tc := range []struct {
		name string
		opts leaderelection.Options
	}{
		{"no name", leaderelection.Options{Namespace: "ns"}},
		{"no namespace", leaderelection.Options{Name: "l"}},
		{"renew deadline not under lease duration", leaderelection.Options{Namespace: "ns", Name: "l", LeaseDuration: 5 * time.Second, RenewDeadline: 5 * time.Second}},
		{"retry period not under renew deadline", leaderelection.Options{Namespace: "ns", Name: "l", RetryPeriod: 10 * time.Second}},
		{"lease under a second", leaderelection.Options{Namespace: "ns", Name: "l", LeaseDuration: time.Millisecond, RenewDeadline: time.Microsecond, RetryPeriod: time.Nanosecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := leaderelection.New(c, tc.opts); !errors.Is(err, leaderelection.ErrInvalidOptions) {
				t.Errorf("New = %v, want ErrInvalidOptions", err)
			}
		})
	}
	if _, err := leaderelection.New(nil, leaderelection.Options{Namespace: "ns", Name: "l"}); !errors.Is(err, leaderelection.ErrInvalidOptions) {
		t.Errorf("New(nil) = %v, want ErrInvalidOptions", err)
	}
	el, err := leaderelection.New(c, leaderelection.Options{Namespace: "ns", Name: "l"})
	if err != nil || el.Identity() == "" {
		t.Errorf("defaults: %v, identity %q", err, el.Identity())
	}
}

// TestShutdownReleaseIsBounded: on shutdown, a server that does not
// answer the release delays Run's return by ReleaseTimeout (2 s), not
// RenewDeadline (10 s); the lease is then left to expire.
func TestShutdownReleaseIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		a := newCandidate(t, s, "a", leaderelection.Options{})
		a.start(&f)
		waitFor(t, time.Second, "first leader", func() bool { return f.leader() == "a" })
		a.client.set(hang)
		stopped := time.Now()
		a.stop(t)
		if d := time.Since(stopped); d != leaderelection.ReleaseTimeout {
			t.Errorf("a's Run returned %s after the stop, the server hanging, want ReleaseTimeout (%s)", d, leaderelection.ReleaseTimeout)
		}
		if h := s.get().Holder(); h != "a" {
			t.Errorf("the lease is held by %q, want a's, left to expire", h)
		}
	})
}

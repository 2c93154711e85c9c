package leaderelection_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/leaderelection"
)

// TestRenewDeadlineFromRenewalStart: RenewDeadline is counted from the
// start of the last successful acquisition or renewal, not from its
// answer: a server that takes 3 s to answer does not stretch the term.
// The leader stops exactly RenewDeadline after the renewTime it wrote
// (the start of the request), once its later requests hang.
func TestRenewDeadlineFromRenewalStart(t *testing.T) {
	const delay = 3 * time.Second
	for _, tc := range []struct {
		name string
		slow func(s *leaseServer, c *candidate) // makes the last success slow
	}{
		{"slow acquisition", func(*leaseServer, *candidate) {}},
		{"slow renewal", func(s *leaseServer, c *candidate) {
			time.Sleep(3 * time.Second) // a few fast renewals
			synctest.Wait()
			before := renewTime(s)
			c.client.set(slow)
			waitFor(t, time.Minute, "slow renewal", func() bool { return !renewTime(s).Equal(before) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &leaseServer{}
				var f fence
				a := newCandidate(t, s, "a", leaderelection.Options{})
				a.client.delay = delay
				if tc.name == "slow acquisition" {
					a.client.set(slow)
				}
				a.start(&f)
				waitFor(t, time.Minute, "leader", func() bool { return f.leader() == "a" })
				tc.slow(s, a)
				a.client.set(hang)
				last := renewTime(s)
				if d := time.Since(last); d < delay {
					t.Fatalf("the last success was answered %s after it started, want %s", d, delay)
				}
				waitFor(t, time.Minute, "step down", func() bool { return f.leader() == "" })
				if got, want := f.all()[0].end, last.Add(leaderelection.DefaultRenewDeadline); !got.Equal(want) {
					t.Errorf("stepped down %s after the start of the last success, want RenewDeadline (%s)", got.Sub(last), want.Sub(last))
				}
				a.stop(t)
				f.check(t)
			})
		})
	}
}

// TestConflictWhileStillHolder: a write to the lease by someone else that
// leaves this leader the holder (a label added, say) makes the leader's
// next renewal conflict; it reads the lease, finds itself the holder and
// renews: it keeps leading, without a transition, and keeps the other
// writer's change.
func TestConflictWhileStillHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		var stopped []error
		var seen []string
		a := newCandidate(t, s, "a", leaderelection.Options{
			OnStoppedLeading: func(err error) { stopped = append(stopped, err) },
			OnNewLeader:      func(id string) { seen = append(seen, id) },
		})
		a.start(&f)
		waitFor(t, time.Second, "leader", func() bool { return f.leader() == "a" })
		time.Sleep(3 * time.Second)
		synctest.Wait()
		l := s.get()
		l.Labels = map[string]string{"touched": "yes"}
		s.set(l)
		touched := time.Now()
		time.Sleep(3 * leaderelection.DefaultRetryPeriod)
		synctest.Wait()
		got := s.get()
		if !a.el.IsLeader() || f.leader() != "a" || len(f.all()) != 1 || len(stopped) != 0 {
			t.Errorf("after a conflicting write that left a the holder: IsLeader %v, %d terms, OnStoppedLeading %v; want a leading in its first term", a.el.IsLeader(), len(f.all()), stopped)
		}
		if !got.Spec.RenewTime.After(touched) || got.Holder() != "a" || *got.Spec.LeaseTransitions != 0 {
			t.Errorf("lease holder %q renewed %s, transitions %d; want a's, renewed after the other write, 0", got.Holder(), got.Spec.RenewTime.Sub(touched), *got.Spec.LeaseTransitions)
		}
		if got.Labels["touched"] != "yes" {
			t.Errorf("the renewal dropped the other writer's label: %v", got.Labels)
		}
		a.stop(t)
		if fmt.Sprintf("%q", seen) != `["a" ""]` {
			t.Errorf("OnNewLeader saw %q, want [a \"\"] (a, then nobody once a released the lease at its stop)", seen)
		}
		f.check(t)
	})
}

// TestStopWhileSeeingAnotherHolder: a leader whose Run is stopped just as
// its renewal finds the lease taken by another candidate stops (cause
// ErrStopped) and releases nothing: the lease it would release is the new
// holder's, not its own.
func TestStopWhileSeeingAnotherHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		a := newCandidate(t, s, "a", leaderelection.Options{})
		a.start(&f)
		waitFor(t, time.Second, "leader", func() bool { return f.leader() == "a" })
		synctest.Wait()
		l := s.get()
		intruder := "intruder"
		l.Spec.HolderIdentity = &intruder
		s.set(l)
		taken := s.get()
		stop := func() { a.cancel() } // as a's renewal reads the new holder
		a.client.onGet.Store(&stop)
		waitFor(t, time.Minute, "step down", func() bool { return len(f.all()) == 1 && !f.last().end.IsZero() })
		a.stop(t)
		if cause := f.last().cause; !errors.Is(cause, leaderelection.ErrStopped) {
			t.Fatalf("a's context cause %v, want ErrStopped (Run stopped as the renewal saw the other holder)", cause)
		}
		if got := s.get(); got.Holder() != intruder || got.ResourceVersion != taken.ResourceVersion {
			t.Errorf("after a stopped, the lease is held by %q at resourceVersion %s; want %s's, untouched at %s", got.Holder(), got.ResourceVersion, intruder, taken.ResourceVersion)
		}
	})
}

// TestLeaseDurationAsWritten: the holder writes its LeaseDuration into the
// lease rounded up to whole seconds (2.5 s is 3), and a waiting candidate
// with another LeaseDuration (the default 15 s) waits what the lease says:
// it takes over from a partitioned holder 3 s after it last saw the lease
// change, not 15 s.
func TestLeaseDurationAsWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		a := newCandidate(t, s, "a", leaderelection.Options{LeaseDuration: 2500 * time.Millisecond, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond})
		a.start(&f)
		waitFor(t, time.Second, "leader", func() bool { return f.leader() == "a" })
		b := newCandidate(t, s, "b", leaderelection.Options{})
		b.start(&f)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if d := s.get().Spec.LeaseDurationSeconds; d == nil || *d != 3 {
			t.Errorf("leaseDurationSeconds %v, want 3 (2.5 s rounded up)", d)
		}
		last := renewTime(s)
		a.client.set(hang)
		waitFor(t, time.Minute, "takeover", func() bool { return f.leader() == "b" })
		// b saw the last change at its first poll after it: within one
		// jittered RetryPeriod (b's: 2 s).
		took := f.last().start.Sub(last)
		if took < 3*time.Second || took > 3*time.Second+leaderelection.DefaultRetryPeriod*12/10 {
			t.Errorf("b took over %s after a's last renewal, want 3 s (the lease's duration) plus at most one RetryPeriod of b", took)
		}
		a.stop(t)
		b.stop(t)
		f.check(t)
	})
}

// TestOneRequestPerRenewal: a leader renews from the lease it last wrote,
// without reading it first: one request per renewal (after the first Get
// and Create).
func TestOneRequestPerRenewal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		var f fence
		a := newCandidate(t, s, "a", leaderelection.Options{})
		a.start(&f)
		time.Sleep(11 * time.Second)
		synctest.Wait()
		s.mu.Lock()
		writes := s.writes
		s.mu.Unlock()
		if calls := a.client.calls.Load(); writes < 5 || calls != int64(writes)+1 {
			t.Errorf("%d requests for %d writes (a create and %d renewals), want one per write and the first Get", calls, writes, writes-1)
		}
		a.stop(t)
	})
}

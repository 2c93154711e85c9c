package ring_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/shard/ring"
)

// Claims as AnnotationClaim writes them.
const (
	claimAll        = "0000000000000000-10000000000000000"
	claimFirstHalf  = "0000000000000000-8000000000000000"
	claimSecondHalf = "8000000000000000-10000000000000000"
)

// putLease writes member id's Lease into st by hand, as a renewal does (a
// new resourceVersion), claiming claim.
func putLease(st *store, id, claim string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.rv++
	l := &leaderelection.Lease{}
	l.Namespace, l.Name, l.ResourceVersion = "ns", "ctl-"+id, strconv.Itoa(st.rv)
	l.Labels = map[string]string{ring.LabelRing: "ctl"}
	l.Annotations = map[string]string{ring.AnnotationClaim: claim}
	l.Spec.HolderIdentity = &id
	st.leases["ns/ctl-"+id] = l
}

// runMember runs member id over c with the test durations until the test
// ends.
func runMember(t *testing.T, c *client, id string, incremental bool, work func(context.Context, ring.Assignment)) *ring.Member {
	m, err := ring.New(c, ring.Options{Namespace: "ns", Name: "ctl", Identity: id,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod, Incremental: incremental,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, work) }()
	t.Cleanup(func() { cancel(); <-done })
	return m
}

// TestRingPollsWhileWaiting: a member waiting for another to release
// ranges it is to take reads the Leases every RetryPeriod/4, so that it
// starts soon after the release, and back at every RetryPeriod once it
// has waited LeaseDuration.
func TestRingPollsWhileWaiting(t *testing.T) {
	// wait starts b while a, renewing, claims everything; it returns b,
	// its client, its work's recorder and keep, which renews a's Lease
	// every RetryPeriod/2 for d and returns how many times b read the
	// Leases meanwhile.
	wait := func(t *testing.T) (*ring.Member, *recorder, func(time.Duration, string) int64) {
		st := newStore()
		putLease(st, "a", claimAll)
		c := &client{s: st}
		rec := &recorder{}
		m := runMember(t, c, "b", false, rec.work)
		return m, rec, func(d time.Duration, claim string) int64 {
			n := c.lists.Load()
			for end := time.Now().Add(d); time.Now().Before(end); {
				putLease(st, "a", claim)
				time.Sleep(retryPeriod / 2)
			}
			return c.lists.Load() - n
		}
	}
	t.Run("released", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m, rec, keep := wait(t)
			if n := keep(time.Second, claimAll); n < 6 {
				t.Errorf("b read the Leases %d times in 1 s while waiting for a's release, want every RetryPeriod/4 (%s)", n, retryPeriod/4)
			}
			if got := m.Health().Ranges; !got.Empty() {
				t.Fatalf("b works %v while a claims everything", got)
			}
			released := time.Now()
			keep(retryPeriod, claimFirstHalf)
			if got := m.Health().Ranges; !got.Equal(shard.NewSet(shard.Split(2, 1))) {
				t.Fatalf("b works %v %s after a released the second half, want it", got, retryPeriod)
			}
			if d := rec.lastStart("b").Sub(released); d > retryPeriod/4 {
				t.Errorf("b started %s after the release, want within RetryPeriod/4", d)
			}
		})
	})
	t.Run("never released", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			_, _, keep := wait(t)
			keep(leaseDuration, claimAll)
			if n := keep(time.Second, claimAll); n > 3 {
				t.Errorf("b read the Leases %d times in 1 s after waiting LeaseDuration, want every RetryPeriod (%s)", n, retryPeriod)
			}
		})
	})
}

// TestRingWakesAtExpiry: a member takes a dead member's ranges the moment
// its Lease expires (LeaseDuration after the member first read its last
// version), not at its next renewal.
func TestRingWakesAtExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStore()
		var mu sync.Mutex
		var lists []time.Time
		c := &client{s: st, onList: func(int) {
			mu.Lock()
			lists = append(lists, time.Now())
			mu.Unlock()
		}}
		rec := &recorder{}
		putLease(st, "a", claimFirstHalf)
		m := runMember(t, c, "b", false, rec.work)
		for range 8 { // a renews, b works the second half
			time.Sleep(retryPeriod * 3 / 7)
			putLease(st, "a", claimFirstHalf)
		}
		last := time.Now() // a dies
		for !m.Health().Ranges.IsAll() {
			if time.Since(last) > 2*leaseDuration {
				t.Fatalf("b works %v %s after a died", m.Health().Ranges, time.Since(last))
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		var seen time.Time // b's first read of a's last version
		for _, l := range lists {
			if !l.Before(last) {
				seen = l
				break
			}
		}
		if d := rec.lastStart("b").Sub(seen.Add(leaseDuration)); d < 0 || d > time.Millisecond {
			t.Fatalf("b took a's range %s after a's Lease expired (by b's reading), want at once", d)
		}
	})
}

// TestRingIncrementalHealth: with Options.Incremental, Health reports the
// union of the pieces' ranges, synced only once every piece has called
// Synced.
func TestRingIncrementalHealth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStore()
		putLease(st, "a", claimFirstHalf)
		gate := make(chan struct{})
		m := runMember(t, &client{s: st}, "b", true, func(ctx context.Context, a ring.Assignment) {
			if a.Ranges.Overlaps(shard.NewSet(shard.Split(2, 0))) {
				select { // the piece taken from a syncs slowly
				case <-gate:
				case <-ctx.Done():
					return
				}
			}
			a.Synced()
			<-ctx.Done()
		})
		for range 4 {
			time.Sleep(retryPeriod / 2)
			putLease(st, "a", claimFirstHalf)
		}
		if h := m.Health(); !h.Synced || !h.Ranges.Equal(shard.NewSet(shard.Split(2, 1))) {
			t.Fatalf("b: synced %v over %v, want synced over the second half", h.Synced, h.Ranges)
		}
		time.Sleep(2 * leaseDuration) // a is dead: b takes the first half too
		if h := m.Health(); h.Synced || !h.Ranges.IsAll() {
			t.Fatalf("b: synced %v over %v, want not synced over everything (one piece has not synced)", h.Synced, h.Ranges)
		}
		close(gate)
		synctest.Wait()
		if h := m.Health(); !h.Synced || !h.Ranges.IsAll() {
			t.Fatalf("b: synced %v over %v, want synced over everything", h.Synced, h.Ranges)
		}
	})
}

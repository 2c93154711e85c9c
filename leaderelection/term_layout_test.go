package leaderelection_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/workqueue"
)

// The README's controller layout: one queue, made once, whose Run is
// called inside elector.Run. After the lease is lost and regained, the
// second term reconciles what changed meanwhile, and Run goes on
// campaigning (before workqueue.Queue.Run could run again, the second
// term's Run returned at once, the elector released the lease and Run
// returned nil).
func TestReadmeLayoutSurvivesALostTerm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &leaseServer{}
		c := newCandidate(t, s, "a", leaderelection.Options{})
		q := workqueue.New(workqueue.Options[string]{Logger: quiet})
		var mu sync.Mutex
		var done []string
		terms := 0
		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan error, 1)
		go func() {
			ran <- c.el.Run(ctx, func(ctx context.Context) {
				mu.Lock()
				terms++
				mu.Unlock()
				_ = q.Run(ctx, 2, func(_ context.Context, key string) error {
					mu.Lock()
					done = append(done, key)
					mu.Unlock()
					return nil
				})
			})
		}()
		q.Add("before")
		synctest.Wait()
		if !c.el.IsLeader() {
			t.Fatal("a does not lead")
		}

		// Another candidate takes the lease: a sees it at its next
		// renewal and steps down.
		l := s.get()
		l.Spec.HolderIdentity = layoutPtr("b")
		s.set(l)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if c.el.IsLeader() {
			t.Fatal("a still leads after b took the lease")
		}
		q.Add("between") // a change while b leads

		// b stops renewing: a takes over after LeaseDuration (15 s).
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if !c.el.IsLeader() {
			t.Fatal("a did not lead again")
		}
		q.Add("after")
		synctest.Wait()
		mu.Lock()
		got, n := slices.Clone(done), terms
		mu.Unlock()
		if n != 2 || !slices.Equal(got, []string{"before", "between", "after"}) {
			t.Errorf("terms %d, reconciled %v; want 2 terms and [before between after]", n, got)
		}
		select {
		case err := <-ran:
			t.Fatalf("Run returned during the second term: %v", err)
		default:
		}
		cancel()
		if err := <-ran; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v", err)
		}
	})
}

func layoutPtr[T any](v T) *T { return &v }

package workqueue_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	"github.com/informer-go/informer/workqueue"
)

// A reconcile that returns RequeueAfter (also wrapped) is called again
// after that delay, with its backoff forgotten, not logged, not passed to
// OnError and not counted as a retry.
func TestRequeueAfterIsNotAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs strings.Builder
		var mu sync.Mutex
		var at []time.Duration
		var errs, retries int
		start := time.Now()
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.ExponentialBackoff[string](time.Second, time.Minute),
			Logger:      slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil)),
			OnError:     func(string, error) { mu.Lock(); errs++; mu.Unlock() },
			Metrics:     workqueue.Metrics[string]{Retry: func(string) { mu.Lock(); retries++; mu.Unlock() }},
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- q.Run(ctx, 1, func(context.Context, string) error {
				mu.Lock()
				defer mu.Unlock()
				at = append(at, time.Since(start))
				switch len(at) {
				case 1:
					return fmt.Errorf("failed") // backoff 1 s
				case 2:
					return workqueue.RequeueAfter(30 * time.Second)
				case 3:
					return fmt.Errorf("waiting for the load balancer: %w", workqueue.RequeueAfter(10*time.Second))
				}
				return fmt.Errorf("failed again") // backoff 1 s: the first was forgotten
			})
		}()
		q.Add("k")
		time.Sleep(42 * time.Second)
		synctest.Wait()
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		want := []time.Duration{0, time.Second, 31 * time.Second, 41 * time.Second, 42 * time.Second}
		if !slices.Equal(at, want) {
			t.Errorf("calls at %v, want %v", at, want)
		}
		// Failures at 0, 41 s and 42 s; the requeues are none.
		if errs != 3 || retries != 3 {
			t.Errorf("OnError %d times, Retry %d times; want 3 and 3 (the failures only)", errs, retries)
		}
		if n := strings.Count(logs.String(), "reconcile failed"); n != 3 {
			t.Errorf("%d failures logged, want 3:\n%s", n, logs.String())
		}
		if !strings.Contains(logs.String(), `00:00:41.000Z level=WARN msg="workqueue: reconcile failed; retrying" key=k retries=0`) {
			t.Errorf("the failure after the requeues does not start a new backoff (retries=0):\n%s", logs.String())
		}
	})
}

// EnqueueOptions.Update skips the updates it refuses; adds and deletes
// are enqueued regardless.
func TestEnqueueUpdatePredicate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*widget](memory.Options{})
		src.Create(newWidget("a", "", nil))
		inf := informer.New(src, informer.Options[*widget]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		q := workqueue.New(workqueue.Options[string]{})
		ownerChanged := func(old, new *widget) bool { return old.Owner != new.Owner }
		reg, err := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[*widget]{Update: ownerChanged})
		if err != nil {
			t.Fatal(err)
		}
		go inf.Run(t.Context())
		if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
			t.Fatal(err)
		}
		if got := queued(t, q); !slices.Equal(got, []string{"ns/a"}) {
			t.Fatalf("add: %v", got)
		}
		src.Update(newWidget("a", "", map[string]string{"v": "2"})) // refused
		synctest.Wait()
		if got := queued(t, q); len(got) != 0 {
			t.Fatalf("an update the predicate refused was enqueued: %v", got)
		}
		src.Update(newWidget("a", "x", map[string]string{"v": "2"}))
		synctest.Wait()
		if got := queued(t, q); !slices.Equal(got, []string{"ns/a"}) {
			t.Fatalf("an update the predicate accepted: %v", got)
		}
		src.Delete("ns/a")
		synctest.Wait()
		if got := queued(t, q); !slices.Equal(got, []string{"ns/a"}) {
			t.Fatalf("delete: %v", got)
		}
	})
}

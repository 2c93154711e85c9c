package workqueue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/workqueue"
)

func TestRunRetriesWithBackoffAndForgets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var attempts []time.Duration // when each attempt of "flaky" ran
		var reported []error
		start := time.Now()
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.ExponentialBackoff[string](time.Second, time.Minute),
			Logger:      slog.New(slog.DiscardHandler),
			OnError:     func(_ string, err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() },
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- q.Run(ctx, 2, func(_ context.Context, key string) error {
				mu.Lock()
				defer mu.Unlock()
				attempts = append(attempts, time.Since(start))
				if len(attempts) < 4 {
					return fmt.Errorf("attempt %d", len(attempts))
				}
				return nil
			})
		}()
		q.Add("flaky")
		time.Sleep(time.Hour)
		synctest.Wait()
		mu.Lock()
		want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second}
		if fmt.Sprint(attempts) != fmt.Sprint(want) {
			t.Errorf("attempts at %v, want %v (1s, 2s, 4s backoff)", attempts, want)
		}
		if len(reported) != 3 {
			t.Errorf("OnError got %d errors, want 3", len(reported))
		}
		mu.Unlock()
		if n := q.NumRequeues("flaky"); n != 0 {
			t.Errorf("NumRequeues after success = %d, want 0 (forgotten)", n)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v", err)
		}
		if q.ShuttingDown() {
			t.Error("Run shut the queue down: it could not run again")
		}
	})
}

func TestRunRecoversPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs strings.Builder
		var mu sync.Mutex
		var perr *workqueue.PanicError
		q := workqueue.New(workqueue.Options[string]{
			Name:        "widgets",
			RateLimiter: workqueue.ExponentialBackoff[string](time.Second, time.Second),
			Logger:      slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil)),
			OnError: func(_ string, err error) {
				mu.Lock()
				defer mu.Unlock()
				errors.As(err, &perr)
			},
		})
		calls := 0
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- q.Run(ctx, 1, func(context.Context, string) error {
				calls++
				if calls == 1 {
					panic("secret-value-42")
				}
				return nil
			})
		}()
		q.Add("ns/a")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		if calls != 2 {
			t.Errorf("calls = %d, want 2 (the panic is retried)", calls)
		}
		if perr == nil || perr.Value != "secret-value-42" || len(perr.Stack) == 0 {
			t.Errorf("PanicError = %+v", perr)
		}
		out := logs.String()
		if !strings.Contains(out, "panicked") || !strings.Contains(out, "ns/a") || !strings.Contains(out, "queue=widgets") {
			t.Errorf("log does not report the panic with key and queue: %s", out)
		}
		if strings.Contains(out, "secret-value-42") || strings.Contains(perr.Error(), "secret-value-42") {
			t.Errorf("the panic value leaked into a log or error: %s", out)
		}
	})
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestRunReturnsWithNoGoroutineLeft(t *testing.T) {
	// synctest.Test fails if a goroutine of the bubble is left blocked.
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		ctx, cancel := context.WithCancel(t.Context())
		inReconcile := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- q.Run(ctx, 4, func(ctx context.Context, _ string) error {
				close(inReconcile)
				<-ctx.Done() // a reconcile that honours ctx
				return ctx.Err()
			})
		}()
		q.AddAfter("slow", time.Minute)
		q.AddAfter("later", time.Hour)
		<-inReconcile
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v", err)
		}
	})
}

// One queue serves two terms of a leader: Run returns when the first
// term's context ends, keeps what was queued, delayed or backing off
// meanwhile, and a second Run reconciles it. With the old Run, which shut
// the queue down, the second Run returned nil at once.
func TestRunAgainAfterContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var seen []string
		failOnce := true
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.ExponentialBackoff[string](time.Second, time.Minute),
			Logger:      slog.New(slog.DiscardHandler),
		})
		reconcile := func(_ context.Context, key string) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, key)
			if key == "flaky" && failOnce {
				failOnce = false
				return errors.New("not yet")
			}
			return nil
		}
		term := func(keys ...string) error {
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- q.Run(ctx, 2, reconcile) }()
			for _, k := range keys {
				q.Add(k)
			}
			synctest.Wait()
			cancel()
			return <-done
		}
		if err := term("a", "flaky"); !errors.Is(err, context.Canceled) {
			t.Fatalf("first term: Run = %v", err)
		}
		// Between terms: a change, and a key delayed; "flaky" backs off.
		q.Add("b")
		q.AddAfter("c", time.Minute)
		time.Sleep(2 * time.Minute)
		if err := term(); !errors.Is(err, context.Canceled) {
			t.Fatalf("second term: Run = %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if got, want := fmt.Sprint(seen), "[a flaky b flaky c]"; got != want {
			// b was added at once, flaky's retry was due after a second
			// and c after a minute.
			t.Errorf("reconciled %v, want %v", got, want)
		}
		if q.ShuttingDown() || q.Len() != 0 {
			t.Errorf("after two terms: ShuttingDown %v, Len %d", q.ShuttingDown(), q.Len())
		}
		q.ShutDown()
		if err := q.Run(t.Context(), 1, reconcile); err != nil {
			t.Errorf("Run of a shut down, drained queue = %v, want nil", err)
		}
	})
}

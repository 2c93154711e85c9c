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
		if !q.ShuttingDown() {
			t.Error("Run returned without shutting the queue down")
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

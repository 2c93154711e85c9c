package kube

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// inMemorySource returns a Source whose requests h serves without a
// network, for synctest bubbles.
func inMemorySource(t *testing.T, h http.Handler, opts Options) *Source[*kubefixture.Widget] {
	t.Helper()
	opts.HTTPClient = &http.Client{Transport: handlerTransport(h)}
	src, err := New[*kubefixture.Widget](&kube.Config{Host: "https://apiserver.test"}, widgetRes, opts)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestRateLimiterPaces: with 10 QPS and a burst of 2, five lists take
// 300 ms.
func TestRateLimiterPaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := inMemorySource(t, serveJSON(200, kubefixture.ListJSON("1", "")), Options{QPS: 10, Burst: 2})
		start := time.Now()
		for range 5 {
			if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 300*time.Millisecond {
			t.Errorf("5 lists took %v, want 300ms", d)
		}
	})
}

// TestRateLimiterDefaultsAndShared: the default limiter lets a burst of
// 100 through at once; a shared limiter paces two Sources together.
func TestRateLimiterDefaultsAndShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := inMemorySource(t, serveJSON(200, kubefixture.ListJSON("1", "")), Options{})
		start := time.Now()
		for range 100 {
			if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("a burst of 100 took %v", d)
		}
		if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 20*time.Millisecond {
			t.Errorf("the 101st list came after %v, want 20ms (50 QPS)", d)
		}

		shared := kube.NewRateLimiter(1, 1)
		a := inMemorySource(t, serveJSON(200, kubefixture.ListJSON("1", "")), Options{RateLimiter: shared})
		b := inMemorySource(t, serveJSON(200, kubefixture.ListJSON("1", "")), Options{RateLimiter: shared})
		start = time.Now()
		for _, s := range []*Source[*kubefixture.Widget]{a, b, a} {
			if _, err := s.List(t.Context(), informer.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("three lists through a shared 1 QPS limiter took %v, want 2s", d)
		}
	})
}

// TestRateLimiterCancel: a wait ends with the context, and gives its
// token back.
func TestRateLimiterCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := kube.NewRateLimiter(1, 1)
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait: %v", err)
		}
		// The cancelled wait gave its token back: the next one waits for
		// the refill of one token (1 s after the first), not two.
		start := time.Now()
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 900*time.Millisecond {
			t.Errorf("waited %v, want 900ms", d)
		}
		if err := kube.NewRateLimiter(-1, 0).Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Wait with an ended context: %v", err)
		}
	})
}

// TestRetryAfterHolds: a 429 with Retry-After returns at once with the
// delay in the error; the next request waits it out (capped at a minute).
func TestRetryAfterHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		retryAfter := "2"
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1)%2 == 1 {
				w.Header().Set("Retry-After", retryAfter)
				serveJSON(429, kubefixture.StatusJSON(429, "TooManyRequests", "slow down"))(w, r)
				return
			}
			serveJSON(200, kubefixture.ListJSON("1", ""))(w, r)
		})
		src := inMemorySource(t, h, Options{QPS: -1})
		start := time.Now()
		_, err := src.List(t.Context(), informer.ListOptions{})
		var ae *kube.APIError
		if !errors.As(err, &ae) || ae.RetryAfter != 2*time.Second || !errors.Is(err, kube.ErrTooManyRequests) {
			t.Fatalf("first list: %v", err)
		}
		if time.Since(start) != 0 {
			t.Errorf("the error took %v", time.Since(start))
		}
		if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("the next list came after %v, want 2s", d)
		}

		retryAfter = time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)
		start = time.Now()
		if _, err := src.List(t.Context(), informer.ListOptions{}); !errors.As(err, &ae) || ae.RetryAfter != 2*time.Hour {
			t.Fatalf("third list: %v", err)
		}
		// The watch waits too, capped at a minute.
		w, err := src.Watch(t.Context(), informer.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if d := time.Since(start); d != time.Minute {
			t.Errorf("the watch came after %v, want 1m", d)
		}
	})
}

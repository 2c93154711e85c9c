package kube

import (
	"context"
	"sync"
	"time"

	"github.com/informer-go/informer/internal/kubewire"

	"github.com/informer-go/informer/internal/tokenbucket"
)

// maxRetryAfterHold is the longest a RateLimiter holds requests back for a
// server's Retry-After.
const maxRetryAfterHold = time.Minute

// RateLimiter paces the requests of one or more Sources on the client
// side: a token bucket that holds Burst tokens and refills at QPS tokens a
// second, each request taking one. It also holds every request back while
// a server's Retry-After (from a 429 or 5xx answer to any of them) has not
// passed, up to a minute.
//
// Share one RateLimiter between the Sources of one server (through
// Options.RateLimiter) to bound their requests together. It is safe for
// concurrent use.
type RateLimiter struct {
	mu        sync.Mutex
	bucket    tokenbucket.Bucket
	notBefore time.Time
}

// NewRateLimiter returns a RateLimiter allowing qps requests a second on
// average and burst at once. A qps of zero or less means no limit (only
// Retry-After holds requests back); a burst below 1 means 1.
func NewRateLimiter(qps float64, burst int) *RateLimiter {
	return &RateLimiter{bucket: tokenbucket.New(qps, burst)}
}

// Wait blocks until a request may be sent, or until ctx ends, when it
// returns an error wrapping ctx.Err() and its cause, and gives the token
// back.
func (l *RateLimiter) Wait(ctx context.Context) error {
	if err := kubewire.ContextError(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	now := time.Now()
	took := !l.bucket.Unlimited()
	wait := l.bucket.Take(now)
	if d := l.notBefore.Sub(now); d > wait {
		wait = d
	}
	l.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		if took {
			l.mu.Lock()
			l.bucket.Return()
			l.mu.Unlock()
		}
		return kubewire.ContextError(ctx)
	}
}

// HoldFor holds every request back for d from now, at most a minute:
// what a server's Retry-After asks for. The Sources and Clients that
// share the limiter call it on a 429 or 5xx answer with Retry-After.
func (l *RateLimiter) HoldFor(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.Now().Add(min(d, maxRetryAfterHold))
	l.mu.Lock()
	if t.After(l.notBefore) {
		l.notBefore = t
	}
	l.mu.Unlock()
}

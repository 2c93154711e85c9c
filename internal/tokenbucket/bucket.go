// Package tokenbucket is the token bucket behind source/kube's request
// limiter and workqueue's per-queue rate limiter: Burst tokens, refilled at
// Rate tokens a second, each taker taking one and waiting, when the bucket
// is empty, for the time its token takes to be refilled.
package tokenbucket

import (
	"math"
	"time"
)

// Bucket is a token bucket. Its zero value is unlimited. It is not safe
// for concurrent use: its owner holds a lock around its calls.
type Bucket struct {
	rate   float64 // tokens a second; 0 means unlimited
	burst  float64
	tokens float64
	last   time.Time
}

// New returns a full bucket of burst tokens refilled at rate tokens a
// second. A rate of zero or less, infinite or NaN means unlimited; a burst
// below 1 means 1.
func New(rate float64, burst int) Bucket {
	if rate <= 0 || math.IsInf(rate, 1) || math.IsNaN(rate) {
		rate = 0
	}
	b := float64(max(burst, 1))
	return Bucket{rate: rate, burst: b, tokens: b}
}

// Unlimited reports whether the bucket never makes a taker wait.
func (b *Bucket) Unlimited() bool { return b.rate == 0 }

// Take takes one token at now and returns how long the taker must wait
// for it: 0 when one was in the bucket. Tokens taken ahead of time are
// owed, so takers that do not wait still pay: n takes at once with an
// empty bucket return waits of 1/rate, 2/rate, ... n/rate.
func (b *Bucket) Take(now time.Time) time.Duration {
	if b.rate == 0 {
		return 0
	}
	if !b.last.IsZero() && now.After(b.last) {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	if now.After(b.last) {
		b.last = now
	}
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// Return gives back a token taken by Take whose taker did not use it.
func (b *Bucket) Return() {
	if b.rate != 0 {
		b.tokens = min(b.burst, b.tokens+1)
	}
}

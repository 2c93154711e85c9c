package informer

import (
	"math/rand/v2"
	"time"
)

// Backoff is a capped, jittered exponential backoff. The zero value means
// the documented defaults.
type Backoff struct {
	// Initial is the first delay; default 100ms, so that a short burst
	// of failures (an API server answering 500 or 429 for a moment) costs
	// well under a second, while a longer outage is still retried ever
	// less often (the delay doubles up to Max within a minute).
	Initial time.Duration
	// Max caps the delay before jitter; default 30s.
	Max time.Duration
	// Factor multiplies the delay after each failure; default 2.
	Factor float64
	// Jitter adds up to Jitter×delay at random; default 1.0 (so a delay d
	// becomes a value in [d, 2d)). A negative value means no jitter.
	Jitter float64
	// ResetAfter forgets earlier failures once this long has passed without
	// one, so a healthy run starts again from Initial; default 2m.
	ResetAfter time.Duration
}

func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = 100 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 30 * time.Second
	}
	if b.Factor < 1 {
		b.Factor = 2
	}
	if b.Jitter == 0 {
		b.Jitter = 1
	}
	if b.Jitter < 0 {
		b.Jitter = 0
	}
	if b.ResetAfter <= 0 {
		b.ResetAfter = 2 * time.Minute
	}
	return b
}

// backoff is the state of one Backoff policy.
type backoff struct {
	Backoff
	next        time.Duration
	lastFailure time.Time
}

func newBackoff(b Backoff) *backoff { return &backoff{Backoff: b.withDefaults()} }

// delay records a failure at now and returns how long to wait.
func (b *backoff) delay(now time.Time) time.Duration {
	if b.next == 0 || now.Sub(b.lastFailure) >= b.ResetAfter {
		b.next = b.Initial
	}
	b.lastFailure = now
	d := b.next
	b.next = min(time.Duration(float64(b.next)*b.Factor), b.Max)
	if b.Jitter > 0 {
		d += time.Duration(rand.Float64() * b.Jitter * float64(d))
	}
	return d
}

// reset forgets earlier failures.
func (b *backoff) reset() { b.next = 0 }

package workqueue

import (
	"math"
	"sync"
	"time"

	"github.com/informer-go/informer/internal/tokenbucket"
)

// RateLimiter decides how long a key waits before it is retried. Its
// methods may be called concurrently, and never under the queue's lock.
type RateLimiter[K comparable] interface {
	// When returns how long key should wait before its next attempt,
	// counting the attempt.
	When(key K) time.Duration
	// Forget clears what the limiter remembers of key: its next When
	// starts anew.
	Forget(key K)
	// NumRequeues returns how many times When was called for key since
	// it was last forgotten.
	NumRequeues(key K) int
}

// Defaults of DefaultRateLimiter, those of client-go's default controller
// rate limiter.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = 1000 * time.Second
	DefaultQPS       = 10
	DefaultBurst     = 100
)

// DefaultRateLimiter returns the limiter of client-go's default
// controller queue: the larger of a per-key exponential backoff from
// DefaultBaseDelay to DefaultMaxDelay and an overall token bucket of
// DefaultQPS and DefaultBurst.
func DefaultRateLimiter[K comparable]() RateLimiter[K] {
	return MaxOf(
		ExponentialBackoff[K](DefaultBaseDelay, DefaultMaxDelay),
		TokenBucket[K](DefaultQPS, DefaultBurst),
	)
}

// Exponential is a per-key exponential backoff: the n-th When of a key
// since it was forgotten returns base·2ⁿ⁻¹, capped at max.
type Exponential[K comparable] struct {
	base, max time.Duration
	mu        sync.Mutex
	failures  map[K]int
}

// ExponentialBackoff returns a per-key exponential backoff from base to
// max.
func ExponentialBackoff[K comparable](base, max time.Duration) *Exponential[K] {
	return &Exponential[K]{base: base, max: max, failures: make(map[K]int)}
}

// When returns base·2ⁿ⁻¹ for the n-th call for key, capped at max.
func (e *Exponential[K]) When(key K) time.Duration {
	e.mu.Lock()
	n := e.failures[key]
	e.failures[key] = n + 1
	e.mu.Unlock()
	d := float64(e.base) * math.Pow(2, float64(n))
	if d > float64(e.max) || math.IsInf(d, 1) || math.IsNaN(d) {
		return e.max
	}
	return time.Duration(d)
}

// Forget resets key's backoff.
func (e *Exponential[K]) Forget(key K) {
	e.mu.Lock()
	delete(e.failures, key)
	e.mu.Unlock()
}

// NumRequeues returns how many times When was called for key since it was
// forgotten.
func (e *Exponential[K]) NumRequeues(key K) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failures[key]
}

// Bucket is an overall token bucket: every When, whatever its key, takes a
// token, and waits when there is none for the time its token takes to be
// refilled. It bounds the rate of retries of all keys together.
type Bucket[K comparable] struct {
	mu sync.Mutex
	b  tokenbucket.Bucket
}

// TokenBucket returns a Bucket refilled at qps tokens a second, holding
// burst at most. A qps of zero or less means no limit.
func TokenBucket[K comparable](qps float64, burst int) *Bucket[K] {
	return &Bucket[K]{b: tokenbucket.New(qps, burst)}
}

// When takes a token and returns how long to wait for it.
func (b *Bucket[K]) When(K) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Take(time.Now())
}

// Forget does nothing: the bucket keeps no per-key state.
func (b *Bucket[K]) Forget(K) {}

// NumRequeues returns 0: the bucket keeps no per-key state.
func (b *Bucket[K]) NumRequeues(K) int { return 0 }

// maxOf is the combinator returned by MaxOf.
type maxOf[K comparable] []RateLimiter[K]

// MaxOf returns a limiter whose When is the longest of its limiters'
// (each of which counts the call), whose Forget forgets in all of them,
// and whose NumRequeues is the largest of theirs.
func MaxOf[K comparable](limiters ...RateLimiter[K]) RateLimiter[K] {
	return maxOf[K](limiters)
}

func (m maxOf[K]) When(key K) time.Duration {
	var d time.Duration
	for _, l := range m {
		d = max(d, l.When(key))
	}
	return d
}

func (m maxOf[K]) Forget(key K) {
	for _, l := range m {
		l.Forget(key)
	}
}

func (m maxOf[K]) NumRequeues(key K) int {
	n := 0
	for _, l := range m {
		n = max(n, l.NumRequeues(key))
	}
	return n
}

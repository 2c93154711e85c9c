package workqueue

import (
	"context"
	"errors"
	"github.com/informer-go/informer/internal/ring"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ErrShutDown is returned by Get once the queue is shut down and holds no
// more items to hand out.
var ErrShutDown = errors.New("workqueue: shut down")

// Options configures a Queue. The zero value means the documented
// defaults.
type Options[K comparable] struct {
	// Name identifies the queue in logs.
	Name string
	// RateLimiter decides the delay of AddRateLimited; nil means
	// DefaultRateLimiter[K](), the per-item exponential backoff and the
	// overall token bucket of client-go's default controller queue.
	RateLimiter RateLimiter[K]
	// Metrics receives the queue's measurements; its zero value measures
	// nothing, and takes no timestamps.
	Metrics Metrics[K]
	// Logger receives Run's reports of failed and panicking reconciles;
	// nil means slog.Default().
	Logger *slog.Logger
	// OnError, when set, is called by Run with each error a reconcile
	// returned (a panic arrives as a *PanicError), from the worker's
	// goroutine, before the key is added back with AddRateLimited.
	OnError func(key K, err error)
}

// Item states, as bits of entry.flags.
const (
	queued     uint8 = 1 << iota // in the FIFO, waiting for Get
	processing                   // handed out by Get, Done not yet called
	dirty                        // added while processing: queued again at Done
)

// entry is a key's state; since is when it was queued (for Latency) or
// handed out (for WorkDuration and LongestRunning), when timed.
type entry struct {
	flags uint8
	since time.Time
}

// Queue is a work queue of keys: see the package documentation for its
// guarantees. Create one with New; it is safe for concurrent use.
type Queue[K comparable] struct {
	opts    Options[K]
	log     *slog.Logger
	limiter RateLimiter[K]
	timed   bool // a Metrics callback needs timestamps

	mu       sync.Mutex
	items    map[K]entry // every key queued, processing or both
	fifo     ring.Ring[K]
	running  int // keys processing
	waiting  int // Gets waiting for a key
	shutting bool
	drained  chan struct{} // closed when shut down with nothing left
	delay    delays[K]

	wake chan struct{} // a token that work may be waiting: capacity 1
	done chan struct{} // closed by ShutDown

	// The depth reported to Metrics.Depth: see reportDepth.
	depth      atomic.Int64 // fifo.Len() after the last change
	depthStale atomic.Bool  // a change not yet reported
	reporting  atomic.Bool  // a goroutine is calling Metrics.Depth
}

// New returns an empty queue. It starts no goroutine: AddAfter arms one
// timer, whose callback runs only when an item is due.
func New[K comparable](opts Options[K]) *Queue[K] {
	q := &Queue[K]{
		opts:    opts,
		log:     opts.Logger,
		limiter: opts.RateLimiter,
		timed:   opts.Metrics.timed(),
		items:   make(map[K]entry),
		drained: make(chan struct{}),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if q.log == nil {
		q.log = slog.Default()
	}
	if q.opts.Name != "" {
		q.log = q.log.With("queue", q.opts.Name)
	}
	if q.limiter == nil {
		q.limiter = DefaultRateLimiter[K]()
	}
	q.delay.due = make(map[K]delayed[K])
	q.delay.armedAt = -1
	q.delay.epoch = time.Now()
	return q
}

// Add queues key, unless it is queued already (the two coalesce) or the
// queue is shut down (it is dropped). A key being processed is queued
// again once, when its worker calls Done.
func (q *Queue[K]) Add(key K) {
	q.mu.Lock()
	added := q.addLocked(key)
	wake := added && q.waiting > 0
	q.mu.Unlock()
	if wake {
		q.signal()
	}
	if added && q.timed {
		q.reportAdded(key)
	}
}

// addLocked adds key and reports whether it was newly queued or marked to
// be queued again.
func (q *Queue[K]) addLocked(key K) bool {
	if q.shutting {
		return false
	}
	e, ok := q.items[key]
	switch {
	case !ok:
		e.flags = queued
		if q.timed {
			e.since = time.Now()
		}
		q.items[key] = e
		q.fifo.Push(key)
		q.setDepthLocked()
		return true
	case e.flags&(queued|dirty) != 0:
		return false // coalesced with the pending one
	default: // processing
		e.flags |= dirty
		q.items[key] = e
		return true
	}
}

// signal wakes one waiting Get. The token stays until taken, so a Get that
// counted itself in q.waiting and is about to wait does not miss it; with
// no Get waiting, no signal is sent at all.
func (q *Queue[K]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Get blocks until a key is queued and hands it out: the caller must call
// Done(key) when it has finished with it. It returns ErrShutDown once the
// queue is shut down and has no queued keys left (the keys queued before
// ShutDown are still handed out), and ctx's error when ctx ends first.
// Waiting is event-driven.
func (q *Queue[K]) Get(ctx context.Context) (K, error) {
	counted := false // whether this Get counts in q.waiting
	for {
		q.mu.Lock()
		if counted {
			q.waiting--
			counted = false
		}
		if q.fifo.Len() > 0 {
			key := q.fifo.Pop()
			e := q.items[key]
			var queuedAt time.Time
			if q.timed {
				queuedAt = e.since
				e.since = time.Now()
			}
			e.flags = processing
			q.items[key] = e
			q.running++
			q.setDepthLocked()
			more := q.fifo.Len() > 0 && q.waiting > 0
			q.mu.Unlock()
			if more {
				q.signal() // another worker may take the next one
			}
			if q.timed {
				q.reportGot(e.since.Sub(queuedAt))
			}
			return key, nil
		}
		var zero K
		if q.shutting {
			q.mu.Unlock()
			return zero, ErrShutDown
		}
		q.waiting++
		counted = true
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-q.done:
		case <-ctx.Done():
			q.mu.Lock()
			q.waiting--
			q.mu.Unlock()
			return zero, context.Cause(ctx)
		}
	}
}

// Done marks key as processed. If it was added while it was processed, it
// is queued again now. Done for a key not handed out by Get does nothing.
func (q *Queue[K]) Done(key K) {
	q.mu.Lock()
	e, ok := q.items[key]
	if !ok || e.flags&processing == 0 {
		q.mu.Unlock()
		return
	}
	var worked time.Duration
	now := time.Time{}
	if q.timed {
		now = time.Now()
		worked = now.Sub(e.since)
	}
	q.running--
	requeued := e.flags&dirty != 0
	if requeued {
		q.items[key] = entry{flags: queued, since: now}
		q.fifo.Push(key)
		q.setDepthLocked()
	} else {
		delete(q.items, key)
	}
	q.checkDrainedLocked()
	wake := requeued && q.waiting > 0
	q.mu.Unlock()
	if wake {
		q.signal()
	}
	if q.timed {
		q.reportDone(worked)
	}
}

// Len returns how many keys are queued: neither those being processed
// (unless queued again) nor those waiting out a delay.
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fifo.Len()
}

// ShutDown stops the queue: Add and AddAfter drop their keys from now on,
// delayed keys are dropped, and Get hands out what is queued (including
// keys added before ShutDown while they were processed, queued again at
// their Done), then returns ErrShutDown. It does not wait for workers;
// ShutDownWithDrain does.
func (q *Queue[K]) ShutDown() {
	q.mu.Lock()
	if !q.shutting {
		q.shutting = true
		close(q.done)
		q.delay.stop()
		q.checkDrainedLocked()
	}
	q.mu.Unlock()
}

// ShutDownWithDrain shuts the queue down and waits until every queued key
// has been handed out and every key handed out is Done, or until ctx
// ends, when it returns ctx's error. Someone must keep calling Get and
// Done meanwhile (the workers of Run do).
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.ShutDown()
	select {
	case <-q.drained:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// ShuttingDown reports whether ShutDown has been called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shutting
}

// checkDrainedLocked closes drained once the queue is shut down and empty.
func (q *Queue[K]) checkDrainedLocked() {
	if q.shutting && q.running == 0 && q.fifo.Len() == 0 {
		select {
		case <-q.drained:
		default:
			close(q.drained)
		}
	}
}

// LongestRunning returns how long the key processed for the longest time
// has been, and how many keys are being processed. The duration is 0
// unless a Metrics callback is set (the queue takes no timestamps
// otherwise). It scans the keys being processed.
func (q *Queue[K]) LongestRunning() (time.Duration, int) {
	p := q.Processing()
	return p.Longest, p.Keys
}

// Processing describes the keys being processed (handed out by Get, Done
// not yet called) at one moment.
type Processing struct {
	// Keys is how many keys are being processed.
	Keys int
	// Longest is how long the oldest of them has been processed.
	Longest time.Duration
	// Unfinished is the sum of how long each has been processed so far:
	// client-go's "unfinished work", which grows while a worker is stuck.
	Unfinished time.Duration
}

// Processing reports the keys being processed. Its durations are 0 unless
// a Metrics callback is set (the queue takes no timestamps otherwise). It
// scans the queue's keys, so it is meant for a metrics scrape, not a hot
// path.
func (q *Queue[K]) Processing() Processing {
	q.mu.Lock()
	defer q.mu.Unlock()
	p := Processing{Keys: q.running}
	if !q.timed || q.running == 0 {
		return p
	}
	now := time.Now()
	for _, e := range q.items {
		if e.flags&processing != 0 {
			d := now.Sub(e.since)
			p.Longest = max(p.Longest, d)
			p.Unfinished += d
		}
	}
	return p
}

// AddRateLimited adds key after the delay the queue's RateLimiter gives it
// (for example after a failed attempt), counting a requeue.
func (q *Queue[K]) AddRateLimited(key K) {
	d := q.limiter.When(key)
	if q.opts.Metrics.Retry != nil {
		q.opts.Metrics.Retry(key)
	}
	q.AddAfter(key, d)
}

// Forget tells the RateLimiter that key is done with (it succeeded, or was
// given up on): its backoff starts anew. It does not remove key from the
// queue.
func (q *Queue[K]) Forget(key K) { q.limiter.Forget(key) }

// NumRequeues returns how many times key has been rate-limited since it
// was last forgotten.
func (q *Queue[K]) NumRequeues(key K) int { return q.limiter.NumRequeues(key) }

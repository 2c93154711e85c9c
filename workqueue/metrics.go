package workqueue

import "time"

// Metrics receives a queue's measurements through callbacks, so that any
// metrics system can record them without this package depending on one.
// Nil fields are not called. Callbacks run on the goroutine that caused
// them (an Add, a Get, a Done, the delay timer), never under the queue's
// lock; they must be quick and safe for concurrent use.
//
// When any field is set the queue takes timestamps (a time.Now per Add,
// Get and Done); with none set it takes none.
type Metrics[K comparable] struct {
	// Depth is called with the number of queued keys after each change.
	// Calls from concurrent changes may overlap, but the last call after
	// the queue goes quiet carries its current depth.
	Depth func(n int)
	// Added is called for each key newly queued, or marked to be queued
	// again after the Done of its current processing (not for an Add that
	// coalesced with a pending one).
	Added func(key K)
	// Latency is called by Get with how long the key it hands out waited
	// in the queue.
	Latency func(d time.Duration)
	// WorkDuration is called by Done with how long the key was processed
	// (from Get to Done).
	WorkDuration func(d time.Duration)
	// Retry is called by AddRateLimited, once for each requeue.
	Retry func(key K)
}

// timed reports whether the queue must take timestamps.
func (m *Metrics[K]) timed() bool {
	return m.Depth != nil || m.Added != nil || m.Latency != nil || m.WorkDuration != nil || m.Retry != nil
}

func (q *Queue[K]) reportAdded(key K) {
	if q.opts.Metrics.Added != nil {
		q.opts.Metrics.Added(key)
	}
	q.reportDepth()
}

func (q *Queue[K]) reportGot(waited time.Duration) {
	q.reportDepth()
	if q.opts.Metrics.Latency != nil {
		q.opts.Metrics.Latency(waited)
	}
}

func (q *Queue[K]) reportDone(worked time.Duration) {
	q.reportDepth()
	if q.opts.Metrics.WorkDuration != nil {
		q.opts.Metrics.WorkDuration(worked)
	}
}

// setDepthLocked records the depth after a change, for reportDepth.
func (q *Queue[K]) setDepthLocked() {
	if q.opts.Metrics.Depth != nil {
		q.depth.Store(int64(q.fifo.Len()))
	}
}

// reportDepth calls Metrics.Depth with the queue's current depth, after a
// change made by this goroutine. Calls are made one at a time, so that a
// late call cannot overwrite a newer depth with an older one: a goroutine
// that finds another reporting leaves it a mark, and the reporter reports
// again until no mark is left. Nobody waits for the reporter, and no lock
// is held during the call.
func (q *Queue[K]) reportDepth() {
	f := q.opts.Metrics.Depth
	if f == nil {
		return
	}
	q.depthStale.Store(true)
	for q.depthStale.Load() {
		if !q.reporting.CompareAndSwap(false, true) {
			return // the reporter will see the mark
		}
		q.depthStale.Store(false)
		f(int(q.depth.Load()))
		q.reporting.Store(false)
	}
}

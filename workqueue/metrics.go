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

func (m *Metrics[K]) added(key K, depth int) {
	if m.Added != nil {
		m.Added(key)
	}
	if m.Depth != nil {
		m.Depth(depth)
	}
}

func (m *Metrics[K]) got(depth int, waited time.Duration) {
	if m.Depth != nil {
		m.Depth(depth)
	}
	if m.Latency != nil {
		m.Latency(waited)
	}
}

func (m *Metrics[K]) done(depth int, worked time.Duration) {
	if m.Depth != nil {
		m.Depth(depth)
	}
	if m.WorkDuration != nil {
		m.WorkDuration(worked)
	}
}

// Package heapsample records the peak heap of a running measurement: the
// largest runtime.MemStats.HeapAlloc seen, sampled every millisecond. It
// serves the benchmarks of the root module (source/kube) and of bench/
// (bench/workload), which may import it by Go's path rule for internal
// packages.
package heapsample

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Sampler samples HeapAlloc every millisecond until Stop. Sampling uses
// runtime.ReadMemStats, which briefly stops the world: whatever is
// measured pays it.
type Sampler struct {
	peak       atomic.Uint64
	stop, done chan struct{}
}

// Start starts a Sampler on a goroutine of its own.
func Start() *Sampler {
	h := &Sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > h.peak.Load() {
				h.peak.Store(m.HeapAlloc)
			}
			select {
			case <-t.C:
			case <-h.stop:
				return
			}
		}
	}()
	return h
}

// Stop stops sampling, waits for the goroutine to end, and returns the
// largest HeapAlloc seen.
func (h *Sampler) Stop() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}

package workqueue_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/workqueue"
)

// TestRetain: Retain drops the keys keep refuses wherever they wait
// (queued, delayed, backing off, added while processed) and leaves the
// others as they were, in order.
func TestRetain(t *testing.T) {
	keepA := func(k string) bool { return strings.HasPrefix(k, "a") }
	tests := []struct {
		name    string
		setup   func(q *workqueue.Queue[string])
		keep    func(string) bool
		dropped int
		// now: the keys queued right after Retain, in order; later: the
		// keys queued once every delay has passed.
		now, later []string
	}{
		{"queued", func(q *workqueue.Queue[string]) {
			for _, k := range []string{"a1", "b1", "a2", "b2", "a3"} {
				q.Add(k)
			}
		}, keepA, 2, []string{"a1", "a2", "a3"}, nil},
		{"delayed and backing off", func(q *workqueue.Queue[string]) {
			q.AddAfter("a1", time.Second)
			q.AddAfter("b1", time.Second)
			q.AddRateLimited("b2")
			q.AddRateLimited("a2")
		}, keepA, 2, nil, []string{"a2", "a1"}},
		{"queued and delayed at once", func(q *workqueue.Queue[string]) {
			q.Add("b1")
			q.AddAfter("b1", time.Second)
			q.Add("a1")
		}, keepA, 1, []string{"a1"}, nil},
		{"keep everything", func(q *workqueue.Queue[string]) {
			q.Add("b1")
			q.AddAfter("b2", time.Second)
		}, func(string) bool { return true }, 0, []string{"b1"}, []string{"b2"}},
		{"drop everything", func(q *workqueue.Queue[string]) {
			q.Add("a1")
			q.AddAfter("b2", time.Second)
		}, func(string) bool { return false }, 2, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := workqueue.New(workqueue.Options[string]{})
				tt.setup(q)
				if got := q.Retain(tt.keep); got != tt.dropped {
					t.Errorf("Retain dropped %d keys, want %d", got, tt.dropped)
				}
				if got := drain(t, q); !slices.Equal(got, tt.now) {
					t.Errorf("queued after Retain: %v, want %v", got, tt.now)
				}
				time.Sleep(time.Minute)
				if got := drain(t, q); !slices.Equal(got, tt.later) {
					t.Errorf("queued after the delays: %v, want %v", got, tt.later)
				}
				for _, k := range []string{"b1", "b2"} {
					if n := q.NumRequeues(k); n != 0 && !tt.keep(k) {
						t.Errorf("%s dropped but still backing off (%d requeues)", k, n)
					}
				}
			})
		})
	}
}

// TestRetainProcessing: a key being processed when Retain drops it is
// finished by its worker and not queued again at Done, even if it was
// added meanwhile; a kept one is.
func TestRetainProcessing(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("a1")
	q.Add("b1")
	a, b := get(t, q), get(t, q)
	q.Add(a)
	q.Add(b)
	if n := q.Retain(func(k string) bool { return k == "a1" }); n != 1 {
		t.Fatalf("Retain dropped %d keys, want 1", n)
	}
	q.Done(a)
	q.Done(b)
	if got := drain(t, q); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("queued after Done: %v, want [a1]", got)
	}
	q.Add("b1") // added anew: queued
	if got := drain(t, q); !slices.Equal(got, []string{"b1"}) {
		t.Fatalf("queued after a new Add: %v, want [b1]", got)
	}
}

// TestRetainShutDownDrains: dropping the last queued keys of a queue shut
// down lets ShutDownWithDrain return.
func TestRetainShutDownDrains(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("b1")
	q.ShutDown()
	q.Retain(func(string) bool { return false })
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := q.ShutDownWithDrain(ctx); err != nil {
		t.Fatalf("ShutDownWithDrain: %v", err)
	}
}

// TestRetainReportsDepth: Metrics.Depth hears the depth Retain leaves.
func TestRetainReportsDepth(t *testing.T) {
	var depth atomic.Int64
	q := workqueue.New(workqueue.Options[string]{Metrics: workqueue.Metrics[string]{Depth: func(n int) { depth.Store(int64(n)) }}})
	for _, k := range []string{"a1", "b1", "b2"} {
		q.Add(k)
	}
	q.Retain(func(k string) bool { return strings.HasPrefix(k, "a") })
	if n := depth.Load(); n != 1 {
		t.Fatalf("Metrics.Depth last heard %d, want 1", n)
	}
}

package workqueue_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/workqueue"
)

// A Depth call held up (a preempted goroutine) must not leave the gauge at
// the depth it carried once a later change has been reported: the last
// call carries the queue's depth.
func TestDepthLastCallIsCurrent(t *testing.T) {
	var mu sync.Mutex
	var got []int
	entered, release := make(chan struct{}), make(chan struct{})
	first := true
	q := workqueue.New(workqueue.Options[string]{Metrics: workqueue.Metrics[string]{Depth: func(n int) {
		mu.Lock()
		hold := first
		first = false
		mu.Unlock()
		if hold {
			close(entered)
			<-release
		}
		mu.Lock()
		got = append(got, n) // the gauge's Set, after the hold-up
		mu.Unlock()
	}}})
	added := make(chan struct{})
	go func() { q.Add("a"); close(added) }() // reports depth 1, held up
	<-entered
	get(t, q) // depth 0 now; no Done: it would report again
	close(release)
	<-added
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[len(got)-1] != q.Len() {
		t.Fatalf("Depth calls %v: the last is not the queue's depth %d", got, q.Len())
	}
}

// Depth's calls never overlap and end at the queue's depth (0 once
// drained), with many goroutines adding and working.
func TestDepthConcurrent(t *testing.T) {
	var mu sync.Mutex
	inCall, last, overlaps := false, -1, 0
	q := workqueue.New(workqueue.Options[int]{Metrics: workqueue.Metrics[int]{Depth: func(n int) {
		mu.Lock()
		if inCall {
			overlaps++
		}
		inCall = true
		mu.Unlock()
		mu.Lock()
		inCall, last = false, n
		mu.Unlock()
	}}})
	var adders, workers sync.WaitGroup
	for g := range 4 {
		adders.Go(func() {
			for i := range 2000 {
				q.Add(g*10000 + i%50)
			}
		})
	}
	for range 2 {
		workers.Go(func() {
			for {
				k, err := q.Get(t.Context())
				if err != nil {
					return // shut down and drained
				}
				q.Done(k)
			}
		})
	}
	adders.Wait()
	q.ShutDown()
	workers.Wait()
	mu.Lock()
	defer mu.Unlock()
	if overlaps != 0 || last != q.Len() {
		t.Fatalf("overlapping calls %d, last depth %d, queue depth %d", overlaps, last, q.Len())
	}
}

func TestProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{Metrics: workqueue.Metrics[string]{Added: func(string) {}}})
		q.Add("a")
		q.Add("b")
		q.Add("c")
		a := get(t, q)
		time.Sleep(2 * time.Second)
		b := get(t, q)
		time.Sleep(time.Second)
		p := q.Processing()
		want := workqueue.Processing{Keys: 2, Longest: 3 * time.Second, Unfinished: 4 * time.Second}
		if p != want {
			t.Fatalf("Processing = %+v, want %+v", p, want)
		}
		q.Done(a)
		q.Done(b)
		if p := q.Processing(); p != (workqueue.Processing{}) {
			t.Fatalf("Processing after Done = %+v", p)
		}
	})
	// Without Metrics the queue takes no timestamps: counts only.
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("a")
	get(t, q)
	if p := q.Processing(); p != (workqueue.Processing{Keys: 1}) {
		t.Fatalf("Processing untimed = %+v", p)
	}
}

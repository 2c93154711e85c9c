package workqueue_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/workqueue"
)

// Metrics.Added counts a key newly queued, or marked to be queued again
// at Done; an Add that coalesced with a pending one is not counted
// (guarantee 3).
func TestAddedMetricSkipsCoalescedAdds(t *testing.T) {
	var mu sync.Mutex
	var added []string
	q := workqueue.New(workqueue.Options[string]{Metrics: workqueue.Metrics[string]{Added: func(k string) {
		mu.Lock()
		added = append(added, k)
		mu.Unlock()
	}}})
	q.Add("a")
	q.Add("a") // coalesces with the queued one
	q.Add("b")
	k := get(t, q)
	q.Add("a") // marked to be queued again
	q.Add("a") // coalesces with that mark
	q.Done(k)
	q.Add("a") // coalesces with the requeued one
	if want := []string{"a", "b", "a"}; !slices.Equal(added, want) {
		t.Fatalf("Added for %v, want %v", added, want)
	}
	if got := drain(t, q); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("queued %v, want [b a]", got)
	}
}

// Done for a key that is queued but was not handed out by Get does
// nothing: the key stays queued, and is then processed as usual.
func TestDoneOfQueuedKeyDoesNothing(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("a")
	q.Done("a")
	if q.Len() != 1 {
		t.Fatalf("Len = %d after Done of a queued key, want 1", q.Len())
	}
	if _, n := q.LongestRunning(); n != 0 {
		t.Fatalf("%d keys processing, want 0", n)
	}
	k := get(t, q)
	if _, n := q.LongestRunning(); k != "a" || n != 1 {
		t.Fatalf("got %q with %d keys processing, want a and 1", k, n)
	}
	q.Add("a") // while processing: queued again at Done
	q.Done(k)
	if got := drain(t, q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after Done: %v, want [a]", got)
	}
	if _, n := q.LongestRunning(); n != 0 {
		t.Fatalf("%d keys processing after the last Done, want 0", n)
	}
}

// A key moved earlier many times leaves many stale heap entries, which the
// queue drops once they outnumber the live ones: every key still waiting
// is kept through that and added at its due time.
func TestAddAfterKeepsKeysThroughCompaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		q.AddAfter("b", 150*time.Second)
		q.AddAfter("c", 300*time.Second)
		for i := range 200 {
			q.AddAfter("a", time.Duration(400-i)*time.Second) // earlier each time: the last is 201s
		}
		for _, at := range []struct {
			sleep time.Duration
			want  []string
		}{
			{150 * time.Second, []string{"b"}},
			{51 * time.Second, []string{"a"}},
			{99 * time.Second, []string{"c"}},
			{time.Hour, nil},
		} {
			time.Sleep(at.sleep)
			synctest.Wait()
			if got := drain(t, q); !slices.Equal(got, at.want) {
				t.Fatalf("after %v more: %v, want %v", at.sleep, got, at.want)
			}
		}
	})
}

package workqueue_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/workqueue"
)

// waiters starts n goroutines that each Get one key and keep it (no Done),
// and returns what they got so far.
func waiters(t *testing.T, q *workqueue.Queue[string], n int) func() []string {
	var mu sync.Mutex
	var got []string
	for range n {
		go func() {
			k, err := q.Get(t.Context())
			if err != nil {
				return
			}
			mu.Lock()
			got = append(got, k)
			mu.Unlock()
		}()
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Sorted(slices.Values(got))
	}
}

// A key added while it is processed is queued again at Done (guarantee 2),
// and that requeue wakes a worker already waiting in Get: event-driven,
// with no other Add to wake it.
func TestRequeueAtDoneWakesWaitingGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		q.Add("a")
		k := get(t, q)
		got := waiters(t, q, 1)
		synctest.Wait() // the waiter waits in Get
		q.Add("a")      // marked to be queued again at Done
		synctest.Wait() // the waiter, if woken, found nothing and waits again
		if g := got(); len(g) != 0 {
			t.Fatalf("a waiting Get got %v while a was processed", g)
		}
		q.Done(k)
		synctest.Wait()
		if g := got(); !slices.Equal(g, []string{"a"}) {
			t.Fatalf("after Done, the waiting Get has %v, want [a]: the requeue did not wake it", g)
		}
	})
}

// Keys that fall due together are all handed out to workers waiting in
// Get, not only one of them.
func TestKeysDueTogetherWakeEveryWaitingWorker(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := workqueue.New(workqueue.Options[string]{})
				defer q.ShutDown()
				got := waiters(t, q, n)
				synctest.Wait()
				var want []string
				for i := range n {
					k := fmt.Sprint("k", i)
					want = append(want, k)
					q.AddAfter(k, time.Second)
				}
				time.Sleep(time.Second)
				synctest.Wait()
				if g := got(); !slices.Equal(g, want) {
					t.Fatalf("%d keys due at once, %d workers waiting: they got %v, want %v", n, n, g, want)
				}
			})
		})
	}
}

// Several keys added at once, or requeued at Done, wake as many waiting
// workers.
func TestAddsWakeEveryWaitingWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		got := waiters(t, q, 3)
		synctest.Wait()
		q.Add("a")
		q.Add("b")
		q.Add("c")
		synctest.Wait()
		if g := got(); !slices.Equal(g, []string{"a", "b", "c"}) {
			t.Fatalf("three adds, three waiting workers: they got %v", g)
		}
	})
}

// A key moved to an earlier due time is added at that time only: its old
// due time, when it comes, adds nothing, whatever else falls due then and
// whether or not the key is waiting out a new delay by then.
func TestAddAfterMovedEarlierIsAddedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		q.AddAfter("other", 3*time.Second) // due with a's old time
		q.AddAfter("a", 3*time.Second)
		q.AddAfter("a", time.Second) // moved earlier
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, q); !slices.Equal(got, []string{"a"}) {
			t.Fatalf("at 1s: %v, want [a]", got)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got := drain(t, q); !slices.Equal(got, []string{"other"}) {
			t.Fatalf("at 3s: %v, want [other]: a was added again at its old due time", got)
		}

		// The same key waiting again (due at 10s) when its stale entry
		// (9s) comes up.
		q.AddAfter("b", 6*time.Second) // due at 9s
		q.AddAfter("b", time.Second)   // moved to 4s
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, q); !slices.Equal(got, []string{"b"}) {
			t.Fatalf("at 4s: %v, want [b]", got)
		}
		q.AddAfter("b", 6*time.Second) // due at 10s
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := drain(t, q); len(got) != 0 {
			t.Fatalf("at 9s: %v, want nothing: b was added at its stale due time", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, q); !slices.Equal(got, []string{"b"}) {
			t.Fatalf("at 10s: %v, want [b]", got)
		}
	})
}

// AddAfter against a model: random delays (some of them moving a waiting
// key earlier or later, some 0, an immediate Add), checked every second:
// each key is added once, at the earliest due time it was given, keys due
// together in the order of their effective AddAfter calls, after the
// immediate adds, and a key queued already coalesces.
func TestAddAfterModel(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 24))
				q := workqueue.New(workqueue.Options[string]{})
				defer q.ShutDown()
				type due struct {
					at  int // seconds
					seq int
				}
				waiting := map[string]due{}
				seq := 0
				for now := 0; now < 60; now++ {
					var want []string
					queued := map[string]bool{}
					for range rng.IntN(6) {
						k := fmt.Sprint("k", rng.IntN(8))
						d := rng.IntN(6)
						q.AddAfter(k, time.Duration(d)*time.Second)
						if d == 0 {
							if !queued[k] {
								queued[k] = true
								want = append(want, k)
							}
							continue
						}
						if cur, ok := waiting[k]; ok && cur.at <= now+d {
							continue
						}
						seq++
						waiting[k] = due{now + d, seq}
					}
					time.Sleep(time.Second)
					synctest.Wait()
					var fired []string
					for k, w := range waiting {
						if w.at <= now+1 {
							fired = append(fired, k)
						}
					}
					sort.Slice(fired, func(i, j int) bool {
						a, b := waiting[fired[i]], waiting[fired[j]]
						return a.at < b.at || a.at == b.at && a.seq < b.seq
					})
					for _, k := range fired {
						delete(waiting, k)
						if !queued[k] {
							queued[k] = true
							want = append(want, k)
						}
					}
					if got := drain(t, q); !slices.Equal(got, want) {
						t.Fatalf("at %ds: queued %v, want %v", now+1, got, want)
					}
				}
			})
		})
	}
}

// MaxOf's Forget forgets in every limiter, not only the first: each of
// them starts anew.
func TestMaxOfForgetsInEveryLimiter(t *testing.T) {
	a := workqueue.ExponentialBackoff[string](time.Millisecond, time.Hour)
	b := workqueue.ExponentialBackoff[string](time.Second, time.Hour)
	c := workqueue.ExponentialBackoff[string](time.Minute, time.Hour)
	m := workqueue.MaxOf[string](a, b, c)
	for range 3 {
		m.When("k")
	}
	if n := m.NumRequeues("k"); n != 3 {
		t.Fatalf("NumRequeues = %d, want 3", n)
	}
	m.Forget("k")
	for i, l := range []*workqueue.Exponential[string]{a, b, c} {
		if n := l.NumRequeues("k"); n != 0 {
			t.Errorf("limiter %d: NumRequeues = %d after MaxOf's Forget, want 0", i, n)
		}
	}
	if n := m.NumRequeues("k"); n != 0 {
		t.Errorf("NumRequeues = %d after Forget, want 0", n)
	}
	if d := m.When("k"); d != time.Minute {
		t.Errorf("When after Forget = %v, want 1m (the largest base delay)", d)
	}
}

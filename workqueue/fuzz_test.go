package workqueue_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/workqueue"
)

// model is the reference the queue is checked against: plain slices and
// maps, no cleverness.
type model struct {
	fifo       []int
	processing map[int]bool
	dirty      map[int]bool // added while processing
	delayed    []modelDelay // in AddAfter order; due ones move in (at, seq) order
	seq        int
	failures   map[int]int
	shutting   bool
}

type modelDelay struct {
	key, seq int
	at       time.Duration
}

func (m *model) add(k int) {
	if m.shutting {
		return
	}
	if m.processing[k] {
		m.dirty[k] = true
		return
	}
	if !slices.Contains(m.fifo, k) {
		m.fifo = append(m.fifo, k)
	}
}

func (m *model) addAfter(k int, now, d time.Duration) {
	if d <= 0 {
		m.add(k)
		return
	}
	if m.shutting {
		return
	}
	m.seq++
	for i := range m.delayed {
		if m.delayed[i].key == k {
			if now+d < m.delayed[i].at {
				m.delayed[i].at, m.delayed[i].seq = now+d, m.seq
			}
			return
		}
	}
	m.delayed = append(m.delayed, modelDelay{key: k, seq: m.seq, at: now + d})
}

func (m *model) advance(now time.Duration) {
	slices.SortFunc(m.delayed, func(a, b modelDelay) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.seq - b.seq
	})
	for len(m.delayed) > 0 && m.delayed[0].at <= now {
		k := m.delayed[0].key
		m.delayed = m.delayed[1:]
		m.add(k)
	}
}

// FuzzQueue runs random Add / Get / Done / AddAfter / AddRateLimited /
// Forget / ShutDown / sleep sequences on a Queue and on the model, and
// checks that they agree on every key handed out, on Len and on
// NumRequeues.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 2, 1, 3, 0})
	f.Add([]byte{0, 0, 8, 1, 0, 0, 2, 0, 8, 1, 9, 3, 1})
	f.Add([]byte{3, 5, 4, 3, 2, 7, 4, 9, 1, 8, 1, 6, 1, 1})
	f.Add([]byte{5, 1, 5, 1, 5, 1, 4, 6, 1, 8, 7, 1, 5, 1, 4, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 400 {
			ops = ops[:400]
		}
		synctest.Test(t, func(t *testing.T) {
			base := time.Millisecond
			q := workqueue.New(workqueue.Options[int]{RateLimiter: workqueue.ExponentialBackoff[int](base, 64*base)})
			m := &model{processing: map[int]bool{}, dirty: map[int]bool{}, failures: map[int]int{}}
			start := time.Now()
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			for i := 0; i+1 < len(ops); i += 2 {
				op, arg := ops[i]%10, int(ops[i+1]%8)
				now := time.Since(start)
				switch op {
				case 0, 1: // Add
					q.Add(arg)
					m.add(arg)
				case 2: // Get, without waiting
					k, err := q.Get(ended)
					if len(m.fifo) == 0 {
						want := context.Canceled
						if m.shutting {
							want = workqueue.ErrShutDown
						}
						if !errors.Is(err, want) {
							t.Fatalf("op %d: Get of an empty queue = %d, %v; want %v", i, k, err, want)
						}
						break
					}
					if err != nil || k != m.fifo[0] {
						t.Fatalf("op %d: Get = %d, %v; want %d (fifo %v)", i, k, err, m.fifo[0], m.fifo)
					}
					m.fifo = m.fifo[1:]
					m.processing[k] = true
				case 3: // Done of the arg-th processing key, or of a key not processing
					keys := sortedKeys(m.processing)
					k := arg + 100
					if len(keys) > 0 {
						k = keys[arg%len(keys)]
					}
					q.Done(k)
					if m.processing[k] {
						delete(m.processing, k)
						if m.dirty[k] { // added before any ShutDown: queued even after it
							delete(m.dirty, k)
							m.fifo = append(m.fifo, k)
						}
					}
				case 4: // AddAfter
					d := time.Duration(ops[i+1]>>3) * base
					q.AddAfter(arg, d)
					m.addAfter(arg, now, d)
				case 5: // AddRateLimited
					n := m.failures[arg]
					m.failures[arg] = n + 1
					q.AddRateLimited(arg)
					m.addAfter(arg, now, min(base<<min(n, 10), 64*base))
				case 6: // Forget
					q.Forget(arg)
					delete(m.failures, arg)
				case 7: // ShutDown, rarely
					if arg == 7 {
						q.ShutDown()
						m.shutting = true
						m.delayed = nil
					}
				case 8, 9: // let time pass
					time.Sleep(time.Duration(arg) * base)
					synctest.Wait()
					if !m.shutting {
						m.advance(time.Since(start))
					}
				}
				if q.Len() != len(m.fifo) {
					t.Fatalf("op %d (%d %d): Len = %d, model %v", i, op, arg, q.Len(), m.fifo)
				}
				if got, want := q.NumRequeues(arg), m.failures[arg]; got != want {
					t.Fatalf("op %d: NumRequeues(%d) = %d, want %d", i, arg, got, want)
				}
			}
			q.ShutDown()
		})
	})
}

func sortedKeys(m map[int]bool) []int {
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

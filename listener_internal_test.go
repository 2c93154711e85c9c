package informer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
)

// TestRemovedListenerNeverSyncs: the informer marks its listeners synced
// when the first list has been processed, and may do so before it has
// dropped a listener removed before Run (its first batch can come before
// it handles the removal). Such a listener must not report synced: its
// WaitForSync returns ErrStopped. (TestRegistrationRemove/before_Run hit
// this about once in 50 runs.)
func TestRemovedListenerNeverSyncs(t *testing.T) {
	l := newListener[*bobj](HandlerFuncs[*bobj]{}, HandlerOptions{}, func(error) {})
	reg := &Registration[*bobj]{l: l}
	reg.Remove()
	l.markSynced()
	if reg.HasSynced() {
		t.Fatal("a listener removed before it synced reports synced")
	}
	if err := reg.WaitForSync(t.Context()); !errors.Is(err, ErrStopped) {
		t.Fatalf("WaitForSync = %v, want ErrStopped", err)
	}
}

// TestNotifyQueueEmptiesAtSegmentBoundary: a listener's queue is a chain
// of fixed segments. When it empties exactly at the end of a segment (its
// only one, or the last of several), it must start over cleanly: what is
// pushed next comes out in order, nothing lost or repeated, however many
// times that happens. (The queue alone here; through a listener below.)
func TestNotifyQueueEmptiesAtSegmentBoundary(t *testing.T) {
	for _, fill := range []int{segmentLen, 2 * segmentLen, segmentLen + 1} {
		var q notifyQueue[*bobj]
		for round := range 4 {
			var pushed []*bobj
			for i := range fill {
				o := bo(strconv.Itoa(i), "1")
				pushed = append(pushed, o)
				q.push(notification[*bobj]{new: o, kind: notifyAdd, flag: i%2 == 0})
			}
			for i, o := range pushed {
				if n := q.pop(); n.new != o || n.kind != notifyAdd || n.flag != (i%2 == 0) {
					t.Fatalf("fill %d, round %d: pop %d is %+v, want %s", fill, round+1, i, n, o.Name)
				}
			}
			if q.len != 0 {
				t.Fatalf("fill %d, round %d: len %d after popping all", fill, round+1, q.len)
			}
		}
	}
}

// TestListenerQueueEmptiesAtSegmentBoundary: the same through a listener,
// whose backlog drains in batches of listenerBatch: the notifications
// pushed after it drained exactly at a segment's end are delivered, in
// order, none lost or repeated.
func TestListenerQueueEmptiesAtSegmentBoundary(t *testing.T) {
	for _, fill := range []int{segmentLen, 2 * segmentLen, segmentLen + 1} {
		t.Run(strconv.Itoa(fill), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var got []string
				h := HandlerFuncs[*bobj]{AddFunc: func(o *bobj, _ bool) {
					mu.Lock()
					got = append(got, o.Name)
					mu.Unlock()
				}}
				l := newListener[*bobj](h, HandlerOptions{}, func(err error) { t.Error(err) })
				ctx, cancel := context.WithCancel(t.Context())
				l.start()
				go l.run(ctx)
				next := 0
				push := func(n int) {
					l.mu.Lock()
					for range n {
						name := strconv.Itoa(next)
						l.pushLocked("ns/"+name, notification[*bobj]{new: bo(name, "1"), kind: notifyAdd})
						next++
					}
					l.mu.Unlock()
					l.signal()
				}
				check := func(when string) {
					t.Helper()
					synctest.Wait() // the listener has drained its queue
					mu.Lock()
					defer mu.Unlock()
					if len(got) != next {
						t.Fatalf("%s: %d notifications delivered, want %d", when, len(got), next)
					}
					for i, name := range got {
						if name != strconv.Itoa(i) {
							t.Fatalf("%s: notification %d is %s, want %d", when, i, name, i)
						}
					}
				}
				// The whole fill is queued before the listener takes any, so
				// it drains in batches that end exactly at the fill.
				for round := range 3 {
					push(fill)
					check(fmt.Sprint("round ", round+1))
				}
				push(1)
				check("after the rounds")
				cancel()
				<-l.done
			})
		})
	}
}

// slicePool is a segmentPool that keeps every segment put: deterministic,
// unlike a sync.Pool (which the race detector makes drop items).
type slicePool struct{ segs []any }

func (p *slicePool) Get() any {
	if len(p.segs) == 0 {
		return nil
	}
	s := p.segs[len(p.segs)-1]
	p.segs = p.segs[:len(p.segs)-1]
	return s
}

func (p *slicePool) Put(s any) { p.segs = append(p.segs, s) }

// TestNotifyQueueSegmentPool: a queue keeps one drained segment and puts
// the others in its pool, cleared, and takes them from there when it grows
// again, before allocating; the notifications stay in order, none stale.
func TestNotifyQueueSegmentPool(t *testing.T) {
	pool := &slicePool{}
	q := notifyQueue[*bobj]{pool: pool}
	segs := map[*segment[*bobj]]bool{}
	const fill = 4*segmentLen + 7
	for round := range 3 {
		var pushed []*bobj
		for i := range fill {
			o := bo(fmt.Sprint(round, "-", i), "1")
			pushed = append(pushed, o)
			q.push(notification[*bobj]{new: o, kind: notifyAdd})
			segs[q.tail] = true
		}
		for i, o := range pushed {
			if n := q.pop(); n.new != o || n.old != nil {
				t.Fatalf("round %d: pop %d is %+v, want %s", round+1, i, n, o.Name)
			}
		}
		// Five segments filled: the last is rewound, one is the spare,
		// three are in the pool.
		if q.spare == nil || len(pool.segs) != 3 {
			t.Fatalf("round %d: spare %v, %d segments in the pool; want one and 3", round+1, q.spare != nil, len(pool.segs))
		}
		for _, s := range pool.segs {
			s := s.(*segment[*bobj])
			if s.next != nil || slices.ContainsFunc(s.new[:], func(o *bobj) bool { return o != nil }) {
				t.Fatalf("round %d: a segment in the pool still holds a notification or a link", round+1)
			}
		}
	}
	if len(segs) != 5 {
		t.Fatalf("%d segments used over three rounds of five, want 5 (reused)", len(segs))
	}
	q.clear()
	if q.pool == nil {
		t.Fatal("clear drops the queue's pool")
	}
	// An Informer's listeners share its pool.
	inf := New[*bobj](noSource{}, Options[*bobj]{})
	for range 2 {
		if _, err := inf.AddHandler(HandlerFuncs[*bobj]{}, HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range inf.listeners {
		if l.q.pool != &inf.segments {
			t.Fatalf("listener %d's queue has pool %v, not its informer's", i, l.q.pool)
		}
	}
}

package informer

import (
	"context"
	"errors"
	"fmt"
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

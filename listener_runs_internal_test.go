package informer

import (
	"strconv"
	"testing"
)

// TestNotifyQueueRuns: the process loop appends a batch's notifications
// to a listener's queue in runs (pushRuns), and the listener takes them in
// runs of at most listenerBatch (takeLocked, popRun), both crossing
// segment boundaries. Whatever the sizes of the batches, every
// notification comes out once, in order, with its kind and flag, and a
// slot taken is cleared (the queue keeps no object alive).
func TestNotifyQueueRuns(t *testing.T) {
	for _, chunk := range []int{1, listenerBatch - 1, listenerBatch + 1, segmentLen - 1, segmentLen, segmentLen + 1, 3*segmentLen + 7} {
		t.Run(strconv.Itoa(chunk), func(t *testing.T) {
			l := newListener[*bobj](HandlerFuncs[*bobj]{}, HandlerOptions{}, func(err error) { t.Error(err) })
			var pushed, taken int
			push := func() {
				var nb noteBatch[*bobj]
				nb.grow(chunk)
				for i := range chunk {
					nb.old[i] = bo(strconv.Itoa(pushed), "0")
					nb.new[i] = bo(strconv.Itoa(pushed), "1")
					nb.meta[i] = metaOf(notifyKind(1+pushed%3), pushed%2 == 0)
					pushed++
				}
				l.pushNotesLocked(&nb, nil)
			}
			var r noteRun[*bobj]
			take := func(max int) {
				for max > 0 && l.q.len > 0 {
					n := l.takeLocked(&r)
					if n == 0 || n > listenerBatch {
						t.Fatalf("took %d of %d queued", n, l.q.len+n)
					}
					for i := range n {
						want := strconv.Itoa(taken)
						if n := r.at(i); n.old.Name != want || n.new.Name != want || n.new.ResourceVersion != "1" || n.kind != notifyKind(1+taken%3) || n.flag != (taken%2 == 0) {
							t.Fatalf("notification %d came out as %v %v kind %d flag %v", taken, n.old, n.new, n.kind, n.flag)
						}
						taken++
					}
					clear(r.old[:n])
					clear(r.new[:n])
					max -= n
				}
			}
			for range 3 {
				push()
				push()
				take(chunk + chunk/2)
			}
			take(pushed)
			if taken != pushed || l.q.len != 0 || l.appended != uint64(pushed) {
				t.Fatalf("pushed %d, took %d, %d left, %d appended", pushed, taken, l.q.len, l.appended)
			}
			for s := l.q.head; s != nil; s = s.next {
				for i := range segmentLen {
					if s.old[i] != nil || s.new[i] != nil {
						t.Fatalf("slot %d of a drained segment still holds an object", i)
					}
				}
			}
		})
	}
}

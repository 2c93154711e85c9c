package informer

import (
	"strconv"
	"testing"
)

// TestNotifyQueueRuns: the process loop appends a batch's notifications
// to a listener's queue in runs (pushRuns), and the listener takes them in
// runs of at most listenerBatch, read in place (takeLocked, release),
// both crossing segment boundaries, and pushes made while a run is taken
// go elsewhere. Whatever the sizes of the batches, every notification
// comes out once, in order, with its kind and flag, and a slot released
// is cleared (the queue keeps no object alive).
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
			// take takes runs until max are taken or the queue is empty;
			// with pushFirst, a batch is pushed while the first run is
			// taken: it must not be written over the run.
			take := func(max int, pushFirst bool) {
				for max > 0 && l.q.len > 0 {
					seg, a, b := l.takeLocked()
					if b <= a || b-a > listenerBatch {
						t.Fatalf("took %d of %d queued", b-a, l.q.len+b-a)
					}
					if pushFirst {
						push()
						pushFirst = false
					}
					for i := a; i < b; i++ {
						want := strconv.Itoa(taken)
						if n := (qslot[*bobj]{seg, i}).get(); n.old.Name != want || n.new.Name != want || n.new.ResourceVersion != "1" || n.kind != notifyKind(1+taken%3) || n.flag != (taken%2 == 0) {
							t.Fatalf("notification %d came out as %v %v kind %d flag %v", taken, n.old, n.new, n.kind, n.flag)
						}
						taken++
					}
					l.q.release(seg, a, b)
					max -= b - a
				}
			}
			for range 3 {
				push()
				push()
				take(chunk+chunk/2, true)
			}
			take(pushed, false)
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

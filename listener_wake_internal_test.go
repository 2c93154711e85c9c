package informer

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestListenerWakeupBetweenEmptyAndWait: a listener that has found its
// queue empty unlocks and then waits for a wake-up. A notification pushed
// and signalled by the process loop between those two statements must
// still be delivered: the wake-up is kept until the listener waits, not
// lost (nothing else would wake it, and the notification would stay
// queued). The test hook beforeWait runs exactly in that window; each time
// the listener goes idle, another goroutine pushes and signals there.
func TestListenerWakeupBetweenEmptyAndWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rounds = 5
		var mu sync.Mutex
		var got []string
		h := HandlerFuncs[*bobj]{AddFunc: func(o *bobj, _ bool) {
			mu.Lock()
			got = append(got, o.Name)
			mu.Unlock()
		}}
		l := newListener[*bobj](h, HandlerOptions{}, func(err error) { t.Error(err) })
		pushed := 0
		l.beforeWait = func() {
			if pushed == rounds {
				return
			}
			name := strconv.Itoa(pushed)
			pushed++
			done := make(chan struct{})
			go func() { // the process loop
				l.mu.Lock()
				l.pushLocked("ns/"+name, notification[*bobj]{new: bo(name, "1"), kind: notifyAdd})
				l.mu.Unlock()
				l.signal()
				close(done)
			}()
			<-done
		}
		ctx, cancel := context.WithCancel(t.Context())
		l.start()
		go l.run(ctx)
		synctest.Wait()
		mu.Lock()
		n := len(got)
		mu.Unlock()
		l.mu.Lock()
		queued := l.q.len
		l.mu.Unlock()
		if n != rounds || queued != 0 {
			t.Errorf("%d of %d notifications delivered, %d left queued: a wake-up was lost", n, rounds, queued)
		}
		cancel()
		<-l.done
	})
}

// TestWakeAfterPush: the process loop wakes a listener only after it has
// pushed the notifications: a wake-up sent before could be taken by a
// listener that then finds its queue still empty and waits again, leaving
// the notifications queued until some later change. While the test holds
// the listener's lock, nothing can be pushed, so no wake-up may arrive;
// once it lets go, the notifications and one wake-up are there. For the
// changes the loop hands over, and for a resync.
func TestWakeAfterPush(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(inf *Informer[*bobj], l *listener[*bobj])
	}{
		{"hand", func(inf *Informer[*bobj], _ *listener[*bobj]) {
			nb := noteBatch[*bobj]{old: []*bobj{nil}, new: []*bobj{bo("a", "1")}, meta: []uint8{uint8(notifyAdd)}, key: []int32{0}}
			inf.hand(&nb, []KeyDeltas[*bobj]{{Key: "ns/a"}})
		}},
		{"resync", func(inf *Informer[*bobj], l *listener[*bobj]) {
			rs := newResyncer[*bobj]()
			defer rs.stop()
			rs.next[l] = time.Now().Add(-time.Second)
			inf.resync(rs)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf := New[*bobj](noSource{}, Options[*bobj]{})
			if err := inf.ix.Add(bo("a", "1")); err != nil {
				t.Fatal(err)
			}
			l := newListener[*bobj](HandlerFuncs[*bobj]{}, HandlerOptions{ResyncPeriod: time.Hour}, func(err error) { t.Error(err) })
			inf.listeners = []*listener[*bobj]{l}
			l.mu.Lock()
			done := make(chan struct{})
			go func() {
				defer close(done)
				tc.call(inf, l)
			}()
			// The call runs at once; give it 100 ms to (wrongly) signal.
			early := false
			for start := time.Now(); time.Since(start) < 100*time.Millisecond && !early; time.Sleep(time.Millisecond) {
				early = len(l.wake) > 0
			}
			l.mu.Unlock()
			<-done
			if early {
				t.Error("the listener was woken before its notifications were pushed")
			}
			l.mu.Lock()
			queued := l.q.len
			l.mu.Unlock()
			if queued != 1 || len(l.wake) != 1 {
				t.Errorf("%d notifications queued, %d wake-ups; want 1 and 1", queued, len(l.wake))
			}
		})
	}
}

// TestAdmitAfterCancel: a handler registered while Run shuts down is not
// admitted by the process loop once Run's ctx has ended (the loop's select
// may take the registration's wake-up before ctx's end): it stays pending,
// for Run's end to finish, and is never started or called.
func TestAdmitAfterCancel(t *testing.T) {
	inf := New[*bobj](noSource{}, Options[*bobj]{})
	if err := inf.ix.Add(bo("a", "1")); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	l := newListener[*bobj](HandlerFuncs[*bobj]{AddFunc: func(*bobj, bool) { calls.Add(1) }}, HandlerOptions{}, func(err error) { t.Error(err) })
	inf.pending = []*listener[*bobj]{l}
	inf.wg = &sync.WaitGroup{} // as Run sets it
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs := newResyncer[*bobj]()
	defer rs.stop()
	inf.admit(ctx, rs)
	inf.wg.Wait()
	if len(inf.pending) != 1 || len(inf.listeners) != 0 {
		t.Fatalf("after admit with ctx ended: %d pending, %d listeners; want the handler still pending", len(inf.pending), len(inf.listeners))
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the handler was called %d times", n)
	}
}

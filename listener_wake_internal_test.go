package informer

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
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

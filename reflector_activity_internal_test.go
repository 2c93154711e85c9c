package informer

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestActivityStamp: the first event after a quiet interval is stamped
// with its own time; events that follow within activityResolution leave
// the stamp as it is (the clock is not read for them); the first event
// after the interval is stamped again; an idle stream arms no timer.
func TestActivityStamp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var at atomic.Int64
		var a activityStamp
		a.start(&at)
		defer a.stop()
		want := func(what string, tm time.Time) {
			t.Helper()
			if got := time.Unix(0, at.Load()); !got.Equal(tm) {
				t.Errorf("%s: stamp %v, want %v", what, got, tm)
			}
		}
		t0 := time.Now()
		a.event()
		want("first event", t0)
		time.Sleep(activityResolution / 2)
		a.event()
		want("an event within the resolution", t0)
		time.Sleep(activityResolution)
		synctest.Wait()
		t1 := time.Now()
		a.event()
		want("the first event after the resolution", t1)
		time.Sleep(time.Hour) // idle: the timer fires once, then nothing
		synctest.Wait()
		t2 := time.Now()
		a.event()
		want("an event after an hour's quiet", t2)
		a.event()
		want("the event after it", t2)
	})
}

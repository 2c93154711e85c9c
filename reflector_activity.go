package informer

import (
	"sync/atomic"
	"time"
)

// activityResolution is how stale Health.LastActivity may be while a watch
// delivers events back to back: the clock is read for the first event
// after each such interval, not for every event.
const activityResolution = 100 * time.Millisecond

// activityStamp records when a stream last delivered an event without
// reading the clock per event (time.Now costs as much as the rest of an
// event's path on some virtual machines). The first event after a quiet
// interval of activityResolution or more is stamped with its own time, so
// a slow stream's stamps are exact; while events stream back to back, the
// stamp trails the last event by less than activityResolution. A timer
// marks the next stamp due; it is armed only by a stamp, so an idle stream
// costs nothing.
type activityStamp struct {
	dst   *atomic.Int64 // unix nanoseconds of the last stamp (Reflector.activity)
	due   atomic.Bool   // the next event is stamped
	timer *time.Timer   // sets due, activityResolution after a stamp
}

// start begins stamping into dst: the first event is stamped.
func (a *activityStamp) start(dst *atomic.Int64) {
	a.dst = dst
	a.due.Store(true)
}

// event notes one event: an atomic load, inlined, unless a stamp is due.
func (a *activityStamp) event() {
	if a.due.Load() {
		a.stamp()
	}
}

// stamp stamps the time and arms the timer for the next stamp.
func (a *activityStamp) stamp() {
	a.due.Store(false)
	a.dst.Store(time.Now().UnixNano())
	if a.timer == nil {
		a.timer = time.AfterFunc(activityResolution, func() { a.due.Store(true) })
		return
	}
	a.timer.Reset(activityResolution)
}

// stop stops the timer; the stream has ended.
func (a *activityStamp) stop() {
	if a.timer != nil {
		a.timer.Stop()
	}
}

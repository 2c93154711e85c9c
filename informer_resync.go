package informer

import "time"

// resyncer tracks when each listener with a resync period is next due. It
// belongs to the process loop.
type resyncer[T Object] struct {
	timer *time.Timer
	next  map[*listener[T]]time.Time
}

func newResyncer[T Object]() *resyncer[T] {
	return &resyncer[T]{next: map[*listener[T]]time.Time{}}
}

// plan schedules the listeners ls (keeping the times of those already
// scheduled) and arms the timer for the earliest.
func (r *resyncer[T]) plan(ls []*listener[T], now time.Time) {
	live := make(map[*listener[T]]bool, len(ls))
	var earliest time.Time
	for _, l := range ls {
		if l.resync <= 0 {
			continue
		}
		live[l] = true
		t, ok := r.next[l]
		if !ok {
			t = now.Add(l.resync)
			r.next[l] = t
		}
		if earliest.IsZero() || t.Before(earliest) {
			earliest = t
		}
	}
	for l := range r.next {
		if !live[l] {
			delete(r.next, l)
		}
	}
	if earliest.IsZero() {
		r.stop()
		return
	}
	d := max(earliest.Sub(now), 0)
	if r.timer == nil {
		r.timer = time.NewTimer(d)
	} else {
		r.timer.Reset(d)
	}
}

// c returns the channel that fires when a resync is due, or nil.
func (r *resyncer[T]) c() <-chan time.Time {
	if r.timer == nil {
		return nil
	}
	return r.timer.C
}

// due returns the listeners whose resync has come, and schedules their next.
func (r *resyncer[T]) due(now time.Time) []*listener[T] {
	var ls []*listener[T]
	for l, t := range r.next {
		if !t.After(now) {
			ls = append(ls, l)
			r.next[l] = now.Add(l.resync)
		}
	}
	return ls
}

func (r *resyncer[T]) stop() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}

// resync sends every cached object, as OnUpdate(obj, obj), to the listeners
// whose resync period has come.
func (inf *Informer[T]) resync(rs *resyncer[T]) {
	due := rs.due(time.Now())
	if len(due) == 0 {
		return
	}
	for key, obj := range inf.ix.All() {
		for _, l := range due {
			l.mu.Lock()
			l.pushLocked(key, notification[T]{old: obj, new: obj, kind: notifyUpdate})
			l.mu.Unlock()
		}
	}
	for _, l := range due {
		l.signal()
	}
	rs.plan(inf.snapshotListeners(), time.Now())
}

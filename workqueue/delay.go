package workqueue

import "time"

// delays holds the keys waiting out an AddAfter delay: a min-heap of due
// times, the due time of each waiting key, and one timer armed for the
// earliest. No goroutine waits per key; the timer's callback runs only
// when a key is due. Moving a waiting key earlier pushes a new heap entry
// and leaves the old one stale (skipped when it surfaces), so no index
// into the heap has to be kept current while it is sifted.
type delays[K comparable] struct {
	h       []delayed[K]
	due     map[K]delayed[K] // the live entry of each waiting key
	seq     uint64
	timer   *time.Timer
	armedAt int64 // when the timer fires, in ns since epoch; -1: not armed
	epoch   time.Time
}

// delayed is a heap entry: due at at (ns since the queue's epoch); seq
// orders keys due at once by their AddAfter calls and tells the live entry
// of a key from stale ones.
type delayed[K comparable] struct {
	at  int64
	seq uint64
	key K
}

func (a *delayed[K]) before(b *delayed[K]) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (d *delays[K]) push(e delayed[K]) {
	d.h = append(d.h, e)
	h := d.h
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// pop removes the earliest entry; d.h must not be empty.
func (d *delays[K]) pop() delayed[K] {
	h := d.h
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = delayed[K]{}
	h = h[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	d.h = h
	return top
}

// live reports whether e is its key's current entry, not a stale one.
func (d *delays[K]) live(e *delayed[K]) bool {
	cur, ok := d.due[e.key]
	return ok && cur.seq == e.seq
}

// compact drops the stale entries once they outnumber the live ones.
func (d *delays[K]) compact() {
	if len(d.h) < 2*len(d.due)+64 {
		return
	}
	d.h = d.h[:0]
	for _, e := range d.due {
		d.push(e)
	}
}

// stop drops every delayed key and the timer.
func (d *delays[K]) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.armedAt = -1
	d.h = nil
	clear(d.due)
}

// AddAfter adds key once d has passed; d <= 0 adds it now. A key already
// waiting keeps the earlier of its two due times, so repeated AddAfter
// calls do not postpone it. Keys due at the same time are queued in the
// order of their (last effective) AddAfter calls. Keys waiting are dropped by ShutDown; they do
// not count in Len.
func (q *Queue[K]) AddAfter(key K, d time.Duration) {
	if d <= 0 {
		q.Add(key)
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutting {
		return
	}
	dl := &q.delay
	at := int64(time.Since(dl.epoch) + d)
	if cur, ok := dl.due[key]; ok && cur.at <= at {
		return // due earlier already
	}
	dl.seq++
	e := delayed[K]{at: at, seq: dl.seq, key: key}
	dl.due[key] = e
	dl.push(e)
	dl.compact()
	q.armLocked(at)
}

// armLocked makes sure the timer fires by next (ns since the epoch), the
// earliest due time.
func (q *Queue[K]) armLocked(next int64) {
	dl := &q.delay
	if dl.armedAt >= 0 && next >= dl.armedAt {
		return
	}
	dl.armedAt = next
	wait := time.Duration(next) - time.Since(dl.epoch)
	if dl.timer == nil {
		dl.timer = time.AfterFunc(wait, q.fire)
	} else {
		dl.timer.Reset(wait)
	}
}

// fire moves every due key to the queue and arms the timer for the next.
func (q *Queue[K]) fire() {
	var added []K // rarely more than a few; only to report metrics
	q.mu.Lock()
	if q.shutting {
		q.mu.Unlock()
		return
	}
	dl := &q.delay
	dl.armedAt = -1
	now := int64(time.Since(dl.epoch))
	n := 0
	for len(dl.h) > 0 && dl.h[0].at <= now {
		e := dl.pop()
		if !dl.live(&e) {
			continue
		}
		delete(dl.due, e.key)
		if q.addLocked(e.key) {
			n++
			if q.timed {
				added = append(added, e.key)
			}
		}
	}
	for len(dl.h) > 0 && !dl.live(&dl.h[0]) {
		dl.pop() // stale: keep the timer for a live one
	}
	if len(dl.h) > 0 {
		q.armLocked(dl.h[0].at)
	}
	wake := n > 0 && q.waiting > 0
	q.mu.Unlock()
	if wake {
		q.signal() // a worker that takes one passes the signal on
	}
	for _, k := range added {
		q.reportAdded(k)
	}
}

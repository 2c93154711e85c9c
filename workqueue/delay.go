package workqueue

import "time"

// delays holds the keys waiting out an AddAfter delay: one min-heap by
// due time, an index to find a key's place in it, and one timer armed for
// the earliest. No goroutine waits per key; the timer's callback runs only
// when a key is due.
type delays[K comparable] struct {
	h     delayHeap[K]
	timer *time.Timer
	armed time.Time // when the timer fires; zero when not armed
}

type delayed[K comparable] struct {
	at  time.Time
	seq uint64 // order of the AddAfter calls: keys due at once keep it
	key K
}

// delayHeap is a binary min-heap by due time that keeps index current;
// written out rather than through container/heap so that pushes do not box
// their items.
type delayHeap[K comparable] struct {
	items []delayed[K]
	index map[K]int
	seq   uint64
}

func (h *delayHeap[K]) less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	return a.at.Before(b.at) || a.at.Equal(b.at) && a.seq < b.seq
}

func (h *delayHeap[K]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.index[h.items[i].key] = i
	h.index[h.items[j].key] = j
}

func (h *delayHeap[K]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *delayHeap[K]) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h *delayHeap[K]) push(d delayed[K]) {
	h.seq++
	d.seq = h.seq
	h.index[d.key] = len(h.items)
	h.items = append(h.items, d)
	h.up(len(h.items) - 1)
}

// popMin removes and returns the earliest item; h must not be empty.
func (h *delayHeap[K]) popMin() delayed[K] {
	last := len(h.items) - 1
	h.swap(0, last)
	d := h.items[last]
	h.items[last] = delayed[K]{}
	h.items = h.items[:last]
	delete(h.index, d.key)
	h.down(0)
	return d
}

// stop drops every delayed key and the timer.
func (d *delays[K]) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.armed = time.Time{}
	d.h.items = nil
	clear(d.h.index)
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
	at := time.Now().Add(d)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutting {
		return
	}
	dl := &q.delay
	if i, ok := dl.h.index[key]; ok {
		if !at.Before(dl.h.items[i].at) {
			return
		}
		dl.h.seq++
		dl.h.items[i].at, dl.h.items[i].seq = at, dl.h.seq
		dl.h.up(i)
	} else {
		dl.h.push(delayed[K]{at: at, key: key})
	}
	q.armLocked(at)
}

// armLocked makes sure the timer fires by next, the earliest due time.
func (q *Queue[K]) armLocked(next time.Time) {
	dl := &q.delay
	if !dl.armed.IsZero() && !next.Before(dl.armed) {
		return
	}
	dl.armed = next
	wait := time.Until(next)
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
	dl.armed = time.Time{}
	now := time.Now()
	n := 0
	for len(dl.h.items) > 0 && !dl.h.items[0].at.After(now) {
		d := dl.h.popMin()
		if ok, _ := q.addLocked(d.key); ok {
			n++
			if q.timed {
				added = append(added, d.key)
			}
		}
	}
	if len(dl.h.items) > 0 {
		q.armLocked(dl.h.items[0].at)
	}
	depth := q.fifo.n
	q.mu.Unlock()
	if n > 0 {
		q.signal() // a worker that takes one passes the signal on
	}
	for _, k := range added {
		q.opts.Metrics.added(k, depth)
	}
}

package informer

// Runs: the process loop hands a batch's notifications to each listener,
// and a listener takes them from its queue, a run at a time, by columns as
// a segment stores them: a few copies per batch instead of a call and
// three stores per notification.

// unchangedBit marks, in a noteBatch's meta, a relist's confirmation
// (keyedNote's unchanged): only listeners with RelistUnchanged get it. In
// a queue it is ignored.
const unchangedBit = 0x40

// kindMask is the notifyKind in a meta byte.
const kindMask = 0x3

// noteBatch is the notifications of one batch of the process loop, by
// columns: meta is kind | flagBit | unchangedBit, and key is the index in
// the batch of the KeyDeltas whose key the note is for (for coalescing
// listeners).
type noteBatch[T Object] struct {
	old, new  []T
	meta      []uint8
	key       []int32
	unchanged int // notes with unchangedBit
}

// grow makes room for n notes, keeping those within the columns' length,
// and sets the length of every column to n.
func (nb *noteBatch[T]) grow(n int) {
	if cap(nb.meta) < n {
		c := max(n, 2*cap(nb.meta))
		nb.old = append(make([]T, 0, c), nb.old...)
		nb.new = append(make([]T, 0, c), nb.new...)
		nb.meta = append(make([]uint8, 0, c), nb.meta...)
		nb.key = append(make([]int32, 0, c), nb.key...)
	}
	nb.old, nb.new, nb.meta, nb.key = nb.old[:n], nb.new[:n], nb.meta[:n], nb.key[:n]
}

// reset clears the batch's objects, and drops its columns if they outgrew
// max notes.
func (nb *noteBatch[T]) reset(max int) {
	clear(nb.old)
	clear(nb.new)
	if cap(nb.meta) > max {
		*nb = noteBatch[T]{}
		return
	}
	nb.old, nb.new, nb.meta, nb.key = nb.old[:0], nb.new[:0], nb.meta[:0], nb.key[:0]
	nb.unchanged = 0
}

// metaOf packs a notification's kind and flag.
func metaOf(kind notifyKind, flag bool) uint8 {
	m := uint8(kind)
	if flag {
		m |= flagBit
	}
	return m
}

// pushNotesLocked queues the notes of nb, whose keys are those of batch.
// The caller holds l.mu and signals wake after.
func (l *listener[T]) pushNotesLocked(nb *noteBatch[T], batch []KeyDeltas[T]) {
	if l.removed || l.coalesceAbove > 0 || nb.unchanged > 0 && !l.relistUnchanged {
		for i, m := range nb.meta {
			if m&unchangedBit != 0 && !l.relistUnchanged {
				continue
			}
			l.pushLocked(batch[nb.key[i]].Key, notification[T]{old: nb.old[i], new: nb.new[i], kind: notifyKind(m & kindMask), flag: m&flagBit != 0})
		}
		return
	}
	l.q.pushRuns(nb.old, nb.new, nb.meta)
	l.appended += uint64(len(nb.meta))
}

// pushRuns appends the notifications of the columns old, new and meta
// (of the same length).
func (q *notifyQueue[T]) pushRuns(old, new []T, meta []uint8) {
	for len(meta) > 0 {
		q.room()
		s, ti := q.tail, q.ti
		k := copy(s.meta[ti:], meta)
		copy(s.old[ti:ti+k], old)
		copy(s.new[ti:ti+k], new)
		old, new, meta = old[k:], new[k:], meta[k:]
		q.ti += k
		q.len += k
	}
}

// takeRun takes the notifications at the head of the queue, up to max and
// to the end of the head segment: s[a:b]. They stay in place, read by the
// listener without the lock, until release; meanwhile the queue neither
// rewinds nor reuses s. The queue must not be empty.
func (q *notifyQueue[T]) takeRun(max int) (s *segment[T], a, b int) {
	s, a = q.head, q.hi
	end := segmentLen
	if s == q.tail {
		end = q.ti
	}
	b = min(end, a+max)
	q.hi = b
	q.len -= b - a
	return s, a, b
}

// release clears the run s[a:b] that takeRun took, and rewinds the queue
// or moves its head on if the run emptied it or its head segment. (If the
// queue was cleared meanwhile, s is no longer its head: only the run is
// cleared.)
func (q *notifyQueue[T]) release(s *segment[T], a, b int) {
	clear(s.old[a:b])
	clear(s.new[a:b])
	if s == q.head && a < b {
		q.afterPop()
	}
}

// afterPop rewinds or moves the head on once a pop has emptied the queue
// or its head segment.
func (q *notifyQueue[T]) afterPop() {
	switch {
	case q.len == 0:
		// One segment left (head == tail): rewind it. Any other was
		// released as the head moved on.
		q.hi, q.ti = 0, 0
	case q.hi == segmentLen:
		old := q.head
		q.head, q.hi = old.next, 0
		old.next = nil
		if q.spare == nil {
			q.spare = old
		} else if q.pool != nil {
			q.pool.Put(old)
		}
	}
}

// takeLocked takes a run of up to listenerBatch notifications
// (coalesceBatch for a coalescing listener) from the queue, forgetting the
// coalescing slots of their keys, and returns it as takeRun does; the
// caller holds l.mu, and releases the run (release) once it has called it.
func (l *listener[T]) takeLocked() (s *segment[T], a, b int) {
	max := listenerBatch
	if l.coalesceAbove > 0 {
		max = coalesceBatch
	}
	s, a, b = l.q.takeRun(max)
	if len(l.slotKeys) > 0 {
		for i := a; i < b; i++ {
			p := qslot[T]{s, i}
			if key, ok := l.slotKeys[p]; ok {
				delete(l.slotKeys, p)
				delete(l.slots, key)
			}
		}
	}
	return s, a, b
}

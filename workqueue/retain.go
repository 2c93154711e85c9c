package workqueue

// Retain drops from the queue every key for which keep returns false:
// those queued and those waiting out a delay (AddAfter, AddRateLimited),
// whose backoff is forgotten too. A key being processed is not stopped,
// but it is not queued again at its Done (an Add during its processing
// is dropped with it); a worker that adds it back afterwards (Run does
// after an error) queues it anew. keep is called without the queue's
// lock, once for each key present when Retain is called. It returns how
// many keys it dropped.
//
// For a queue that outlives the ownership of its keys, such as a sharded
// controller's across its assignments (shard/ring.PruneQueue calls it
// between two).
func (q *Queue[K]) Retain(keep func(K) bool) int {
	q.mu.Lock()
	keys := make([]K, 0, len(q.items)+len(q.delay.due))
	for k := range q.items {
		keys = append(keys, k)
	}
	for k := range q.delay.due {
		if _, ok := q.items[k]; !ok {
			keys = append(keys, k)
		}
	}
	q.mu.Unlock()
	drop := make(map[K]struct{})
	for _, k := range keys {
		if !keep(k) {
			drop[k] = struct{}{}
		}
	}
	if len(drop) == 0 {
		return 0
	}
	q.mu.Lock()
	for k := range drop {
		delete(q.delay.due, k) // its heap entry is now stale
		e, ok := q.items[k]
		switch {
		case !ok:
		case e.flags&processing != 0:
			e.flags &^= dirty
			q.items[k] = e
		default:
			delete(q.items, k)
		}
	}
	for n := q.fifo.Len(); n > 0; n-- {
		if k := q.fifo.Pop(); q.items[k].flags&queued != 0 {
			q.fifo.Push(k)
		}
	}
	q.delay.compact()
	q.checkDrainedLocked()
	q.setDepthLocked()
	q.mu.Unlock()
	q.reportDepth()
	for k := range drop {
		q.limiter.Forget(k)
	}
	return len(drop)
}

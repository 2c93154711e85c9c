package informer

// Relist marks: a DeltaFIFO feeding this Indexer marks the keys a relist
// saw and the consumer has already applied, so that at its end it can tell
// which cached keys the relist did not see without a set of the keys it did.

// internKey returns the stored key equal to b, so callers can share it,
// its relist mark, and its position (a hint for posHinted: positions change
// when the slots are compacted or replaced). h is b's keyHash. With try,
// it looks only if the lock is free at once, and reports !ok otherwise.
func (ix *Indexer[T]) internKey(b []byte, h uint32, try bool) (key string, mark uint32, pos int32, ok bool) {
	if !try {
		ix.mu.RLock()
	} else if !ix.mu.TryRLock() {
		return "", 0, 0, false
	}
	pos, _, ok = findPos(&ix.items, ix.slots.s, h, b)
	if ok {
		key, mark = ix.slots.s[pos].key, ix.slots.s[pos].mark
	}
	ix.mu.RUnlock()
	return key, mark, pos, ok
}

// posHinted is posOf with a hint: at, if positive, is a position + 1 where
// key was stored lately (see internKey). The hint is taken when that slot
// still holds key (an interned key compares by pointer; a hole's key is "",
// which no key is), which saves the lookup by key; otherwise the key is
// looked up, with h as its keyHash if it is not 0 (computed by the queue).
// The caller holds the lock.
func (ix *Indexer[T]) posHinted(key string, at int32, h uint32) (int32, bool) {
	if s := ix.slots.s; at > 0 && int(at) <= len(s) && s[at-1].key == key {
		return at - 1, true
	}
	return ix.posOfLocked(key, h)
}

// markOf returns key's relist mark, 0 if it is not stored.
func (ix *Indexer[T]) markOf(key string) uint32 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if pos, ok := ix.posOf(key); ok {
		return ix.slots.s[pos].mark
	}
	return 0
}

// setMark sets the relist mark of key, if it is stored.
func (ix *Indexer[T]) setMark(key string, mark uint32) {
	ix.mu.Lock()
	if pos, ok := ix.posOf(key); ok {
		ix.slots.s[pos].mark = mark
	}
	ix.mu.Unlock()
}

// unmarked calls fn, under the read lock, with every stored key and object
// whose relist mark is not mark. fn must not call into the Indexer.
func (ix *Indexer[T]) unmarked(mark uint32, fn func(key string, obj T)) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	// In the order of the slots, as All: a map's order is random.
	for _, sl := range ix.slots.s {
		if sl.seq != 0 && sl.mark != mark {
			fn(sl.key, sl.obj)
		}
	}
}

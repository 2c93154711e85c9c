package informer

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Indexer is a thread-safe store of objects by key, with named secondary
// indexes. It is the informer's cache.
//
// Objects returned by an Indexer are the stored objects themselves, shared
// with every other reader and with handlers: never mutate them.
//
// Key and index functions are user code; the Indexer calls them without
// holding its lock, then applies the result under the lock, retrying if the
// same key or the set of indexes changed in between. An update whose index
// values are unchanged does not touch the index maps and allocates nothing.
//
// The iterator forms (All, Values, ByIndexSeq) never hold the lock while the
// loop body runs: they copy a small batch under a read lock and yield it
// unlocked, so a loop body may read or write the Indexer. They are weakly
// consistent, like a concurrent map: every object present for the whole
// iteration is yielded once, in the state it had when it was copied; objects
// added or removed during the iteration may or may not be. The slice forms
// (List, ByIndex, Keys) are consistent snapshots.
type Indexer[T Object] struct {
	keyFunc KeyFunc[T]
	metaKey bool // keyFunc is the default, MetaKey
	ptr     bool // T is a pointer type (pointerType)

	mu    sync.RWMutex
	items keyTable // key → position in slots + 1 (see findPos)
	// miss and missKey: the last key a writer looked up and did not find,
	// its hash and the slot where it goes (see posOfLocked); cleared by
	// every change to items.
	miss    qpos
	missKey string
	slots   *slots[T]    // the entries by position
	iters   atomic.Int32 // iterators running: slots are not compacted meanwhile
	seq     uint64       // last write sequence handed out
	// staged is a first list's page that the queue made ready as
	// entries (see stage), which applyListed takes as slots as the page
	// is stored, while slots.s is a prefix of it; nil otherwise.
	staged []slot[T]

	set atomic.Pointer[indexSet[T]] // written under mu
}

// posOf returns the position of key's entry.
func (ix *Indexer[T]) posOf(key string) (int32, bool) {
	pos, _, ok := findPos(&ix.items, ix.slots.s, ix.items.hashString(key), key)
	return pos, ok
}

// posOfLocked is posOf for a writer (the lock held), with h the key's
// keyHash if it is not 0: a key not found is remembered with its hash and
// the slot where it goes, for insertLocked, which usually follows.
func (ix *Indexer[T]) posOfLocked(key string, h uint32) (int32, bool) {
	if h == 0 {
		h = ix.items.hashString(key)
	}
	pos, idx, ok := findPos(&ix.items, ix.slots.s, h, key)
	if !ok {
		ix.miss, ix.missKey = qpos{idx: idx, hash: h}, key
	}
	return pos, ok
}

// findPos looks key up in t, a map by key of the entries of s (at1 is a
// position in s + 1, whose key is compared); h is key's hash in t. It
// returns the key's position, or the empty slot where the key would go
// (-1 if t has none). Against a map[string], the key is stored once (in
// its slot), and an insert after a lookup neither hashes nor probes again
// (posOfLocked, insertLocked).
func findPos[T Object, K string | []byte](t *keyTable, s []slot[T], h uint32, key K) (pos, idx int32, ok bool) {
	if len(t.slots) == 0 {
		return 0, -1, false
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		ks := t.slots[i]
		if ks.at1 == 0 {
			return 0, int32(i), false
		}
		if ks.hash == h && s[ks.at1-1].key == string(key) {
			return ks.at1 - 1, 0, true
		}
	}
}

// IndexerOptions configures an Indexer. The zero value means MetaKey and no
// indexes.
type IndexerOptions[T Object] struct {
	// KeyFunc computes the key of an object; nil means MetaKey.
	KeyFunc KeyFunc[T]
	// Indexers are the initial indexes by name.
	Indexers map[string]IndexFunc[T]
	// NamespaceIndex adds the index NamespaceIndex, by namespace, unless
	// Indexers already has one by that name. With the default KeyFunc it is
	// kept from the keys, never calling into the objects (as is an index
	// whose function is IndexByNamespace's).
	NamespaceIndex bool
}

// NewIndexer returns an empty Indexer.
func NewIndexer[T Object](opts IndexerOptions[T]) *Indexer[T] {
	ix := &Indexer[T]{keyFunc: opts.KeyFunc, items: keyTable{}, slots: &slots[T]{}, ptr: pointerType[T]()}
	if ix.keyFunc == nil {
		ix.keyFunc, ix.metaKey = MetaKey[T], true
	}
	s := &indexSet[T]{}
	for name, fn := range opts.Indexers {
		s = s.with(name, fn, ix.metaKey && isIndexByNamespace(fn), &ix.iters)
		s.ready[len(s.ready)-1], s.unready = true, s.unready-1
	}
	if _, ok := opts.Indexers[NamespaceIndex]; opts.NamespaceIndex && !ok {
		s = s.with(NamespaceIndex, IndexByNamespace[T](), ix.metaKey, &ix.iters)
		s.ready[len(s.ready)-1], s.unready = true, s.unready-1
	}
	ix.set.Store(s)
	return ix
}

var scratchPool = sync.Pool{New: func() any { return new([2]indexValues) }}

// Add stores obj, replacing any object with the same key. It is the same as
// Update.
func (ix *Indexer[T]) Add(obj T) error {
	_, _, err := ix.Upsert(obj)
	return err
}

// Update stores obj, replacing any object with the same key. It is the same
// as Add.
func (ix *Indexer[T]) Update(obj T) error {
	_, _, err := ix.Upsert(obj)
	return err
}

// Upsert stores obj and returns the object it replaced, if any.
func (ix *Indexer[T]) Upsert(obj T) (old T, existed bool, err error) {
	if ix.metaKey {
		// The default key calls no user code: build it on the stack and,
		// when no index calls user code either, store in one locked step
		// that reuses the stored key's string.
		var buf [128]byte
		if b, ok := appendMetaKeyAs(ix.ptr, buf[:0], obj); ok {
			if s := ix.set.Load(); !s.userFuncs() {
				ix.mu.Lock()
				if ix.set.Load() == s {
					pos, _, ok := findPos(&ix.items, ix.slots.s, ix.items.hashBytes(b), b)
					var key string
					if ok {
						key = ix.slots.s[pos].key
					} else {
						key = string(b)
					}
					old, existed, _ = ix.upsertLocked(s, key, obj, pos, ok)
					ix.mu.Unlock()
					return old, existed, nil
				}
				ix.mu.Unlock()
			}
			key, _, _, ok := ix.internKey(b, ix.items.hashBytes(b), false)
			if !ok {
				key = string(b)
			}
			return ix.upsert(key, obj)
		}
	}
	key, err := keyOf(ix.keyFunc, obj)
	if err != nil {
		return old, false, err
	}
	return ix.upsert(key, obj)
}

// Delete removes the object with obj's key. Deleting an absent key is not an
// error.
func (ix *Indexer[T]) Delete(obj T) error {
	key, err := ix.keyOf(obj)
	if err != nil {
		return err
	}
	_, _, err = ix.DeleteKey(key)
	return err
}

// keyOf computes obj's key. With the default key func the key is built in a
// stack buffer and, if it is stored, the stored string is reused: writing an
// object that is already stored allocates no key.
func (ix *Indexer[T]) keyOf(obj T) (string, error) {
	if ix.metaKey {
		var buf [128]byte
		if b, ok := appendMetaKeyAs(ix.ptr, buf[:0], obj); ok {
			if key, _, _, ok := ix.internKey(b, ix.items.hashBytes(b), false); ok {
				return key, nil
			}
			return string(b), nil
		}
	}
	return keyOf(ix.keyFunc, obj)
}

// upsertLocked stores obj under key when no index of s calls user code;
// pos is the position of the entry found under key, if found. The caller
// holds the write lock and has checked that s is current. at is where
// obj is stored.
func (ix *Indexer[T]) upsertLocked(s *indexSet[T], key string, obj T, pos int32, found bool) (old T, existed bool, at int32) {
	ix.seq++
	if found {
		sl := &ix.slots.s[pos]
		old = sl.obj
		sl.obj, sl.seq = obj, ix.seq
		if s.unready > 0 {
			for i, m := range s.maps {
				if !s.ready[i] { // being filled by AddIndex: may lack the entry
					m.add(keyNamespace(key), pos)
				}
			}
		}
		return old, true, pos
	}
	pos = ix.insertLocked(key, obj)
	for _, m := range s.maps {
		m.addKey(key, pos)
	}
	return old, false, pos
}

// upsert stores obj under key.
func (ix *Indexer[T]) upsert(key string, obj T) (old T, existed bool, err error) {
	if isNil(obj) {
		return old, false, ErrNilObject
	}
	var sc *[2]indexValues
	for done := false; !done; {
		s := ix.set.Load()
		if !s.userFuncs() {
			// No index calls user code (at most the namespace index kept
			// from keys): one locked step.
			old, existed, done = ix.upsertPlain(s, key, obj)
			continue
		}
		if sc == nil {
			sc = scratchPool.Get().(*[2]indexValues)
		}
		old, existed, done, err = ix.upsertIndexed(s, key, obj, sc)
	}
	if sc != nil {
		sc[0].reset()
		sc[1].reset()
		scratchPool.Put(sc)
	}
	return old, existed, err
}

// upsertPlain stores obj in one locked step, when no index calls user
// code; done is false if the index set changed meanwhile.
func (ix *Indexer[T]) upsertPlain(s *indexSet[T], key string, obj T) (old T, existed, done bool) {
	ix.mu.Lock()
	if ix.set.Load() != s {
		ix.mu.Unlock()
		return old, false, false
	}
	pos, ok := ix.posOf(key)
	old, existed, _ = ix.upsertLocked(s, key, obj, pos, ok)
	ix.mu.Unlock()
	return old, existed, true
}

// upsertIndexed computes the index values of obj (and of the stored
// object) outside the lock, then stores obj; done is false if the index set
// or the entry changed meanwhile, and the caller tries again.
func (ix *Indexer[T]) upsertIndexed(s *indexSet[T], key string, obj T, sc *[2]indexValues) (old T, existed, done bool, err error) {
	ix.mu.RLock()
	pos, found := ix.posOf(key)
	var prev T
	var prevSeq uint64
	if found {
		prev, prevSeq = ix.slots.s[pos].obj, ix.slots.s[pos].seq
	}
	seen := ix.seq
	ix.mu.RUnlock()

	oldVals, newVals := &sc[0], &sc[1]
	if err = computeValues(newVals, s, key, obj); err != nil {
		return old, false, true, err
	}
	if found {
		if err = computeValues(oldVals, s, key, prev); err != nil {
			// The stored object's values cannot be recomputed: the index
			// function is not deterministic. Refuse rather than corrupt.
			return old, false, true, err
		}
	}

	ix.mu.Lock()
	if ix.set.Load() != s {
		ix.mu.Unlock()
		return old, false, false, nil
	}
	if ix.seq != seen {
		// Something was written since the read (not the usual case of
		// one writer): the entry must be the one read, at whatever
		// position it is now.
		cur, ok := ix.posOf(key)
		if ok != found || (ok && ix.slots.s[cur].seq != prevSeq) {
			ix.mu.Unlock()
			return old, false, false, nil
		}
		pos = cur
	}
	old, existed = ix.storeIndexedLocked(s, key, obj, pos, found, oldVals, newVals)
	ix.mu.Unlock()
	return old, existed, true, nil
}

// storeIndexedLocked stores obj at pos (or a new position), moving its
// entries in the indexes from oldVals to newVals.
func (ix *Indexer[T]) storeIndexedLocked(s *indexSet[T], key string, obj T, pos int32, found bool, oldVals, newVals *indexValues) (old T, existed bool) {
	ix.seq++
	if !found {
		pos = ix.insertLocked(key, obj)
		for i, m := range s.maps {
			m.addAll(newVals.of(i), pos)
		}
		return old, false
	}
	sl := &ix.slots.s[pos]
	old = sl.obj
	sl.obj, sl.seq = obj, ix.seq
	for i, m := range s.maps {
		ov, nv := oldVals.of(i), newVals.of(i)
		// An index that AddIndex is still filling may not hold the
		// entry yet (AddIndex skips entries written since its
		// snapshot), so it gets it even when the values are
		// unchanged.
		if s.ready[i] && equalStrings(ov, nv) {
			continue
		}
		m.removeAll(ov, pos)
		m.addAll(nv, pos)
	}
	return old, true
}

// stage prepares an empty Indexer for a first list's page that a
// DeltaFIFO made ready as entries of this Indexer (bulk.staged: key,
// object and the key's hash; seq 0). Its map and its indexes' offsets are
// sized for the page at once (else they would grow by doubling as the
// entries arrive), and applyListed stores the page's entries by taking
// the page as its slots, a run at a time as they come, instead of copying
// each into slots of its own. The page is the Indexer's from then on: the
// queue reads only the entries it has not handed out yet, which the
// Indexer never writes (its slots end at the last entry handed out and
// stored, with no room to append in place: see applyListed).
func (ix *Indexer[T]) stage(page []slot[T]) {
	ix.mu.Lock()
	if ix.items.n == 0 && len(ix.slots.s) == 0 {
		ix.items.reserve(len(page))
		ix.missKey = ""
		for _, x := range ix.set.Load().maps {
			x.reserveOffs(len(page))
		}
		ix.staged = page
	}
	ix.mu.Unlock()
}

// insertLocked stores a new entry at write sequence ix.seq and returns its
// position.
func (ix *Indexer[T]) insertLocked(key string, obj T) int32 {
	ix.staged = nil // (slots.s moves away from it: add cannot append in place)
	pos := ix.slots.add(key, obj, ix.seq)
	q := qpos{idx: -1}
	if len(ix.missKey) == len(key) && unsafe.StringData(ix.missKey) == unsafe.StringData(key) {
		q = ix.miss // this very string was just looked up, not found
	} else {
		q.hash = ix.items.hashString(key)
	}
	ix.missKey = ""
	if t := &ix.items; q.idx >= 0 && (t.n+1)*4 <= len(t.slots)*3 {
		// insert's usual case, inline: the slot is known and the table
		// does not grow.
		t.slots[q.idx] = keySlot{hash: q.hash, at1: pos + 1}
		t.n++
	} else {
		t.insert(q, pos+1)
	}
	return pos
}

// deleteLocked removes the stored entry at pos, under key, from the map and
// the slots; s's indexes must be rid of it first.
func (ix *Indexer[T]) deleteLocked(s *indexSet[T], key string, pos int32) {
	ix.items.remove(ix.items.hashString(key), pos+1)
	ix.missKey = "" // the removal may have moved the slot it found
	ix.seq++
	ix.slots.remove(pos)
	if ix.slots.sparse() && ix.iters.Load() == 0 {
		moved := ix.slots.compact()
		ix.items.renumber(func(at1 int32) int32 { return moved[at1-1] + 1 })
		for _, m := range s.maps {
			m.renumber(moved)
		}
	}
}

// DeleteKey removes the object stored under key and returns it. If an index
// function fails on the stored object the object is still removed, from
// every index, and the error is returned.
func (ix *Indexer[T]) DeleteKey(key string) (old T, existed bool, err error) {
	var sc *[2]indexValues
	defer func() {
		if sc != nil {
			sc[0].reset()
			scratchPool.Put(sc)
		}
	}()
	for {
		s := ix.set.Load()
		if !s.userFuncs() {
			// No index calls user code: one locked step.
			if old, existed, done := ix.deletePlain(s, key); done {
				return old, existed, nil
			}
			continue
		}
		ix.mu.RLock()
		pos, found := ix.posOf(key)
		var prev T
		var prevSeq uint64
		if found {
			prev, prevSeq = ix.slots.s[pos].obj, ix.slots.s[pos].seq
		}
		ix.mu.RUnlock()
		if !found {
			return old, false, nil
		}
		var valsErr error
		if len(s.funcs) > 0 {
			if sc == nil {
				sc = scratchPool.Get().(*[2]indexValues)
			}
			valsErr = computeValues(&sc[0], s, key, prev)
		}
		ix.mu.Lock()
		cur, ok := ix.posOf(key)
		if ix.set.Load() != s || !ok || ix.slots.s[cur].seq != prevSeq {
			ix.mu.Unlock()
			continue
		}
		var vals *indexValues
		if valsErr == nil && sc != nil {
			vals = &sc[0]
		}
		ix.unindexLocked(s, vals, cur)
		ix.deleteLocked(s, key, cur)
		ix.mu.Unlock()
		return prev, true, valsErr
	}
}

// deletePlain deletes key in one locked step, when no index calls user
// code; done is false if the index set changed meanwhile.
func (ix *Indexer[T]) deletePlain(s *indexSet[T], key string) (old T, existed, done bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.set.Load() != s {
		return old, false, false
	}
	pos, ok := ix.posOf(key)
	if !ok {
		return old, false, true
	}
	old = ix.slots.s[pos].obj
	for _, m := range s.maps {
		m.remove(keyNamespace(key), pos)
	}
	ix.deleteLocked(s, key, pos)
	return old, true, true
}

// unindexLocked removes pos from every index: from the buckets of vals, or,
// when vals is nil (the index function failed on the stored object: it is
// not deterministic), from every bucket, so that the deletion still happens
// and no bucket keeps it.
func (ix *Indexer[T]) unindexLocked(s *indexSet[T], vals *indexValues, pos int32) {
	for i, m := range s.maps {
		if vals == nil {
			m.removeEverywhere(pos)
			continue
		}
		m.removeAll(vals.of(i), pos)
	}
}

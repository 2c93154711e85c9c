package informer

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
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

	mu    sync.RWMutex
	items map[string]item[T]
	slots *slots[T]    // the same entries, in an array for fast iteration
	iters atomic.Int32 // iterators running: slots are not compacted meanwhile
	seq   uint64       // last entry sequence handed out

	set atomic.Pointer[indexSet[T]] // written under mu
}

// entry is one stored object. Its identity is stable for the key's life in
// the store, so index buckets hold entries and updates swap obj in place.
type entry[T Object] struct {
	key string
	obj T
	seq uint64 // changes on every write of this entry
	pos int    // position in slots
}

// item is what the map by key holds: the entry, and its object again so that
// Get reads no memory beyond the map.
type item[T Object] struct {
	e   *entry[T]
	obj T
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
	// kept from the keys, never calling into the objects.
	NamespaceIndex bool
}

// NewIndexer returns an empty Indexer.
func NewIndexer[T Object](opts IndexerOptions[T]) *Indexer[T] {
	ix := &Indexer[T]{keyFunc: opts.KeyFunc, items: map[string]item[T]{}, slots: &slots[T]{}}
	if ix.keyFunc == nil {
		ix.keyFunc, ix.metaKey = MetaKey[T], true
	}
	s := &indexSet[T]{}
	for name, fn := range opts.Indexers {
		s = s.with(name, fn, false)
		s.ready[len(s.ready)-1] = true
	}
	if _, ok := opts.Indexers[NamespaceIndex]; opts.NamespaceIndex && !ok {
		s = s.with(NamespaceIndex, IndexByNamespace[T](), ix.metaKey)
		s.ready[len(s.ready)-1] = true
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
	key, err := ix.keyOf(obj)
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
		if b, ok := appendMetaKey(buf[:0], obj); ok {
			if key, ok := ix.internKey(b); ok {
				return key, nil
			}
			return string(b), nil
		}
	}
	return keyOf(ix.keyFunc, obj)
}

// upsert stores obj under key.
func (ix *Indexer[T]) upsert(key string, obj T) (old T, existed bool, err error) {
	if isNil(obj) {
		return old, false, ErrNilObject
	}
	var sc *[2]indexValues
	for {
		s := ix.set.Load()
		if !s.userFuncs() {
			// No index calls user code (at most the namespace index kept
			// from keys): one locked step.
			ix.mu.Lock()
			if ix.set.Load() != s {
				ix.mu.Unlock()
				continue
			}
			e := ix.items[key].e
			ix.seq++
			if e != nil {
				old, existed = e.obj, true
				e.seq = ix.seq
				ix.setLocked(e, obj)
				for i, m := range s.maps {
					if !s.ready[i] { // being filled by AddIndex: may lack e
						addOne(m, keyNamespace(key), e)
					}
				}
			} else {
				e = &entry[T]{key: key, obj: obj, seq: ix.seq}
				ix.insertLocked(e)
				for _, m := range s.maps {
					addOne(m, keyNamespace(key), e)
				}
			}
			ix.mu.Unlock()
			break
		}
		if sc == nil {
			sc = scratchPool.Get().(*[2]indexValues)
		}
		ix.mu.RLock()
		e := ix.items[key].e
		var prev T
		var prevSeq uint64
		if e != nil {
			prev, prevSeq = e.obj, e.seq
		}
		seen := ix.seq
		ix.mu.RUnlock()

		oldVals, newVals := &sc[0], &sc[1]
		if err = computeValues(newVals, s, key, obj); err != nil {
			break
		}
		if e != nil {
			if err = computeValues(oldVals, s, key, prev); err != nil {
				// The stored object's values cannot be recomputed: the index
				// function is not deterministic. Refuse rather than corrupt.
				break
			}
		}

		ix.mu.Lock()
		// Nothing was written since the read (the usual case: one writer)
		// means nothing to check again; otherwise look the key up again.
		if ix.set.Load() != s || (ix.seq != seen && (ix.items[key].e != e || (e != nil && e.seq != prevSeq))) {
			ix.mu.Unlock()
			continue
		}
		ix.seq++
		if e == nil {
			e = &entry[T]{key: key, obj: obj, seq: ix.seq}
			ix.insertLocked(e)
			for i, m := range s.maps {
				addTo(m, newVals.of(i), e)
			}
		} else {
			old, existed = e.obj, true
			e.seq = ix.seq
			ix.setLocked(e, obj)
			for i, m := range s.maps {
				ov, nv := oldVals.of(i), newVals.of(i)
				// An index that AddIndex is still filling may not hold e yet
				// (AddIndex skips entries written since its snapshot), so it
				// gets e even when the values are unchanged.
				if s.ready[i] && equalStrings(ov, nv) {
					continue
				}
				removeFrom(m, ov, e)
				addTo(m, nv, e)
			}
		}
		ix.mu.Unlock()
		break
	}
	if sc != nil {
		sc[0].reset()
		sc[1].reset()
		scratchPool.Put(sc)
	}
	return old, existed, err
}

// insertLocked stores a new entry.
func (ix *Indexer[T]) insertLocked(e *entry[T]) {
	ix.items[e.key] = item[T]{e, e.obj}
	ix.slots.add(e)
}

// deleteLocked removes a stored entry from the map and the slots.
func (ix *Indexer[T]) deleteLocked(e *entry[T]) {
	delete(ix.items, e.key)
	ix.seq++
	ix.slots.remove(e)
	if ix.slots.sparse() && ix.iters.Load() == 0 {
		ix.slots.compact()
	}
}

// setLocked gives a stored entry a new object, everywhere it is kept.
func (ix *Indexer[T]) setLocked(e *entry[T], obj T) {
	e.obj = obj
	ix.items[e.key] = item[T]{e, obj}
	ix.slots.set(e)
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
			ix.mu.Lock()
			if ix.set.Load() != s {
				ix.mu.Unlock()
				continue
			}
			e := ix.items[key].e
			if e == nil {
				ix.mu.Unlock()
				return old, false, nil
			}
			ix.deleteLocked(e)
			for _, m := range s.maps {
				removeOne(m, keyNamespace(key), e)
			}
			ix.mu.Unlock()
			return e.obj, true, nil
		}
		ix.mu.RLock()
		e := ix.items[key].e
		var prev T
		var prevSeq uint64
		if e != nil {
			prev, prevSeq = e.obj, e.seq
		}
		ix.mu.RUnlock()
		if e == nil {
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
		if ix.set.Load() != s || ix.items[key].e != e || e.seq != prevSeq {
			ix.mu.Unlock()
			continue
		}
		ix.deleteLocked(e)
		for i, m := range s.maps {
			if valsErr != nil {
				// The index function failed on the stored object (it is not
				// deterministic): find the entry in every bucket instead, so
				// the deletion still happens and no bucket keeps it.
				removeEverywhere(m, e)
				continue
			}
			removeFrom(m, sc[0].of(i), e)
		}
		ix.mu.Unlock()
		return prev, true, valsErr
	}
}

// Replace swaps the whole content of the Indexer for items, atomically for
// readers. Objects whose key or index values cannot be computed are left out
// and reported in the returned error (errors.Join of each); the others are
// stored. When several items have the same key, the last one is kept.
func (ix *Indexer[T]) Replace(items []T) error {
	var errs []error
	for {
		s := ix.set.Load()
		fresh := make(map[string]item[T], len(items))
		ds := &slots[T]{s: make([]slot[T], 0, len(items))}
		maps := make([]map[string]bucket[T], len(s.maps))
		for i := range maps {
			maps[i] = map[string]bucket[T]{}
		}
		var vals indexValues
		errs = errs[:0]
		for _, obj := range items {
			key, err := keyOf(ix.keyFunc, obj)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if err := computeValues(&vals, s, key, obj); err != nil {
				errs = append(errs, err)
				continue
			}
			e := fresh[key].e
			if e != nil {
				// A duplicate key: the later object wins.
				for i, m := range maps {
					var ov indexValues
					_ = computeValues(&ov, s, key, e.obj) // succeeded just before
					removeFrom(m, ov.of(i), e)
				}
				e.obj = obj
				ds.set(e)
			} else {
				e = &entry[T]{key: key, obj: obj}
				ds.add(e)
			}
			fresh[key] = item[T]{e, obj}
			for i, m := range maps {
				addTo(m, vals.of(i), e)
			}
		}
		ix.mu.Lock()
		if ix.set.Load() != s {
			ix.mu.Unlock()
			continue
		}
		ix.seq++ // even for an empty list: writers in progress must look again
		for _, sl := range ds.s {
			ix.seq++
			sl.e.seq = ix.seq
		}
		// Iterators running over the old slots finish over them: no writer
		// changes them any more.
		ix.items, ix.slots = fresh, ds
		for i := range s.maps {
			clear(s.maps[i])
			for v, b := range maps[i] {
				s.maps[i][v] = b
			}
		}
		ix.mu.Unlock()
		return errors.Join(errs...)
	}
}

// AddIndex adds a named index and indexes every object already stored. The
// index is visible to readers once AddIndex returns successfully. If fn fails
// for a stored object the index is not added and the error is an
// *IndexError.
func (ix *Indexer[T]) AddIndex(name string, fn IndexFunc[T]) error {
	if fn == nil {
		return fmt.Errorf("informer: AddIndex %q: nil IndexFunc", name)
	}
	ix.mu.Lock()
	s := ix.set.Load()
	for _, n := range s.names {
		if n == name {
			ix.mu.Unlock()
			return fmt.Errorf("%w: %q", ErrIndexExists, name)
		}
	}
	// From here on, writers maintain the new index too.
	ix.set.Store(s.with(name, fn, false))
	type snap struct {
		e   *entry[T]
		obj T
		seq uint64
	}
	snaps := make([]snap, 0, len(ix.items))
	for _, it := range ix.items {
		snaps = append(snaps, snap{it.e, it.obj, it.e.seq})
	}
	ix.mu.Unlock()

	// Compute the values of existing objects without the lock.
	var vals indexValues
	all := make([][]string, len(snaps))
	var err error
	for k, sn := range snaps {
		s := ix.set.Load()
		i := len(s.names) - 1
		for i >= 0 && s.names[i] != name {
			i--
		}
		if i < 0 {
			break
		}
		if err = computeValue(&vals, s, i, sn.e.key, sn.obj); err != nil {
			break
		}
		all[k] = append([]string(nil), vals.of(0)...)
	}

	ix.mu.Lock()
	defer ix.mu.Unlock()
	s = ix.set.Load()
	i := -1
	for j, n := range s.names {
		if n == name {
			i = j
		}
	}
	if err != nil {
		ix.set.Store(s.withReady(i, false))
		return err
	}
	m := s.maps[i]
	for k, sn := range snaps {
		// An entry written since the snapshot was indexed by its writer; a
		// deleted one must stay out.
		if ix.items[sn.e.key].e != sn.e || sn.e.seq != sn.seq {
			continue
		}
		addTo(m, all[k], sn.e)
	}
	ix.set.Store(s.withReady(i, true))
	return nil
}

// internKey returns the stored key equal to b, so callers can share it.
func (ix *Indexer[T]) internKey(b []byte) (string, bool) {
	ix.mu.RLock()
	it, ok := ix.items[string(b)]
	ix.mu.RUnlock()
	if !ok {
		return "", false
	}
	return it.e.key, true
}

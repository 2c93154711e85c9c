package informer

import (
	"fmt"
	"iter"
)

// The read side of Indexer: lookups, snapshots and iterators.

// Get returns the object stored under key.
func (ix *Indexer[T]) Get(key string) (obj T, ok bool) {
	ix.mu.RLock()
	if pos, found := ix.posOf(key); found {
		obj, ok = ix.slots.s[pos].obj, true
	}
	ix.mu.RUnlock()
	return obj, ok
}

// Len returns the number of stored objects.
func (ix *Indexer[T]) Len() int {
	ix.mu.RLock()
	n := ix.items.n
	ix.mu.RUnlock()
	return n
}

// Keys returns a snapshot of the stored keys, in no particular order.
func (ix *Indexer[T]) Keys() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	keys := make([]string, 0, ix.items.n)
	for i := range ix.slots.s {
		if sl := &ix.slots.s[i]; sl.seq != 0 {
			keys = append(keys, sl.key)
		}
	}
	return keys
}

// List returns a snapshot of the stored objects, in no particular order.
func (ix *Indexer[T]) List() []T {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	objs := make([]T, 0, ix.items.n)
	for i := range ix.slots.s {
		if sl := &ix.slots.s[i]; sl.seq != 0 {
			objs = append(objs, sl.obj)
		}
	}
	return objs
}

// batchSize is how many objects an iterator copies per read lock.
const batchSize = 64

// All returns a weakly consistent iterator over the stored keys and objects.
func (ix *Indexer[T]) All() iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		var keys [batchSize]string
		var objs [batchSize]T
		d := ix.startIter()
		defer ix.iters.Add(-1)
		for pos, more := 0, true; more; {
			var n int
			ix.mu.RLock()
			n, pos = d.fill(pos, &keys, &objs)
			more = pos < len(d.s)
			ix.mu.RUnlock()
			for j := range n {
				if !yield(keys[j], objs[j]) {
					return
				}
			}
		}
	}
}

// Values returns a weakly consistent iterator over the stored objects.
func (ix *Indexer[T]) Values() iter.Seq[T] {
	return func(yield func(T) bool) {
		var objs [batchSize]T
		d := ix.startIter()
		defer ix.iters.Add(-1)
		for pos, more := 0, true; more; {
			var n int
			ix.mu.RLock()
			n, pos = d.fill(pos, nil, &objs)
			more = pos < len(d.s)
			ix.mu.RUnlock()
			for j := range n {
				if !yield(objs[j]) {
					return
				}
			}
		}
	}
}

// startIter registers an iterator, which keeps positions in the slots it
// returns from moving until it calls ix.iters.Add(-1).
func (ix *Indexer[T]) startIter() *slots[T] {
	ix.mu.RLock()
	ix.iters.Add(1)
	d := ix.slots
	ix.mu.RUnlock()
	return d
}

// bucketOf returns the bucket of value in the named index; the caller holds
// the read lock.
func (ix *Indexer[T]) bucketOf(index, value string) (*bucket, error) {
	s := ix.set.Load()
	i := s.find(index)
	if i < 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoSuchIndex, index)
	}
	if b := s.maps[i].buckets[value]; b != nil {
		return b, nil
	}
	return &noBucket, nil
}

// noBucket is the bucket of a value no entry has; never written.
var noBucket bucket

// ByIndex returns a snapshot of the objects whose index values include value.
func (ix *Indexer[T]) ByIndex(index, value string) ([]T, error) {
	return snapshotBucket(ix, index, value, func(sl *slot[T]) T { return sl.obj })
}

// snapshotBucket collects pick(e) for every entry of a bucket, under the
// read lock.
func snapshotBucket[T Object, V any](ix *Indexer[T], index, value string, pick func(*slot[T]) V) ([]V, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	b, err := ix.bucketOf(index, value)
	if err != nil {
		return nil, err
	}
	out := make([]V, 0, b.size())
	b.each(func(pos int32) { out = append(out, pick(&ix.slots.s[pos])) })
	return out, nil
}

// ByIndexSeq returns a weakly consistent iterator over the objects whose
// index values include value. It fails only if the index does not exist.
func (ix *Indexer[T]) ByIndexSeq(index, value string) (iter.Seq[T], error) {
	ix.mu.RLock()
	_, err := ix.bucketOf(index, value)
	ix.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return func(yield func(T) bool) {
		var objs [batchSize]T
		n := 0
		// Registered as an iterator, so that the positions in the bucket
		// keep their meaning while the loop body runs unlocked; positions
		// are read in the slots of the start, which a Replace leaves alone
		// (with the buckets of their time).
		ix.mu.RLock()
		ix.iters.Add(1)
		defer ix.iters.Add(-1)
		d := ix.slots
		b, err := ix.bucketOf(index, value)
		if err != nil {
			ix.mu.RUnlock()
			return
		}
		// A batch is full: yield it without the lock.
		flush := func() bool {
			ix.mu.RUnlock()
			for j := range n {
				if !yield(objs[j]) {
					return false
				}
			}
			n = 0
			ix.mu.RLock()
			return true
		}
		if b.set != nil {
			for pos := range b.set {
				objs[n] = d.s[pos].obj
				if n++; n == batchSize && !flush() {
					return
				}
			}
		} else {
			// A list keeps its positions in place while an iterator runs
			// (removals leave holes): read its length at every step.
			for j := 0; j < len(b.list); j++ {
				if pos := b.list[j]; pos >= 0 {
					objs[n] = d.s[pos].obj
					if n++; n == batchSize && !flush() {
						return
					}
				}
			}
		}
		ix.mu.RUnlock()
		for j := range n {
			if !yield(objs[j]) {
				return
			}
		}
	}, nil
}

// IndexKeys returns the keys of the objects whose index values include value.
func (ix *Indexer[T]) IndexKeys(index, value string) ([]string, error) {
	return snapshotBucket(ix, index, value, func(sl *slot[T]) string { return sl.key })
}

// IndexValues returns the distinct values present in the named index.
func (ix *Indexer[T]) IndexValues(index string) ([]string, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s := ix.set.Load()
	i := s.find(index)
	if i < 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoSuchIndex, index)
	}
	vals := make([]string, 0, len(s.maps[i].buckets))
	for v := range s.maps[i].buckets {
		vals = append(vals, v)
	}
	return vals, nil
}

// Indexes returns the names of the indexes readers can use.
func (ix *Indexer[T]) Indexes() []string {
	s := ix.set.Load()
	var names []string
	for i, n := range s.names {
		if s.ready[i] {
			names = append(names, n)
		}
	}
	return names
}

// hasIndex reports whether the named index is ready.
func (ix *Indexer[T]) hasIndex(name string) bool { return ix.set.Load().find(name) >= 0 }

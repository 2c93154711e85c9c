package informer

// slots holds an Indexer's entries by value in one array; the map by key
// and the index buckets refer to them by position. Listing and iterating
// read memory in order instead of chasing one pointer per object, an entry
// costs no allocation of its own, and index buckets hold plain integers
// that the garbage collector does not scan.
//
// A stored object keeps its position for as long as it is stored: deleting
// leaves a hole that a later insert reuses, and holes are squeezed out
// (compact, which renumbers the map and the buckets) only while no iterator
// is running. This is what makes the iterators weakly consistent without a
// lock held across yields: an object present for a whole iteration sits at
// one position, which the iterator passes once. Replace installs a new
// slots, so iterators still running over the old one finish over a copy no
// writer changes any more. (An iterator that is never finished, such as an
// iter.Pull whose stop is never called, only keeps holes from being
// squeezed out; inserts still reuse them.)
//
// All methods are called with the Indexer's lock held (the read lock for
// fill, the write lock for the others).
type slots[T Object] struct {
	s    []slot[T]
	free []int32 // positions of holes
}

// slot is one position: a stored entry, or a hole (seq == 0).
type slot[T Object] struct {
	key string
	obj T
	seq uint64 // the Indexer's write sequence at this entry's last write; never 0
	// mark is the mark of the last relist that saw the key (see
	// DeltaFIFO.EndReplace).
	mark uint32
	// hash is the key's keyHash while the slot is an entry of a
	// DeltaFIFO's bulk (bulk.staged), for the consumer; not kept after
	// (it fills what would be padding).
	hash uint32
}

// add places a new entry in a hole, or at the end, and returns its position.
func (d *slots[T]) add(key string, obj T, seq uint64) int32 {
	sl := slot[T]{key: key, obj: obj, seq: seq}
	if n := len(d.free); n > 0 {
		pos := d.free[n-1]
		d.free = d.free[:n-1]
		d.s[pos] = sl
		return pos
	}
	d.s = append(d.s, sl)
	return int32(len(d.s) - 1)
}

// remove turns pos into a hole.
func (d *slots[T]) remove(pos int32) {
	d.s[pos] = slot[T]{}
	d.free = append(d.free, pos)
}

// sparse reports whether enough of the array is holes to be worth a compact.
func (d *slots[T]) sparse() bool { return len(d.free) > 64 && len(d.free) > len(d.s)/2 }

// compact moves every entry down over the holes, and returns where each
// position went (-1 for a hole), so the caller can renumber its references.
// It must not run while an iterator is running.
func (d *slots[T]) compact() (moved []int32) {
	moved = make([]int32, len(d.s))
	n := int32(0)
	for i, sl := range d.s {
		if sl.seq == 0 {
			moved[i] = -1
			continue
		}
		moved[i] = n
		d.s[n] = sl
		n++
	}
	clear(d.s[n:])
	d.s = d.s[:n]
	if cap(d.s) > 4*int(n)+64 {
		d.s = append([]slot[T](nil), d.s...)
	}
	d.free = d.free[:0]
	return moved
}

// fill copies the objects (and keys, if keys is not nil) from position pos
// on into the batch arrays, up to their size. It returns how many it copied
// and the position to continue from, len(d.s) when it reached the end.
func (d *slots[T]) fill(pos int, keys *[batchSize]string, objs *[batchSize]T) (n, next int) {
	s := d.s
	for ; pos < len(s) && n < batchSize; pos++ {
		sl := &s[pos]
		if sl.seq == 0 {
			continue
		}
		if keys != nil {
			keys[n] = sl.key
		}
		objs[n] = sl.obj
		n++
	}
	return n, pos
}

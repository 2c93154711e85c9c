package informer

// slots holds an Indexer's objects in one array, beside the map by key, so
// that listing and iterating read memory in order instead of chasing one
// pointer per object through a hash map.
//
// A stored object keeps its position for as long as it is stored: deleting
// leaves a hole that a later insert reuses, and holes are squeezed out
// (compact) only while no iterator is running. This is what makes the
// iterators weakly consistent without a lock held across yields: an object
// present for a whole iteration sits at one position, which the iterator
// passes once. Replace installs a new slots, so iterators still running over
// the old one finish over a copy no writer changes any more. (An iterator
// that is never finished, such as an iter.Pull whose stop is never called,
// only keeps holes from being squeezed out; inserts still reuse them.)
//
// All methods are called with the Indexer's lock held (the read lock for
// fill, the write lock for the others).
type slots[T Object] struct {
	s    []slot[T]
	free []int // positions of holes
}

// slot is one position: a stored object, or a hole (e == nil). The object
// is kept here as well as in the entry so that listing reads only this array.
type slot[T Object] struct {
	e   *entry[T]
	obj T
}

// add places e in a hole, or at the end.
func (d *slots[T]) add(e *entry[T]) {
	sl := slot[T]{e: e, obj: e.obj}
	if n := len(d.free); n > 0 {
		e.pos = d.free[n-1]
		d.free = d.free[:n-1]
		d.s[e.pos] = sl
		return
	}
	e.pos = len(d.s)
	d.s = append(d.s, sl)
}

// set records a new object for e.
func (d *slots[T]) set(e *entry[T]) { d.s[e.pos].obj = e.obj }

// remove turns e's position into a hole.
func (d *slots[T]) remove(e *entry[T]) {
	d.s[e.pos] = slot[T]{}
	d.free = append(d.free, e.pos)
}

// sparse reports whether enough of the array is holes to be worth a compact.
func (d *slots[T]) sparse() bool { return len(d.free) > 64 && len(d.free) > len(d.s)/2 }

// compact moves every object down over the holes. Positions change, so it
// must not run while an iterator is running.
func (d *slots[T]) compact() {
	n := 0
	for _, sl := range d.s {
		if sl.e != nil {
			sl.e.pos = n
			d.s[n] = sl
			n++
		}
	}
	clear(d.s[n:])
	d.s = d.s[:n]
	if cap(d.s) > 4*n+64 {
		d.s = append([]slot[T](nil), d.s...)
	}
	d.free = d.free[:0]
}

// fill copies the objects (and keys, if keys is not nil) from position pos
// on into the batch arrays, up to their size. It returns how many it copied
// and the position to continue from, len(d.s) when it reached the end.
func (d *slots[T]) fill(pos int, keys *[batchSize]string, objs *[batchSize]T) (n, next int) {
	s := d.s
	for ; pos < len(s) && n < batchSize; pos++ {
		sl := &s[pos]
		if sl.e == nil {
			continue
		}
		if keys != nil {
			keys[n] = sl.e.key
		}
		objs[n] = sl.obj
		n++
	}
	return n, pos
}

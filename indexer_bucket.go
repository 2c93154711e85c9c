package informer

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"sync/atomic"
	"unsafe"
)

// index is the buckets of one index, by value. It is shared by the copies
// of an indexSet and changed under the Indexer's write lock.
//
// An index kept from keys (the namespace index over MetaKey keys: one
// value per entry, never changing for a key) keeps each bucket's positions
// in a list, and offs[pos], the offset of pos in its bucket's list, so
// that a removal swaps the last position into the hole: adding and
// removing cost an append and a swap, not a map insert and delete (which
// cost several hundred instructions per object in a first list). Other
// indexes, whose entries may have several values, keep sets.
type index struct {
	buckets map[string]*bucket
	list    bool
	offs    []int32
	// iters counts the Indexer's running iterators: while one runs, a
	// removal from a list leaves a hole (-1) instead of moving the last
	// position, so that an iterator passes each position present
	// throughout once.
	iters *atomic.Int32
	// last is the bucket of the value lastV, the last one added to or
	// removed from (nil: none): a list from a Kubernetes server comes
	// sorted by namespace, so most objects find their bucket here
	// instead of by a map lookup.
	lastV string
	last  *bucket
	// near caches buckets by nearHash of their value (direct-mapped, its
	// length a power of two, about eight times the number of buckets):
	// keys not in namespace order (a list from another kind of source, a
	// watch's new keys) find their bucket here rather than by a map
	// lookup, which costs several times more. nearShift is 64 - log2 of
	// its length. Allocated when first used, and again (empty) as the
	// buckets grow.
	near      []*bucket
	nearShift uint8
}

// The bounds of len(index.near).
const (
	nearMin = 64
	nearMax = 4096
)

// nearHash is v's hash for index.near (the slot is its top bits): a few
// instructions over v's length and its first and last eight bytes, not a
// hash a server could not aim at (index.near is only a cache: a collision
// costs the map lookup).
func nearHash(v string) uint64 {
	n := len(v)
	b := unsafe.Slice(unsafe.StringData(v), n)
	var x uint64
	switch {
	case n >= 8:
		x = binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[n-8:]), 31)
	case n >= 4: // the first and last four, which may overlap
		x = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<32
	case n > 0:
		x = uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16
	}
	return (x ^ uint64(n)) * 0x9e3779b97f4a7c15
}

// bucket is the set of entries indexed under one value, by their positions
// in the Indexer's slots: set, or, in an index kept from keys, list, with
// holes (-1) left by removals while an iterator ran.
type bucket struct {
	set   map[int32]struct{}
	list  []int32
	holes int
	v     string // the bucket's value (the map's key)
}

func newIndex(list bool, iters *atomic.Int32) *index {
	return &index{buckets: map[string]*bucket{}, list: list, iters: iters}
}

// size returns how many positions b holds.
func (b *bucket) size() int {
	if b.set != nil {
		return len(b.set)
	}
	return len(b.list) - b.holes
}

// each calls fn with every position of b.
func (b *bucket) each(fn func(pos int32)) {
	if b.set != nil {
		for pos := range b.set {
			fn(pos)
		}
		return
	}
	for _, pos := range b.list {
		if pos >= 0 {
			fn(pos)
		}
	}
}

// has reports whether b, a bucket of x, holds pos.
func (x *index) has(b *bucket, pos int32) bool {
	if b.set != nil {
		_, ok := b.set[pos]
		return ok
	}
	if int(pos) >= len(x.offs) {
		return false
	}
	// Positions are unique and offs[pos] follows pos into every bucket
	// it joins, so a stale offset never finds pos.
	off := x.offs[pos]
	return int(off) < len(b.list) && b.list[off] == pos
}

// bucketOf returns the bucket of v, nil if there is none.
func (x *index) bucketOf(v string) *bucket {
	if x.last != nil && v == x.lastV {
		return x.last
	}
	return x.bucketNear(v)
}

// bucketNear is bucketOf for a value other than the last one.
func (x *index) bucketNear(v string) *bucket {
	if x.near == nil {
		x.resizeNear()
	}
	slot := &x.near[nearHash(v)>>x.nearShift]
	b := *slot
	if b == nil || b.v != v {
		if b = x.buckets[v]; b == nil {
			return nil
		}
		*slot = b
	}
	x.lastV, x.last = b.v, b
	return b
}

// resizeNear makes index.near about eight times as long as the number of
// buckets, within its bounds, and empty.
func (x *index) resizeNear() {
	n := nearMin
	for n < 8*len(x.buckets) && n < nearMax {
		n *= 2
	}
	x.near = make([]*bucket, n)
	x.nearShift = uint8(64 - bits.TrailingZeros(uint(n)))
}

// add indexes the entry at pos under v.
func (x *index) add(v string, pos int32) {
	b := x.bucketOf(v)
	if b == nil {
		b = x.newBucket(v)
	}
	x.addTo(b, pos)
}

// addKey indexes the entry at pos, whose key is key, under the key's
// namespace part (keyNamespace): an index kept from keys. A key of the
// last bucket's namespace (a list in namespace order) is told by its
// prefix, without looking for the "/".
func (x *index) addKey(key string, pos int32) {
	// The last value, a namespace part, has no "/": the key's first one
	// follows it.
	if n := len(x.lastV); x.last != nil && len(key) > n && key[n] == '/' && key[:n] == x.lastV {
		x.addTo(x.last, pos)
		return
	}
	// Not the last value either (which the check above would have
	// told): bucketOf's first check is skipped.
	v := keyNamespace(key)
	b := x.bucketNear(v)
	if b == nil {
		b = x.newBucket(v)
	}
	x.addTo(b, pos)
}

// addTo adds pos to b, a bucket of x.
func (x *index) addTo(b *bucket, pos int32) {
	if !x.list {
		b.set[pos] = struct{}{}
		return
	}
	if int(pos) >= len(x.offs) {
		x.growOffs(pos)
	} else if x.has(b, pos) {
		return // AddIndex filling an index that a writer has indexed
	}
	x.offs[pos] = int32(len(b.list))
	b.list = append(b.list, pos)
}

// newBucket adds an empty bucket for v, the last one.
func (x *index) newBucket(v string) *bucket {
	v = strings.Clone(v) // not a piece of the key (of a first list's shared block: see bulkOf)
	b := &bucket{v: v}
	if !x.list {
		b.set = map[int32]struct{}{}
	}
	x.buckets[v] = b
	x.lastV, x.last = v, b
	if len(x.near) < 8*len(x.buckets) && len(x.near) < nearMax {
		x.resizeNear()
	}
	x.near[nearHash(v)>>x.nearShift] = b
	return b
}

// growOffs makes room in offs for pos, doubling it.
func (x *index) growOffs(pos int32) {
	offs := make([]int32, max(int(pos)+1, 2*len(x.offs), 64))
	copy(offs, x.offs)
	x.offs = offs
}

// reserveOffs makes room in offs for n positions at once, for an empty
// index kept in lists that a first list of n entries is about to fill
// (growOffs, doubling, would allocate about twice that on the way).
func (x *index) reserveOffs(n int) {
	if x.list && len(x.offs) < n {
		x.offs = make([]int32, n)
	}
}

// addAll indexes the entry at pos under vals.
func (x *index) addAll(vals []string, pos int32) {
	for _, v := range vals {
		x.add(v, pos)
	}
}

// remove removes pos from the bucket of v, dropping the bucket if empty.
func (x *index) remove(v string, pos int32) {
	b := x.bucketOf(v)
	if b == nil {
		return
	}
	x.removeFrom(v, b, pos)
}

// removeFrom removes pos from b, the bucket of v.
func (x *index) removeFrom(v string, b *bucket, pos int32) {
	switch {
	case b.set != nil:
		delete(b.set, pos)
	case !x.has(b, pos):
		return
	case x.iters.Load() > 0:
		b.list[x.offs[pos]] = -1
		b.holes++
	default:
		if b.holes > 0 {
			x.squeeze(b)
		}
		off, last := x.offs[pos], len(b.list)-1
		moved := b.list[last]
		b.list[off] = moved
		x.offs[moved] = off
		b.list = b.list[:last]
	}
	if b.size() == 0 {
		delete(x.buckets, v)
		if x.last == b {
			x.last = nil
		}
		if len(x.near) > 0 {
			if slot := &x.near[nearHash(v)>>x.nearShift]; *slot == b {
				*slot = nil
			}
		}
	}
}

// squeeze removes the holes of b's list; no iterator may be running.
func (x *index) squeeze(b *bucket) {
	n := 0
	for _, pos := range b.list {
		if pos >= 0 {
			b.list[n] = pos
			x.offs[pos] = int32(n)
			n++
		}
	}
	b.list = b.list[:n]
	b.holes = 0
}

// removeAll removes pos from the buckets of vals.
func (x *index) removeAll(vals []string, pos int32) {
	for _, v := range vals {
		x.remove(v, pos)
	}
}

// removeEverywhere removes pos from every bucket: the slow path for when
// the entry's values cannot be computed.
func (x *index) removeEverywhere(pos int32) {
	for v, b := range x.buckets {
		if x.has(b, pos) {
			x.removeFrom(v, b, pos)
		}
	}
}

// renumber rewrites every position after a compact of the slots (no
// iterator is running); moved maps each old position to its new one.
func (x *index) renumber(moved []int32) {
	if x.list {
		// In place: a position only moves down.
		for _, b := range x.buckets {
			n := 0
			for _, pos := range b.list {
				if pos >= 0 {
					b.list[n] = moved[pos]
					x.offs[moved[pos]] = int32(n)
					n++
				}
			}
			b.list, b.holes = b.list[:n], 0
		}
		return
	}
	var scratch []int32
	for _, b := range x.buckets {
		scratch = scratch[:0]
		for pos := range b.set {
			scratch = append(scratch, moved[pos])
		}
		clear(b.set)
		for _, pos := range scratch {
			b.set[pos] = struct{}{}
		}
	}
}

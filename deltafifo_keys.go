package informer

import "hash/maphash"

// keyTable is a DeltaFIFO's index of its keys: key → position of the
// key's entry (pending), for the keys queued or in flight and, when the
// known objects are an *Indexer, the cached ones too (the entry then
// holds the key's string and its position in the Indexer). An Indexer
// keeps its map by key in one too (findPos). It is an
// open-addressing table of 8-byte slots (linear probing; deletion by
// backward shift, so it never fills with deletion marks) that holds no
// strings: a slot has 32 bits of the key's hash and where the entry is,
// and the key is read from the entry when the hashes agree. Against a map[string]int32, queueing a new key
// probes once for the lookup and the insert, and popping it hashes nothing
// (the hash is kept in the pending entry). With the cached keys in it, a
// change to a cached key is one probe under the queue's lock: no lookup in
// the Indexer (its lock and its map) to share the key's string and find
// its position.
type keyTable struct {
	slots []keySlot // len a power of two, or 0
	n     int
}

// keySlot is one slot of a keyTable: at1 is the position + 1 of the key's
// entry, or 0 for an empty slot.
type keySlot struct {
	hash uint32
	at1  int32
}

// qpos is what a lookup of a key found: the position of its entry when
// the key is queued, or noPending; idx, the slot the probe ended on (the
// key's, or the empty one where an insert of the key goes), or -1; kk,
// the position + 1 of its entry when it has one but is not queued (it is
// cached, or in flight), or 0.
type qpos struct {
	at   int32
	idx  int32
	hash uint32
	// cached is the key's position in the known Indexer + 1 when it was
	// found there or in its entry (a hint, see Indexer.posHinted),
	// or 0.
	cached int32
	kk     int32
}

// notQueued is a qpos for a key known not to be queued, whose slot is yet
// to be found.
var notQueued = qpos{at: noPending, idx: -1}

// keySeed seeds the hash of every keyTable: random, so that a server
// cannot choose keys that collide, and one per process, so that a key's
// hash computed once serves every table (a first list's keys are hashed
// by the reflector's goroutine for the Indexer's table: slot.hash in
// bulk.staged).
var keySeed = maphash.MakeSeed()

// keyHash is key's hash in every keyTable.
func keyHash(key string) uint32 { return uint32(maphash.String(keySeed, key)) }

func (t *keyTable) hashString(s string) uint32 { return keyHash(s) }
func (t *keyTable) hashBytes(b []byte) uint32  { return uint32(maphash.Bytes(keySeed, b)) }

// findKey looks key up among f's keys; h is its hash.
func findKey[T Object, K string | []byte](f *DeltaFIFO[T], h uint32, key K) qpos {
	t := &f.items
	if len(t.slots) == 0 {
		return qpos{at: noPending, idx: -1, hash: h}
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		switch {
		case s.at1 == 0:
			return qpos{at: noPending, idx: int32(i), hash: h}
		case s.hash != h:
		default:
			if p := f.pendAt(s.at1 - 1); p.key == string(key) {
				if p.state == entryQueued {
					return qpos{at: s.at1 - 1, idx: int32(i), hash: h}
				}
				return qpos{at: noPending, idx: int32(i), hash: h, cached: p.cached, kk: s.at1}
			}
		}
	}
}

// insert records a key not in the table, at1 as in keySlot; q is its
// lookup.
func (t *keyTable) insert(q qpos, at1 int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.resize(max(16, 2*len(t.slots)))
		q.idx = -1
	}
	mask := uint32(len(t.slots) - 1)
	i := uint32(q.idx)
	if q.idx < 0 {
		for i = q.hash & mask; t.slots[i].at1 != 0; i = (i + 1) & mask {
		}
	}
	t.slots[i] = keySlot{hash: q.hash, at1: at1}
	t.n++
}

// slotOf returns the index of the slot holding at1, whose key's hash is h.
func (t *keyTable) slotOf(h uint32, at1 int32) uint32 {
	mask := uint32(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].at1 != at1 {
		i = (i + 1) & mask
	}
	return i
}

// remove forgets the key whose slot holds at1 (as in keySlot) and whose
// hash is h.
func (t *keyTable) remove(h uint32, at1 int32) {
	mask := uint32(len(t.slots) - 1)
	i := t.slotOf(h, at1)
	// Shift back the slots that follow, up to an empty one, that may sit
	// at i: those whose home is not in (i, j].
	for j := (i + 1) & mask; t.slots[j].at1 != 0; j = (j + 1) & mask {
		home := t.slots[j].hash & mask
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = keySlot{}
	t.n--
}

// reserve sizes an empty table for n keys.
func (t *keyTable) reserve(n int) {
	size := 16
	for size*3 < n*4 {
		size *= 2
	}
	if size > len(t.slots) {
		t.resize(size)
	}
}

// resize rehashes into n slots (a power of two).
func (t *keyTable) resize(n int) {
	old := t.slots
	t.slots = make([]keySlot, n)
	mask := uint32(n - 1)
	for _, s := range old {
		if s.at1 == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].at1 != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// Known keys. A DeltaFIFO whose known objects are an *Indexer keeps the
// entry of a key the consumer stored after its deltas are done (done
// learns where the Indexer put it, applyBatch's KeyDeltas.cached), in the
// state entryKnown, and frees it when a deletion is applied, so that the
// table holds the cached keys: a change to one is queued in the key's
// entry, found with one probe. A key the Indexer holds without the table
// knowing it (a bulk's, stored before its first change; a restored
// cache's; one written to the Indexer directly) is looked up in the
// Indexer, as it would be without the table. A key deleted from the
// Indexer directly stays in the table until a deletion of it is queued
// and done, or a relist infers it: only a position hint and a shared
// string that are out of date.

// doneEntryLocked ends the flight of the entry at position at, whose
// deltas the consumer is done with: kept (cached at position cached - 1),
// the entry holds the cached key; else it is freed, and the key leaves
// the table.
func (f *DeltaFIFO[T]) doneEntryLocked(at int32, keep bool, cached int32) {
	p := f.pendAt(at)
	switch {
	case p.moved:
		// A newer entry holds the key: it gets the position.
		if keep {
			q := findKey(f, p.hash, p.key)
			if q.at != noPending {
				f.pendAt(q.at).cached = cached
			} else if q.kk > 0 {
				f.pendAt(q.kk - 1).cached = cached
			}
		}
	case keep:
		p.deltas, p.one[0] = nil, Delta[T]{}
		p.cached, p.state, p.initial = cached, entryKnown, false
		f.nknown++
		return
	default:
		f.items.remove(p.hash, at+1)
	}
	*p = pending[T]{gen: uint32(f.freed)}
	f.freed = at + 1
}

// compactLocked moves the cached keys' entries to the first positions
// when most entries are free; nothing may be queued or in flight (only
// the key table refers to entries). The key table, if most of it is
// empty too (a backlog of keys since deleted), is rebuilt to fit.
func (f *DeltaFIFO[T]) compactLocked() {
	if f.npend < 1024 || int(f.npend) < 4*f.nknown {
		return
	}
	pages := make([]*[pendPageLen]pending[T], 0, (2*f.nknown+pendPageLen-1)/pendPageLen)
	n := int32(0)
	f.items.renumber(func(at1 int32) int32 {
		if int(n/pendPageLen) == len(pages) {
			pages = append(pages, new([pendPageLen]pending[T]))
		}
		pages[n/pendPageLen][n%pendPageLen] = *f.pendAt(at1 - 1)
		n++
		return n
	})
	f.pages, f.npend, f.freed = pages, n, 0
}

// renumber rewrites every slot's at1 as at says; a table four times the
// size its keys need or more is rebuilt to fit them (a backlog of keys
// since deleted gives its slots back).
func (t *keyTable) renumber(at func(at1 int32) int32) {
	for i, s := range t.slots {
		if s.at1 != 0 {
			t.slots[i].at1 = at(s.at1)
		}
	}
	if size := t.fit(); 4*size <= len(t.slots) {
		t.resize(size)
	}
}

// fit returns the number of slots that holds the table's keys and one
// more without growing.
func (t *keyTable) fit() int {
	size := 16
	for (t.n+1)*4 > size*3 {
		size *= 2
	}
	return size
}

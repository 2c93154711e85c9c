package informer

import "hash/maphash"

// keyTable is a DeltaFIFO's index of its queued keys: key → position of the
// key's pending entry. It is an open-addressing table of 8-byte slots
// (linear probing; deletion by backward shift, so it never fills with
// deletion marks) that holds no strings: a slot has 32 bits of the key's
// hash and the position, and the key is read from the pending entry when
// the hashes agree. Against a map[string]int32, queueing a new key probes
// once for the lookup and the insert, and popping it hashes nothing (the
// hash is kept in the pending entry).
type keyTable struct {
	seed  maphash.Seed
	slots []keySlot // len a power of two, or 0
	n     int
}

// keySlot is one slot of a keyTable; at1 == 0 is empty.
type keySlot struct {
	hash uint32
	at1  int32 // position + 1
}

// qpos is what a lookup of a key among the queued ones found: the position
// of its pending entry, or noPending; when not queued, where an insert of
// the key goes (hash, and idx, the empty slot the probe ended on, or -1).
type qpos struct {
	at   int32
	idx  int32
	hash uint32
	// cached is the key's position in the known Indexer + 1 when
	// internLocked found it there (a hint, see Indexer.posHinted), or 0.
	cached int32
}

// notQueued is a qpos for a key known not to be queued, whose slot is yet
// to be found.
var notQueued = qpos{at: noPending, idx: -1}

func (t *keyTable) hashString(s string) uint32 { return uint32(maphash.String(t.seed, s)) }
func (t *keyTable) hashBytes(b []byte) uint32  { return uint32(maphash.Bytes(t.seed, b)) }

// findKey looks key up among f's queued keys; h is its hash.
func findKey[T Object, K string | []byte](f *DeltaFIFO[T], h uint32, key K) qpos {
	t := &f.items
	if len(t.slots) == 0 {
		return qpos{at: noPending, idx: -1, hash: h}
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.at1 == 0 {
			return qpos{at: noPending, idx: int32(i), hash: h}
		}
		if s.hash == h && f.pendAt(s.at1-1).key == string(key) {
			return qpos{at: s.at1 - 1, idx: int32(i), hash: h}
		}
	}
}

// insert records a key not queued, at position at; q is its lookup.
func (t *keyTable) insert(q qpos, at int32) {
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
	t.slots[i] = keySlot{hash: q.hash, at1: at + 1}
	t.n++
}

// remove forgets the queued key at position at, whose hash is h.
func (t *keyTable) remove(h uint32, at int32) {
	mask := uint32(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].at1 != at+1 {
		i = (i + 1) & mask
	}
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

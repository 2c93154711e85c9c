package informer

import "hash/maphash"

// keyTable is a DeltaFIFO's index of its keys: the queued ones, key →
// position of the key's pending entry, and, when the known objects are an
// *Indexer, the cached ones too, key → known entry (the key's string and
// its position in the Indexer). It is an open-addressing table of 8-byte
// slots (linear probing; deletion by backward shift, so it never fills
// with deletion marks) that holds no strings: a slot has 32 bits of the
// key's hash and where the entry is, and the key is read from the entry
// when the hashes agree. Against a map[string]int32, queueing a new key
// probes once for the lookup and the insert, and popping it hashes nothing
// (the hash is kept in the pending entry). With the cached keys in it, a
// change to a cached key is one probe under the queue's lock: no lookup in
// the Indexer (its lock and its map) to share the key's string and find
// its position.
type keyTable struct {
	seed  maphash.Seed
	slots []keySlot // len a power of two, or 0
	n     int
}

// keySlot is one slot of a keyTable: at1 > 0 is the position + 1 of a
// queued key's pending entry, at1 < 0 is -(i + 1) for the known entry i of
// a cached key with nothing queued, at1 == 0 is empty.
type keySlot struct {
	hash uint32
	at1  int32
}

// knownKey is a cached key in the key table (DeltaFIFO.knownKeys): the
// key's string, shared with the Indexer's, and its position there + 1 (a
// hint, see Indexer.posHinted). A queued key's pending entry refers to
// it (pending.kk), so that popping the key puts it back in the key's
// slot.
type knownKey struct {
	key    string
	hash   uint32
	cached int32
}

// qpos is what a lookup of a key found: the position of its pending
// entry, or noPending when it has nothing queued; idx, the slot the probe
// ended on (the key's, or the empty one where an insert of the key goes),
// or -1; the key's known entry + 1 (kk), or 0.
type qpos struct {
	at   int32
	idx  int32
	hash uint32
	// cached is the key's position in the known Indexer + 1 when it was
	// found there or in its known entry (a hint, see Indexer.posHinted),
	// or 0.
	cached int32
	kk     int32
}

// notQueued is a qpos for a key known not to be queued, whose slot is yet
// to be found.
var notQueued = qpos{at: noPending, idx: -1}

func (t *keyTable) hashString(s string) uint32 { return uint32(maphash.String(t.seed, s)) }
func (t *keyTable) hashBytes(b []byte) uint32  { return uint32(maphash.Bytes(t.seed, b)) }

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
		case s.at1 > 0:
			if f.pendAt(s.at1-1).key == string(key) {
				return qpos{at: s.at1 - 1, idx: int32(i), hash: h}
			}
		default:
			if k := &f.knownKeys[-s.at1-1]; k.key == string(key) {
				return qpos{at: noPending, idx: int32(i), hash: h, cached: k.cached, kk: -s.at1}
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

// Known keys. A DeltaFIFO whose known objects are an *Indexer keeps a key
// the consumer stored in the key table after its deltas are done (done
// learns where the Indexer put it, applyBatch's KeyDeltas.stored), and
// forgets it when a deletion is applied, so that the table holds the
// cached keys. A key the Indexer holds without the table knowing it (a
// bulk's, stored before its first change; a restored cache's; one written
// to the Indexer directly) is looked up in the Indexer, as it would be
// without the table. A key deleted from the Indexer directly stays in the
// table until a deletion of it is queued and done, or a relist infers it:
// only a position hint and a shared string that are out of date.

// newKnownLocked returns a new known entry for key + 1.
func (f *DeltaFIFO[T]) newKnownLocked(key string, h uint32, cached int32) int32 {
	f.nknown++
	if n := len(f.knownFree); n > 0 {
		kk := f.knownFree[n-1]
		f.knownFree = f.knownFree[:n-1]
		f.knownKeys[kk-1] = knownKey{key: key, hash: h, cached: cached}
		return kk
	}
	f.knownKeys = append(f.knownKeys, knownKey{key: key, hash: h, cached: cached})
	return int32(len(f.knownKeys))
}

// keptLocked records what the consumer did with the key of the pending
// entry p, whose deltas are done: stored (at position cached - 1) or not.
// It keeps the key in the table while it is cached.
func (f *DeltaFIFO[T]) keptLocked(p *pending[T], stored bool, cached int32) {
	if stored && p.kk > 0 {
		// The usual case, a change to a cached key. (With several
		// consumers, the entry may have been freed and reused meanwhile:
		// then another key gets a wrong hint, which posHinted checks.)
		if cached != p.cached {
			f.knownKeys[p.kk-1].cached = cached
		}
		return
	}
	q := findKey(f, p.hash, p.key)
	switch {
	case !stored:
		if q.kk > 0 {
			// Deleted, and nothing queued for it since: forget it. (If
			// it is queued again, popping that decides.)
			f.items.remove(p.hash, -q.kk)
			f.knownKeys[q.kk-1] = knownKey{}
			f.knownFree = append(f.knownFree, q.kk)
			f.nknown--
		}
	case q.kk > 0:
		f.knownKeys[q.kk-1].cached = cached
	case q.at != noPending:
		// Queued again since: the pending entry gets the known one.
		if np := f.pendAt(q.at); np.kk == 0 {
			np.kk = f.newKnownLocked(np.key, np.hash, cached)
		} else {
			f.knownKeys[np.kk-1].cached = cached
		}
	default:
		kk := f.newKnownLocked(p.key, p.hash, cached)
		f.items.insert(q, -kk)
	}
}

// shrinkKnownLocked moves the known entries down over the free ones when
// most are free; nothing may be queued or in flight (no pending entry
// refers to them).
func (f *DeltaFIFO[T]) shrinkKnownLocked() {
	if len(f.knownKeys) < 1024 || f.nknown*4 > len(f.knownKeys) {
		return
	}
	keys := make([]knownKey, 0, 2*f.nknown)
	for i, s := range f.items.slots {
		if s.at1 < 0 {
			keys = append(keys, f.knownKeys[-s.at1-1])
			f.items.slots[i].at1 = -int32(len(keys))
		}
	}
	f.knownKeys, f.knownFree = keys, nil
}

package informer

import (
	"errors"
	"slices"
	"unsafe"
)

// applyBatch applies every delta of batch to the Indexer, in order (a
// deletion deletes the key, any other delta stores its object), and
// appends what each found to dst. When no index calls user code, the whole
// batch is applied under one lock.
func (ix *Indexer[T]) applyBatch(batch []KeyDeltas[T], dst []applyResult[T]) []applyResult[T] {
	dst, _ = ix.applyNoting(batch, dst, nil)
	return dst
}

// applyNoting is applyBatch, which with nb (not nil, its columns at least
// len(batch) long) also makes the notes of the batch's first keys that
// are a watch's update of a key at its position hint (the steady state),
// as applyHinted applies them, in nb's first noted notes; dst has no
// results for these keys.
func (ix *Indexer[T]) applyNoting(batch []KeyDeltas[T], dst []applyResult[T], nb *noteBatch[T]) (results []applyResult[T], noted int) {
	if s := ix.set.Load(); !s.userFuncs() {
		ix.mu.Lock()
		if ix.set.Load() == s {
			dst = slices.Grow(dst, len(batch))
			if nb != nil && s.unready == 0 && ix.ptr {
				noted = ix.applyNoted(batch, nb)
			}
			for i := noted; i < len(batch); i++ {
				if s.unready == 0 {
					if i, dst = ix.applyFast(s, batch, i, dst); i == len(batch) {
						break
					}
				}
				dst = ix.applyKeyLocked(s, &batch[i], dst)
			}
			ix.mu.Unlock()
			return dst, noted
		}
		ix.mu.Unlock()
	}
	for _, kd := range batch {
		for _, d := range kd.Deltas {
			var res applyResult[T]
			if d.Type == DeltaDeleted {
				res.old, res.existed, res.err = ix.DeleteKey(kd.Key)
			} else {
				res.old, res.existed, res.err = ix.upsert(kd.Key, d.Object)
			}
			dst = append(dst, res)
		}
	}
	return dst, 0
}

// applyFast applies, from batch[i] on, the keys that applyHinted or
// applyListed take (the usual cases: a change to a stored key at its
// position hint, a first list's key), and returns the index of the first
// key it left to applyKeyLocked. No index of s is being filled.
func (ix *Indexer[T]) applyFast(s *indexSet[T], batch []KeyDeltas[T], i int, dst []applyResult[T]) (int, []applyResult[T]) {
	if batch[i].cached > 0 {
		i, dst = ix.applyHinted(batch, i, dst)
	}
	if i < len(batch) && batch[i].fromBulk {
		i, dst = ix.applyListed(s, batch, i, dst)
	}
	return i, dst
}

// applyKeyLocked applies the deltas of one key, in order, appending what
// each found to dst, and records in kd where the key is stored after them
// (see KeyDeltas.cached). The caller holds the lock and has checked that
// s is current.
func (ix *Indexer[T]) applyKeyLocked(s *indexSet[T], kd *KeyDeltas[T], dst []applyResult[T]) []applyResult[T] {
	pos, ok := ix.posHinted(kd.Key, kd.cached, kd.hash)
	ds := kd.Deltas
	for j := range ds {
		d := &ds[j]
		var res applyResult[T]
		switch {
		case d.Type == DeltaDeleted:
			if ok {
				res.old, res.existed = ix.slots.s[pos].obj, true
				for _, m := range s.maps {
					m.remove(keyNamespace(kd.Key), pos)
				}
				ix.deleteLocked(s, kd.Key, pos)
				ok = false
			}
		case isNilAs(ix.ptr, d.Object):
			res.err = ErrNilObject
		case ok && s.unready == 0:
			// upsertLocked's update of a stored key, inline.
			sl := &ix.slots.s[pos]
			ix.seq++
			res.old, res.existed = sl.obj, true
			sl.obj, sl.seq = d.Object, ix.seq
		default:
			res.old, res.existed, pos = ix.upsertLocked(s, kd.Key, d.Object, pos, ok)
			ok = true
		}
		dst = append(dst, res)
	}
	kd.applied, kd.cached = true, 0
	if ok {
		// The stored key's string, which the queue then keeps for the
		// key (a key queued with a string of its own, say while this
		// lock was held, shares it from now on: applyHinted's checks).
		kd.cached, kd.Key = pos+1, ix.slots.s[pos].key
	}
	return dst
}

// applyNoted applies batch's first keys as applyHinted does, as long as
// their delta is a watch's update (DeltaUpdated), and makes each one's
// note (an update from the stored object to the new one) in nb, at the
// key's index; it returns how many keys it took. For a pointer T; nb's
// columns are at least len(batch) long.
func (ix *Indexer[T]) applyNoted(batch []KeyDeltas[T], nb *noteBatch[T]) int {
	sl, seq := ix.slots.s, ix.seq
	olds, news := nb.old[:len(batch)], nb.new[:len(batch)]
	metas, keys := nb.meta[:len(batch)], nb.key[:len(batch)]
	k := 0
	for ; k < len(batch); k++ {
		kd := &batch[k]
		at := uint(kd.cached) - 1
		if len(kd.Deltas) != 1 || at >= uint(len(sl)) {
			break
		}
		e, d := &sl[at], &kd.Deltas[0]
		// As in applyHinted, for a watch's update only.
		if d.Type != DeltaUpdated || e.seq == 0 || len(e.key) != len(kd.Key) ||
			unsafe.StringData(e.key) != unsafe.StringData(kd.Key) || isNilAs(true, d.Object) {
			break
		}
		seq++
		olds[k], news[k], metas[k], keys[k] = e.obj, d.Object, uint8(notifyUpdate), int32(k)
		e.obj, e.seq = d.Object, seq
		kd.applied = true // and kd.cached stays at + 1
	}
	ix.seq = seq
	return k
}

// applyHinted applies, from batch[i] on, each key that has one delta, which
// stores an object, and a position hint that holds (the steady state's
// change to a cached key), appending to dst within its capacity; it
// returns the index of the first key it left to applyBatch's general case.
// It calls nothing, so that its loop keeps its values in registers (a
// call clobbers them all): for a pointer T only. The caller holds the lock
// and has checked that no index is being filled.
func (ix *Indexer[T]) applyHinted(batch []KeyDeltas[T], i int, dst []applyResult[T]) (int, []applyResult[T]) {
	if !ix.ptr {
		return i, dst // isNilAs would call isNil
	}
	sl, seq := ix.slots.s, ix.seq
	keys := batch[i:]
	keys = keys[:min(len(keys), cap(dst)-len(dst))]
	out := dst[len(dst):][:len(keys)]
	k := 0
	for ; k < len(keys); k++ {
		kd := &keys[k]
		at := uint(kd.cached) - 1
		if len(kd.Deltas) != 1 || at >= uint(len(sl)) {
			break
		}
		e, d := &sl[at], &kd.Deltas[0]
		// The key of the slot the hint names is the key's string itself
		// (internKey), unless the slot was given to another key or is a
		// hole (seq 0); comparing pointers calls nothing.
		if e.seq == 0 || len(e.key) != len(kd.Key) || unsafe.StringData(e.key) != unsafe.StringData(kd.Key) ||
			d.Type == DeltaDeleted || isNilAs(true, d.Object) {
			break
		}
		seq++
		out[k] = applyResult[T]{old: e.obj, existed: true}
		e.obj, e.seq = d.Object, seq
		kd.applied = true // and kd.cached stays at + 1
	}
	ix.seq = seq
	return i + k, dst[:len(dst)+k]
}

// applyListed stores, from batch[i] on, each key of a first list (from a
// bulk: one delta, which stores an object, and the key's hash) that the
// Indexer does not hold yet, appending its result to dst; it returns the
// index of the first key it left to applyNoting's general case (a key it
// holds: a list with a key twice). The caller holds the lock and has
// checked that s is current and that no index is being filled (every
// index of s is kept from keys).
//
// The keys are stored in three loops: their slots appended; each key
// looked up and inserted in the key table, with one probe; the indexes.
// The key table is read at random, and most of its reads miss the
// processor's caches: in a loop of their own, a few instructions each,
// the processor has several in flight at once.
func (ix *Indexer[T]) applyListed(s *indexSet[T], batch []KeyDeltas[T], i int, dst []applyResult[T]) (int, []applyResult[T]) {
	n := ix.listedRun(batch[i:])
	if n == 0 || len(ix.slots.free) > 0 {
		return i, dst // (with holes, the positions are not the next ones)
	}
	run := batch[i : i+n]
	t := &ix.items
	t.reserve(t.n + n)
	base, seq := len(ix.slots.s), ix.seq
	staged := ix.stagedRun(run, base)
	if staged > 0 {
		// The page's entries hold the keys and objects already.
		ix.slots.s = ix.staged[: base+staged : base+staged]
		for k := range staged {
			seq++
			ix.slots.s[base+k].seq = seq
		}
	}
	if staged < n || base+staged == len(ix.staged) {
		ix.staged = nil
	}
	for k := staged; k < n; k++ {
		seq++
		ix.slots.s = append(ix.slots.s, slot[T]{key: run[k].Key, obj: run[k].Deltas[0].Object, seq: seq})
	}
	sl := ix.slots.s
	k := 0
	for ; k < n; k++ {
		_, idx, found := findPos(t, sl, run[k].hash, run[k].Key)
		if found {
			break // stored, or earlier in the run
		}
		t.slots[idx] = keySlot{hash: run[k].hash, at1: int32(base+k) + 1}
	}
	t.n += k
	if k < n {
		// The run's entries from k on are left to applyKeyLocked: slots
		// end at k (the run's are handed out: clearing them takes
		// nothing from the queue; a staged page's beyond the run are its
		// queue's still, and slots get no room to append over them).
		clear(ix.slots.s[base+k:])
		if staged > 0 {
			ix.slots.s = ix.slots.s[: base+k : base+k]
		} else {
			ix.slots.s = ix.slots.s[:base+k]
		}
		ix.staged = nil
	}
	ix.seq += uint64(k)
	ix.missKey = "" // the table changed (see posOfLocked)
	for j := range run[:k] {
		pos := int32(base + j)
		for _, m := range s.maps {
			m.addKey(run[j].Key, pos)
		}
		dst = append(dst, applyResult[T]{})
		run[j].applied, run[j].cached = true, pos+1
	}
	return i + k, dst
}

// stagedRun returns how many keys at the head of run, which applyListed
// stores from position base on, are the entries of the staged page at the
// same positions, which slots.s is a prefix of.
func (ix *Indexer[T]) stagedRun(run []KeyDeltas[T], base int) int {
	st := ix.staged
	if st == nil || len(ix.slots.s) != base ||
		(base > 0 && unsafe.SliceData(ix.slots.s) != unsafe.SliceData(st)) {
		return 0
	}
	st = st[base:min(len(st), base+len(run))]
	for k := range st {
		// The queue hands the page's entries out in order, each with
		// the entry's key string: run[k] is the entry at base+k if it
		// has that string. (Two entries share one only if both keys are
		// one cluster-scoped name, and then the second is a duplicate,
		// which ends the chain: see applyListed.)
		if unsafe.StringData(run[k].Key) != unsafe.StringData(st[k].key) || len(run[k].Key) != len(st[k].key) {
			return k
		}
	}
	return len(st)
}

// listedRun returns how many keys at the head of run applyListed may
// take: a bulk's, each with one delta that stores an object, its hash
// and no position hint.
func (ix *Indexer[T]) listedRun(run []KeyDeltas[T]) int {
	for n := range run {
		kd := &run[n]
		if !kd.fromBulk || kd.cached != 0 || kd.hash == 0 || len(kd.Deltas) != 1 ||
			kd.Deltas[0].Type == DeltaDeleted || isNilAs(ix.ptr, kd.Deltas[0].Object) {
			return n
		}
	}
	return len(run)
}

// Replace swaps the whole content of the Indexer for items, atomically for
// readers. Objects whose key or index values cannot be computed are left out
// and reported in the returned error (errors.Join of each); the others are
// stored. When several items have the same key, the last one is kept.
func (ix *Indexer[T]) Replace(items []T) error {
	var errs []error
	for {
		s := ix.set.Load()
		fresh := keyTable{}
		fresh.reserve(len(items))
		ds := &slots[T]{s: make([]slot[T], 0, len(items))}
		maps := make([]*index, len(s.maps))
		for i := range maps {
			maps[i] = newIndex(s.fromKey[i], &ix.iters)
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
			h := fresh.hashString(key)
			pos, _, dup := findPos(&fresh, ds.s, h, key)
			if dup {
				// A duplicate key: the later object wins.
				var ov indexValues
				_ = computeValues(&ov, s, key, ds.s[pos].obj) // succeeded just before
				for i, m := range maps {
					m.removeAll(ov.of(i), pos)
				}
				ds.s[pos].obj = obj
			} else {
				pos = ds.add(key, obj, 1)
				fresh.insert(qpos{idx: -1, hash: h}, pos+1)
			}
			for i, m := range maps {
				m.addAll(vals.of(i), pos)
			}
		}
		ix.mu.Lock()
		if ix.set.Load() != s {
			ix.mu.Unlock()
			continue
		}
		ix.seq++ // even for an empty list: writers in progress must look again
		for i := range ds.s {
			ix.seq++
			ds.s[i].seq = ix.seq
		}
		// Iterators running over the old slots finish over them: no writer
		// changes them any more.
		ix.items, ix.slots, ix.missKey, ix.staged = fresh, ds, "", nil
		for i := range s.maps {
			*s.maps[i] = *maps[i]
		}
		ix.mu.Unlock()
		return errors.Join(errs...)
	}
}

// Package share is the table through which decoders share what repeats:
// internal/jsondec (values decoded from JSON) and internal/protodec
// (from Kubernetes protobuf) look up a decoded slice, map or pointer to a
// struct by a hash of the raw bytes it was decoded from, confirmed by
// comparing them, and set it to the value the table holds for those
// bytes. The decoders decide what is worth a lookup and how a value is
// stored; the table decides what it keeps and for how long.
//
// The policy: a value enters the table the second time its bytes are
// seen (the first sighting only records their hash in a small
// fixed-size filter), so data with nothing to share costs a hash per
// value and no copy of its bytes. Per value the table holds a copy of its
// bytes and a weak pointer (package weak), so it pins nothing a decoded
// object does not: an entry whose value was collected is reused when
// met, dropped when swept, and past a byte budget the table forgets
// everything (values already shared stay valid; later decodes start new
// ones).
//
// A value in the table is read-only by contract, and the table checks it:
// its fingerprint (see fingerprint.go) is taken when it enters and
// compared on every hit, so that a value some program wrote into is never
// handed out again. It is evicted and reported (Written), and the decode
// that met it decodes the bytes afresh.
package share

import (
	"hash/maphash"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// Table holds the values decodes share. A decode holds the table's lock
// (Lock) while it uses Key, Find and Enter; Stats takes it itself. A nil
// *Table is not usable: decoders take nil to mean no sharing.
type Table struct {
	mu      sync.Mutex
	seed    maphash.Seed
	seen    []uint64 // admission filter: hashes seen once, by their top bits
	entries map[Key]*entry
	bytes   int // raw bytes held by entries
	budget  int
	sweepAt int // entry count at which the next sweep runs

	stats   Stats
	fpSeed  uint64
	pending []*entry  // entered in the decode under way: fingerprinted by Seal
	written []Written // found in the decode under way: returned by Seal
}

// Stats counts what a Table did.
type Stats struct {
	Lookups  uint64 // shareable values looked up
	Hits     uint64 // of those, set to a value the table held
	Entries  int    // values the table holds now
	RawBytes int    // raw bytes the table holds now
	Resets   uint64 // times the budget made it forget everything
	Written  uint64 // values found written into (and evicted)
}

// DefaultBudget is the raw bytes a Table holds at most by default.
const DefaultBudget = 64 << 20

const seenBits = 14 // 16,384 hashes (128 KiB) in the admission filter

// Key is where a value is filed: the hash of its raw bytes and the id of
// the codec that decoded it (NewIDs), since equal bytes give equal values
// only through one codec.
type Key struct {
	h  uint64
	id uint32
}

type entry struct {
	raw  []byte
	val  weak.Pointer[byte] // the pointer, map or slice data
	n    int                // a slice's length
	next *entry             // another value whose bytes hash the same
	s    *shape             // the value's type, for its fingerprint
	fp   uint64             // its fingerprint, once sealed
	seal bool               // fp is set (else it entered in this decode)
}

// New returns an empty table that holds at most budget raw bytes
// (DefaultBudget when budget <= 0).
func New(budget int) *Table {
	if budget <= 0 {
		budget = DefaultBudget
	}
	seed := maphash.MakeSeed()
	return &Table{seed: seed, budget: budget, sweepAt: 1024, fpSeed: maphash.Comparable(seed, 0x5eed)}
}

var ids atomic.Uint32

// NewIDs reserves n consecutive codec ids and returns the first: the ids
// of every decoder that uses tables, whatever its package, differ.
func NewIDs(n uint32) uint32 { return ids.Add(n) - n + 1 }

// Lock locks the table for a decode.
func (t *Table) Lock() { t.mu.Lock() }

// Unlock unlocks it.
func (t *Table) Unlock() { t.mu.Unlock() }

// Stats returns the table's counters.
func (t *Table) Stats() Stats {
	if t == nil {
		return Stats{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.stats
	st.Entries = len(t.entries)
	st.RawBytes = t.bytes
	return st
}

// Key returns the key of raw, decoded by the codec id, and counts a
// lookup. The lock is held.
func (t *Table) Key(id uint32, raw []byte) Key {
	t.stats.Lookups++
	return Key{maphash.Bytes(t.seed, raw), id}
}

// Find returns the value the table holds for raw under k (for a slice,
// the address of its first element and its length), or nil. When it
// returns nil, enter says whether the value decoded from raw should
// enter the table (Enter): raw was seen once before, or its value was
// collected, or it was found written into (its fingerprint changed: it
// is evicted, and Seal reports it). The lock is held.
func (t *Table) Find(k Key, raw []byte) (v unsafe.Pointer, n int, enter bool) {
	for e := t.entries[k]; e != nil; e = e.next {
		if string(e.raw) != string(raw) {
			continue
		}
		p := e.val.Value()
		if p == nil {
			return nil, 0, true // collected: the next value takes its place
		}
		if e.seal && fingerprint(t.fpSeed, e.s, unsafe.Pointer(p), e.n) != e.fp {
			t.evict(k, e, unsafe.Pointer(p))
			return nil, 0, true
		}
		t.stats.Hits++
		return unsafe.Pointer(p), e.n, false
	}
	if t.seen == nil {
		t.seen = make([]uint64, 1<<seenBits)
	}
	// Two slots per hash: one taken by another hash leaves the other,
	// so that two values whose first slots collide, seen in turn, are
	// both admitted on their second sighting instead of evicting each
	// other for ever.
	mixed := k.h ^ uint64(k.id)*0x9E3779B97F4A7C15
	want := mixed | 1
	s1 := &t.seen[mixed>>(64-seenBits)]
	s2 := &t.seen[(mixed>>(64-2*seenBits))&(1<<seenBits-1)]
	switch {
	case *s1 == want:
		*s1 = 0
	case *s2 == want:
		*s2 = 0
	case *s1 == 0:
		*s1 = want
		return nil, 0, false
	default:
		*s2 = want
		return nil, 0, false
	}
	return nil, 0, true
}

// Enter makes data (a slice's first element, with n its length; a map;
// a pointer), held in slots of type typ (the slice, map or pointer type),
// the value the table holds for raw under k, replacing a collected or
// written one. data must not be written to any more, and a slice's
// holders must have its length as capacity, so that an append copies.
// Its fingerprint is taken by Seal, at the end of the decode. The lock
// is held.
func (t *Table) Enter(k Key, raw []byte, typ reflect.Type, data unsafe.Pointer, n int) {
	if t.entries == nil {
		t.entries = make(map[Key]*entry)
	}
	s := shapeOf(typ)
	for e := t.entries[k]; e != nil; e = e.next {
		if string(e.raw) == string(raw) {
			e.val, e.n, e.s, e.seal = weak.Make((*byte)(data)), n, s, false
			t.pending = append(t.pending, e)
			return
		}
	}
	if len(t.written) > 0 {
		t.freshFor(k, raw, data, n)
	}
	if t.bytes+len(raw) > t.budget || len(t.entries) >= t.sweepAt {
		t.sweep()
	}
	e := &entry{raw: append([]byte(nil), raw...), val: weak.Make((*byte)(data)), n: n, next: t.entries[k], s: s}
	t.entries[k] = e
	t.bytes += len(e.raw)
	t.pending = append(t.pending, e)
}

// evict drops e, filed under k, whose value v was found written into,
// and records it for Seal.
func (t *Table) evict(k Key, e *entry, v unsafe.Pointer) {
	t.stats.Written++
	t.written = append(t.written, Written{Type: e.s.typ, old: v, n: e.n, raw: e.raw, key: k})
	for pp := t.entries[k]; ; pp = pp.next {
		if pp == e {
			t.entries[k] = e.next
			break
		}
		if pp.next == e {
			pp.next = e.next
			break
		}
	}
	if t.entries[k] == nil {
		delete(t.entries, k)
	}
	t.bytes -= len(e.raw)
}

// freshFor links the value decoded in place of a written one (same key
// and raw bytes, in this decode) to its report.
func (t *Table) freshFor(k Key, raw []byte, data unsafe.Pointer, n int) {
	for i := range t.written {
		w := &t.written[i]
		if w.fresh == nil && w.key == k && string(w.raw) == string(raw) {
			w.fresh, w.nFresh = data, n
		}
	}
}

// Seal ends a decode: it takes the fingerprints of the values that
// entered the table in it, and returns the values it found written into
// (nil if none), which the table no longer holds. The lock is held.
func (t *Table) Seal() []Written {
	for i, e := range t.pending {
		if p := e.val.Value(); p != nil && !e.seal {
			e.fp, e.seal = fingerprint(t.fpSeed, e.s, unsafe.Pointer(p), e.n), true
		}
		t.pending[i] = nil
	}
	t.pending = t.pending[:0]
	if len(t.written) == 0 {
		return nil
	}
	w := t.written
	t.written = nil
	for i := range w {
		w[i].explain()
		w[i].raw = nil
	}
	return w
}

// Sweep drops the entries whose values were collected now rather than
// when the table next grows (for tests: what the table pins).
func (t *Table) Sweep() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep()
}

// sweep drops the entries whose values were collected; if what is left
// still takes more than half the budget, it drops everything.
func (t *Table) sweep() {
	for k, e := range t.entries {
		var keep *entry
		for e != nil {
			next := e.next
			if e.val.Value() != nil {
				e.next = keep
				keep = e
			} else {
				t.bytes -= len(e.raw)
			}
			e = next
		}
		if keep == nil {
			delete(t.entries, k)
		} else {
			t.entries[k] = keep
		}
	}
	if t.bytes > t.budget/2 {
		clear(t.entries)
		t.bytes = 0
		t.stats.Resets++
	}
	t.sweepAt = max(1024, 2*len(t.entries))
}

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
package share

import (
	"hash/maphash"
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

	stats Stats
}

// Stats counts what a Table did.
type Stats struct {
	Lookups  uint64 // shareable values looked up
	Hits     uint64 // of those, set to a value the table held
	Entries  int    // values the table holds now
	RawBytes int    // raw bytes the table holds now
	Resets   uint64 // times the budget made it forget everything
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
}

// New returns an empty table that holds at most budget raw bytes
// (DefaultBudget when budget <= 0).
func New(budget int) *Table {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Table{seed: maphash.MakeSeed(), budget: budget, sweepAt: 1024}
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
// collected. The lock is held.
func (t *Table) Find(k Key, raw []byte) (v unsafe.Pointer, n int, enter bool) {
	for e := t.entries[k]; e != nil; e = e.next {
		if string(e.raw) != string(raw) {
			continue
		}
		if v := e.val.Value(); v != nil {
			t.stats.Hits++
			return unsafe.Pointer(v), e.n, false
		}
		return nil, 0, true // collected: the next value takes its place
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
// a pointer) the value the table holds for raw under k, replacing a
// collected one. data must not be written to any more, and a slice's
// holders must have its length as capacity, so that an append copies.
// The lock is held.
func (t *Table) Enter(k Key, raw []byte, data unsafe.Pointer, n int) {
	if t.entries == nil {
		t.entries = make(map[Key]*entry)
	}
	for e := t.entries[k]; e != nil; e = e.next {
		if string(e.raw) == string(raw) {
			e.val, e.n = weak.Make((*byte)(data)), n
			return
		}
	}
	if t.bytes+len(raw) > t.budget || len(t.entries) >= t.sweepAt {
		t.sweep()
	}
	e := &entry{raw: append([]byte(nil), raw...), val: weak.Make((*byte)(data)), n: n, next: t.entries[k]}
	t.entries[k] = e
	t.bytes += len(e.raw)
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

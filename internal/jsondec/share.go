package jsondec

import (
	"errors"
	"hash/maphash"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// Shared is a table of decoded values that decodes through it share: a
// slice, map or pointer to a struct decoded from the same bytes as one
// the table still knows is set to that same value (the same backing
// array, map or pointer) instead of a copy of its own. The pods of one
// Deployment, byte for byte identical in their containers, volumes,
// tolerations, labels and managed fields, then hold those once.
//
// A value is found by a hash of its raw JSON bytes (with the Go type and
// the decoding mode) and confirmed by comparing those bytes, so what a
// decode gives is exactly what it gives without sharing (the values are
// equal; only their identity differs). Values decoded into memory the
// target already held (a non-nil pointer, map or slice) are not shared,
// nor those of a decode that saved a type error. A value enters the
// table the second time its bytes are seen (the first sighting only
// records their hash in a small fixed-size filter), so that data with
// nothing to share costs a hash per value and no copy of its bytes.
//
// What the table holds: per shared value, a copy of its bytes and a weak
// pointer (package weak), so it pins nothing a decoded object does not:
// an entry whose value was collected is dropped when met or swept, and
// past a byte budget the table forgets everything (values already shared
// stay valid; later decodes just start new copies).
//
// Sharing makes the decoded values immutable by contract: writing into a
// shared slice's elements, a shared map or a shared struct changes every
// object that holds it. A caller that hands decoded objects out must say
// so (the informer's objects are read-only already) and may replace a
// field of an object (obj.Spec.Containers = ...) but must not write
// through one.
//
// A nil *Shared decodes without sharing. A Shared is safe for concurrent
// use; decodes through one table are serialized (one lock per call).
type Shared struct {
	mu      sync.Mutex
	seed    maphash.Seed
	seen    []uint64 // admission filter: hashes seen once, by their top bits
	entries map[shareKey]*shareEntry
	bytes   int // raw bytes held by entries
	budget  int
	sweepAt int // entry count at which the next sweep runs

	stats ShareStats
}

// ShareStats counts what a Shared did.
type ShareStats struct {
	Lookups  uint64 // shareable values decoded
	Hits     uint64 // of those, set to a value the table held
	Entries  int    // values the table holds now
	RawBytes int    // bytes of raw JSON the table holds now
	Resets   uint64 // times the budget made it forget everything
}

// DefaultShareBudget is the raw JSON a Shared holds at most by default.
const DefaultShareBudget = 64 << 20

const (
	seenBits = 14 // 16,384 hashes (128 KiB) in the admission filter
)

// minShare is the shortest raw JSON of a value of type t worth a lookup:
// a map costs a few hundred bytes however small, a small struct or
// slice less than its lookup (a hash of its bytes, once per level of
// nesting) and its table entry.
func minShare(t reflect.Type) int {
	switch {
	case t.Kind() == reflect.Map:
		return 8
	case t.Kind() == reflect.Pointer && t.Elem().Size() >= 64:
		return 16
	}
	return 64
}

type shareKey struct {
	h  uint64
	id uint32 // the codec (type, variant) and mode
}

type shareEntry struct {
	raw  []byte
	val  weak.Pointer[byte] // the pointer, map or slice data
	n    int                // a slice's length
	next *shareEntry        // another value whose bytes hash the same
}

// NewShared returns an empty table that holds at most budget bytes of
// raw JSON (DefaultShareBudget when budget <= 0).
func NewShared(budget int) *Shared {
	if budget <= 0 {
		budget = DefaultShareBudget
	}
	return &Shared{seed: maphash.MakeSeed(), budget: budget, sweepAt: 1024}
}

// Stats returns the table's counters.
func (s *Shared) Stats() ShareStats {
	if s == nil {
		return ShareStats{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Entries = len(s.entries)
	st.RawBytes = s.bytes
	return st
}

// Unmarshal is Unmarshal (package function) through the table.
func (s *Shared) Unmarshal(data []byte, v any) error {
	_, err := s.unmarshal(data, v, false, false)
	return err
}

// UnmarshalKube is UnmarshalKube (package function) through the table.
func (s *Shared) UnmarshalKube(data []byte, v any) error {
	_, err := s.unmarshal(data, v, true, false)
	return err
}

// UnmarshalKubePrefix is UnmarshalKubePrefix (package function) through
// the table.
func (s *Shared) UnmarshalKubePrefix(data []byte, v any) (int, error) {
	return s.unmarshal(data, v, true, true)
}

func (s *Shared) unmarshal(data []byte, v any, kube, prefix bool) (int, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return 0, invalidUnmarshal(v)
	}
	if s == nil || !rv.Elem().IsZero() {
		// Decoding into a value that holds data may write into what it
		// points to, which must not be shared: no sharing.
		return unmarshalWith(data, rv, kube, prefix, nil)
	}
	s.mu.Lock()
	n, err := unmarshalWith(data, rv, kube, prefix, s)
	s.mu.Unlock()
	if errors.Is(err, errShareConflict) {
		// A key came twice in one object: decoding it again would write
		// into a value that may be shared. Decode again without sharing.
		rv.Elem().SetZero()
		return unmarshalWith(data, rv, kube, prefix, nil)
	}
	return n, err
}

// errShareConflict stops a shared decode at a struct field that comes
// twice in one JSON object; Shared decodes again without sharing.
var errShareConflict = errors.New("jsondec: field repeated in a shared decode")

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// shareKind is how a shareable value is stored.
type shareKind uint8

const (
	sharePtr   shareKind = iota // a pointer (to a struct)
	shareMap                    // a map: one pointer word
	shareSlice                  // a slice header
)

// shareIDs numbers the shareable decoders; an id's low bit is the mode.
var shareIDs atomic.Uint32

// shareable reports how a value of type t can be shared: slices and maps
// of anything but zero-size elements, pointers to structs.
func shareable(t reflect.Type) (shareKind, bool) {
	switch t.Kind() {
	case reflect.Slice:
		return shareSlice, t.Elem().Size() > 0
	case reflect.Map:
		return shareMap, true
	case reflect.Pointer:
		return sharePtr, t.Elem().Kind() == reflect.Struct && t.Elem().Size() > 0
	}
	return 0, false
}

// shareDec wraps the decoder f of a shareable type t: without a table it
// is f; with one, a fresh value is decoded by f, then looked up.
func shareDec(t reflect.Type, f decFunc) decFunc {
	kind, ok := shareable(t)
	if !ok {
		return f
	}
	id := shareIDs.Add(1) << 1
	least := minShare(t)
	return func(d *decoder, p ptr) error {
		if d.share == nil {
			return f(d, p)
		}
		start := d.off
		if *(*unsafe.Pointer)(p) != nil { // a pointer, a map, a slice's data
			return f(d, p)
		}
		if err := f(d, p); err != nil || d.saved != nil || d.off-start < least {
			return err
		}
		k := id
		if d.kube {
			k |= 1
		}
		d.share.dedupe(k, d.data[start:d.off], p, kind)
		return nil
	}
}

// dedupe sets the value at p, decoded from raw, to the table's value
// for raw, or enters it in the table. s.mu is held.
func (s *Shared) dedupe(id uint32, raw []byte, p ptr, kind shareKind) {
	data := *(*unsafe.Pointer)(p)
	n := 0
	if kind == shareSlice {
		n = (*sliceHeader)(p).len
		if n == 0 {
			return
		}
	}
	if data == nil {
		return
	}
	s.stats.Lookups++
	h := maphash.Bytes(s.seed, raw)
	key := shareKey{h, id}
	first := s.entries[key]
	for e := first; e != nil; e = e.next {
		if e.n != n || string(e.raw) != string(raw) {
			continue
		}
		v := e.val.Value()
		if v == nil {
			// Collected: this value becomes the table's.
			e.val = weak.Make((*byte)(data))
			return
		}
		s.stats.Hits++
		*(*unsafe.Pointer)(p) = unsafe.Pointer(v)
		if kind == shareSlice {
			// The capacity is the length: an append copies.
			(*sliceHeader)(p).cap = n
		}
		return
	}
	// Not in the table: enter it the second time its bytes are seen.
	if s.seen == nil {
		s.seen = make([]uint64, 1<<seenBits)
	}
	mixed := h ^ uint64(id)*0x9E3779B97F4A7C15
	slot := &s.seen[mixed>>(64-seenBits)]
	if *slot != mixed|1 {
		*slot = mixed | 1
		return
	}
	*slot = 0
	if s.entries == nil {
		s.entries = make(map[shareKey]*shareEntry)
	}
	if s.bytes+len(raw) > s.budget || len(s.entries) >= s.sweepAt {
		s.sweep()
		first = s.entries[key]
	}
	if kind == shareSlice {
		// The capacity is the length, for this holder too: an append
		// copies instead of writing past the shared elements.
		(*sliceHeader)(p).cap = n
	}
	e := &shareEntry{raw: append([]byte(nil), raw...), val: weak.Make((*byte)(data)), n: n, next: first}
	s.entries[key] = e
	s.bytes += len(e.raw)
}

// sweep drops the entries whose values were collected; if what is left
// still takes more than half the budget, it drops everything.
func (s *Shared) sweep() {
	for k, e := range s.entries {
		var keep *shareEntry
		for e != nil {
			next := e.next
			if e.val.Value() != nil {
				e.next = keep
				keep = e
			} else {
				s.bytes -= len(e.raw)
			}
			e = next
		}
		if keep == nil {
			delete(s.entries, k)
		} else {
			s.entries[k] = keep
		}
	}
	if s.bytes > s.budget/2 {
		clear(s.entries)
		s.bytes = 0
		s.stats.Resets++
	}
	s.sweepAt = max(1024, 2*len(s.entries))
}

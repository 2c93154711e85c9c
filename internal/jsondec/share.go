package jsondec

import (
	"errors"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/informer-go/informer/internal/share"
)

// Shared decodes through a table of values that decodes share (package
// internal/share): a slice, map or pointer to a struct decoded from the
// same bytes as one the table still knows is set to that same value (the
// same backing array, map or pointer) instead of a copy of its own. The
// pods of one Deployment, byte for byte identical in their containers,
// volumes, tolerations, labels and managed fields, then hold those once.
//
// A value is found by a hash of its raw JSON bytes (with the Go type and
// the decoding mode) and confirmed by comparing those bytes, so what a
// decode gives is exactly what it gives without sharing (the values are
// equal; only their identity differs). A target that is not zero is
// decoded into without the table, after every slice, map and pointer it
// reaches is replaced by a copy (share.Unshare): the merge that
// encoding/json does into what a target refers to then writes into
// nothing shared, so the target ends up with encoding/json's values, but
// never in memory it held before. Nor are the values of a decode that
// saved a type error shared. What the table keeps,
// and for how long, is share.Table's policy: a value enters on the second
// sighting of its bytes, is held by a weak pointer (it pins nothing), and
// the table forgets everything past its byte budget. A value holding a
// resource.Quantity that reading would write into (String caches the
// text of one parsed from text that is not canonical, such as "1024Mi")
// is not shared (share.Stable).
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
	t     *share.Table
	found func(share.Written, any)
}

// WithFound returns a Shared over s's table that, after each decode,
// calls found with each value the table was found to hold written into
// (the decode did not use it) and the decoded target. nil for a nil s.
func (s *Shared) WithFound(found func(w share.Written, target any)) *Shared {
	if s == nil {
		return nil
	}
	return &Shared{s.t, found}
}

// ShareStats counts what a Shared's table did.
type ShareStats = share.Stats

// DefaultShareBudget is the raw JSON a Shared holds at most by default.
const DefaultShareBudget = share.DefaultBudget

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

// NewShared returns a Shared over a new table that holds at most budget
// bytes of raw JSON (DefaultShareBudget when budget <= 0).
func NewShared(budget int) *Shared {
	return &Shared{t: share.New(budget)}
}

// SharedBy returns a Shared over t, which other decoders (protodec) may
// use too; nil for a nil t.
func SharedBy(t *share.Table) *Shared {
	if t == nil {
		return nil
	}
	return &Shared{t: t}
}

// Stats returns the table's counters.
func (s *Shared) Stats() ShareStats {
	if s == nil {
		return ShareStats{}
	}
	return s.t.Stats()
}

// Unmarshal is Unmarshal (package function) through the table.
func (s *Shared) Unmarshal(data []byte, v any) error {
	_, _, err := s.unmarshal(data, v, false, false)
	return err
}

// UnmarshalKube is UnmarshalKube (package function) through the table.
func (s *Shared) UnmarshalKube(data []byte, v any) error {
	_, _, err := s.unmarshal(data, v, true, false)
	return err
}

// UnmarshalKubePrefix is UnmarshalKubePrefix (package function) through
// the table.
func (s *Shared) UnmarshalKubePrefix(data []byte, v any) (int, error) {
	n, _, err := s.unmarshal(data, v, true, true)
	return n, err
}

// UnmarshalKubeChecked is UnmarshalKube that also returns the values the
// table was found to hold written into while decoding (see
// share.Written): the decode did not use them, and the table no longer
// holds them.
func (s *Shared) UnmarshalKubeChecked(data []byte, v any) ([]share.Written, error) {
	_, w, err := s.unmarshal(data, v, true, false)
	return w, err
}

// UnmarshalKubePrefixChecked is UnmarshalKubePrefix that also returns
// what UnmarshalKubeChecked does.
func (s *Shared) UnmarshalKubePrefixChecked(data []byte, v any) (int, []share.Written, error) {
	return s.unmarshal(data, v, true, true)
}

func (s *Shared) unmarshal(data []byte, v any, kube, prefix bool) (int, []share.Written, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return 0, nil, invalidUnmarshal(v)
	}
	if s == nil {
		n, err := unmarshalWith(data, rv, kube, prefix, nil)
		return n, nil, err
	}
	if !zeroMemory(rv.Elem()) {
		// Decoding into a value that holds data merges into what it
		// refers to, which may be shared (a value decoded through the
		// table before): it gets memory of its own first, and is decoded
		// into without the table.
		share.Unshare(rv.Elem())
		n, err := unmarshalWith(data, rv, kube, prefix, nil)
		return n, nil, err
	}
	s.t.Lock()
	n, err := unmarshalWith(data, rv, kube, prefix, s.t)
	written := s.t.Seal()
	s.t.Unlock()
	if errors.Is(err, errShareConflict) {
		// A key came twice in one object: decoding it again would write
		// into a value that may be shared. Decode again without sharing.
		rv.Elem().SetZero()
		n, err = unmarshalWith(data, rv, kube, prefix, nil)
	}
	if s.found != nil {
		for _, w := range written {
			s.found(w, v)
		}
	}
	return n, written, err
}

// zeroMemory reports whether v's memory is all zero bytes: then v is the
// zero value. (reflect.Value.IsZero walks a struct field by field, which
// costs thousands of instructions for a Pod; a zero value whose memory is
// not all zero, such as a string with a pointer but no length, is only
// decoded without sharing.)
func zeroMemory(v reflect.Value) bool {
	n := v.Type().Size()
	if n == 0 {
		return true
	}
	if !v.CanAddr() {
		return v.IsZero()
	}
	b := unsafe.Slice((*byte)(v.Addr().UnsafePointer()), n)
	for len(b) >= 8 && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		if *(*uint64)(unsafe.Pointer(&b[0])) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
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
// is f; with one, the value's bytes are looked up before it is decoded
// (a value the table holds is taken as it is, and its bytes skipped: a
// repeated container or volume costs a scan and a hash, not a decode and
// its allocations), or, inside a value that such a lookup did not find
// and while this codec's lookups keep missing (see preGate), a fresh
// value is decoded by f, then looked up.
func shareDec(t reflect.Type, f decFunc) decFunc {
	kind, ok := shareable(t)
	if !ok {
		return f
	}
	id := share.NewIDs(2) // the decoder's id, and id+1 in kube mode
	least := minShare(t)
	var gate preGate
	return func(d *decoder, p ptr) error {
		if d.share == nil {
			return f(d, p)
		}
		start := d.off
		if *(*unsafe.Pointer)(p) != nil { // a pointer, a map, a slice's data
			return f(d, p)
		}
		k := id
		if d.kube {
			k++
		}
		if d.saved == nil && !d.inMiss && gate.open() {
			if end, err := skipValue(d.data, start, d.depth); err == nil && end-start >= least {
				return d.sharePre(f, t, p, k, kind, d.data[start:end], &gate)
			}
		}
		if err := f(d, p); err != nil || d.saved != nil || d.off-start < least {
			return err
		}
		if dedupe(d.share, k, d.data[start:d.off], t, p, kind) {
			gate.hit()
		}
		return nil
	}
}

// sharePre looks raw, the bytes of the value at d.off, up before decoding
// it: the table's value is taken and raw skipped, or the value is decoded
// by f and entered if the table admits it and it is share.Stable.
func (d *decoder) sharePre(f decFunc, typ reflect.Type, p ptr, id uint32, kind shareKind, raw []byte, gate *preGate) error {
	t := d.share
	k := t.Key(id, raw)
	v, n, enter := t.Find(k, raw)
	if v != nil {
		gate.hit()
		*(*unsafe.Pointer)(p) = v
		if kind == shareSlice {
			// The capacity is the length, for every holder (see dedupe).
			*(*sliceHeader)(p) = sliceHeader{v, n, n}
		}
		d.off += len(raw)
		return nil
	}
	gate.miss()
	// The parts of a value the table lacks are looked up after they are
	// decoded (by hashing what the decode went over), not scanned first:
	// a value not seen before mostly has parts not seen before either.
	d.inMiss = true
	err := f(d, p)
	d.inMiss = false
	if err != nil || d.saved != nil || !enter {
		return err
	}
	data := *(*unsafe.Pointer)(p)
	if kind == shareSlice {
		n = (*sliceHeader)(p).len
		if n == 0 {
			return nil
		}
		(*sliceHeader)(p).cap = n
	}
	if data != nil && share.Stable(typ, p) {
		t.Enter(k, raw, typ, data, n)
	}
	return nil
}

// preGate decides, per codec, whether values are looked up before they are
// decoded. Looking up first saves the decode of a value the table holds,
// but costs a scan of its bytes (to find where it ends) that decoding
// them would not; on data with little to share, lookups after the decode
// (which hash the bytes the decode went over) cost less. The gate closes
// after preMisses lookups in a row found nothing, and opens again as soon
// as a lookup, before or after a decode, finds a value. Its counter is
// shared by every decode through the codec (atomic: decodes through
// different tables run at once); it only chooses between two paths that
// give the same values.
type preGate struct{ misses atomic.Int32 }

// preMisses is how many lookups in a row must miss to close a preGate.
const preMisses = 16

func (g *preGate) open() bool { return g.misses.Load() < preMisses }

func (g *preGate) hit() {
	if g.misses.Load() != 0 {
		g.misses.Store(0)
	}
}

func (g *preGate) miss() {
	if m := g.misses.Load(); m < preMisses {
		g.misses.Store(m + 1)
	}
}

// dedupe sets the value at p, decoded from raw, to the table's value
// for raw, or enters it in the table (if share.Stable); it reports
// whether the table had one. The table's lock is held.
func dedupe(t *share.Table, id uint32, raw []byte, typ reflect.Type, p ptr, kind shareKind) bool {
	data := *(*unsafe.Pointer)(p)
	n := 0
	if kind == shareSlice {
		n = (*sliceHeader)(p).len
		if n == 0 {
			return false
		}
	}
	if data == nil {
		return false
	}
	k := t.Key(id, raw)
	v, _, enter := t.Find(k, raw)
	if v == nil && !enter {
		return false
	}
	if kind == shareSlice {
		// The capacity is the length, for every holder: an append
		// copies instead of writing past the shared elements.
		(*sliceHeader)(p).cap = n
	}
	if v != nil {
		*(*unsafe.Pointer)(p) = v
		return true
	}
	if share.Stable(typ, p) {
		t.Enter(k, raw, typ, data, n)
	}
	return false
}

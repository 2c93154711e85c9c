package share

import (
	"encoding/binary"
	"math/bits"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Fingerprints: how the table finds out that a value it holds was
// written into. When a value enters the table its fingerprint is taken
// (at the end of the decode that entered it, once the decoder has set
// its last word), and every hit recomputes it before the value is handed
// out: a value whose fingerprint changed is evicted and reported, and
// the object being decoded gets a value of its own.
//
// A fingerprint hashes every word of the value's memory and of all the
// memory it reaches (the elements of slices, the entries of maps, what
// pointers point to, what interfaces hold), not the content of strings:
// a string's bytes cannot change, so its pointer and length say whether
// it was replaced. Any write into the value's graph (a map entry added,
// removed or set, a slice element or struct field set, a slice
// resliced) changes at least one word, and so the fingerprint, but for
// a chance of 2^-64; a write of an equal but newly allocated string is
// a write too. Memory that no decoder writes and that reading may change
// (a time.Location's cache) is hashed by its address only.

// A shape fingerprints values of one Go type: at (the value at p) and
// ref (for a slice, map or pointer type, what the value refers to: the
// slice's n elements from data, the map or the pointee data).
type shape struct {
	typ reflect.Type
	at  func(h uint64, p unsafe.Pointer) uint64
	ref func(h uint64, data unsafe.Pointer, n int) uint64
}

var (
	shapes  sync.Map   // reflect.Type → *shape
	buildMu sync.Mutex // one build at a time: shapes holds only finished ones
)

// shapeOf returns t's shape, compiling it on first use.
func shapeOf(t reflect.Type) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	b := map[reflect.Type]*shape{}
	s := build(t, b)
	for t, s := range b {
		shapes.Store(t, s)
	}
	return s
}

func build(t reflect.Type, b map[reflect.Type]*shape) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	if s, ok := b[t]; ok {
		return s // recursive type: filled in below, before any use
	}
	s := &shape{typ: t}
	b[t] = s
	s.at, s.ref = compile(t, b)
	return s
}

// mix folds the word w into h.
func mix(h, w uint64) uint64 {
	return bits.RotateLeft64((h^w)*0x9E3779B97F4A7C15, 29) * 0xBF58476D1CE4E5B9
}

// mixMem folds the n bytes at p into h, a word at a time.
func mixMem(h uint64, p unsafe.Pointer, n uintptr) uint64 {
	b := unsafe.Slice((*byte)(p), n)
	for len(b) >= 8 {
		h = mix(h, binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	if len(b) > 0 {
		var w [8]byte
		copy(w[:], b)
		h = mix(h, binary.LittleEndian.Uint64(w[:]))
	}
	return h
}

func word(p unsafe.Pointer) uint64 { return uint64(uintptr(*(*unsafe.Pointer)(p))) }

var (
	timeType     = reflect.TypeFor[time.Time]()
	quantityMapT = reflect.TypeFor[map[string]resource.Quantity]()
	anyType      = reflect.TypeFor[any]()
	anyMapType   = reflect.TypeFor[map[string]any]()
	anySliceType = reflect.TypeFor[[]any]()
)

// plain reports whether t holds no pointers (its memory is all there is
// to it) and no padding between its fields.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		end := uintptr(0)
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Offset != end || !plain(f.Type) {
				return false
			}
			end += f.Type.Size()
		}
		return end == t.Size()
	}
	return false
}

func compile(t reflect.Type, b map[reflect.Type]*shape) (func(uint64, unsafe.Pointer) uint64, func(uint64, unsafe.Pointer, int) uint64) {
	size := t.Size()
	if plain(t) || t == timeType {
		return func(h uint64, p unsafe.Pointer) uint64 { return mixMem(h, p, size) }, nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(h uint64, p unsafe.Pointer) uint64 {
			return mix(mix(h, word(p)), uint64(len(*(*string)(p))))
		}, nil
	case reflect.Slice:
		return compileSlice(t, b)
	case reflect.Map:
		return compileMap(t, b)
	case reflect.Pointer:
		elem := build(t.Elem(), b)
		ref := func(h uint64, data unsafe.Pointer, _ int) uint64 { return elem.at(h, data) }
		return func(h uint64, p unsafe.Pointer) uint64 {
			d := *(*unsafe.Pointer)(p)
			h = mix(h, uint64(uintptr(d)))
			if d == nil {
				return h
			}
			return elem.at(h, d)
		}, ref
	case reflect.Interface:
		return func(h uint64, p unsafe.Pointer) uint64 { return ifaceAt(h, t, p, 0) }, nil
	case reflect.Array:
		elem, es, n := build(t.Elem(), b), t.Elem().Size(), t.Len()
		return func(h uint64, p unsafe.Pointer) uint64 {
			for i := range n {
				h = elem.at(h, unsafe.Add(p, uintptr(i)*es))
			}
			return h
		}, nil
	case reflect.Struct:
		return compileStruct(t, b), nil
	}
	// Chan, Func, UnsafePointer: no decoder makes one; by address.
	return func(h uint64, p unsafe.Pointer) uint64 { return mixMem(h, p, size) }, nil
}

func compileSlice(t reflect.Type, b map[reflect.Type]*shape) (func(uint64, unsafe.Pointer) uint64, func(uint64, unsafe.Pointer, int) uint64) {
	et := t.Elem()
	es := et.Size()
	var ref func(uint64, unsafe.Pointer, int) uint64
	if plain(et) {
		ref = func(h uint64, data unsafe.Pointer, n int) uint64 { return mixMem(h, data, uintptr(n)*es) }
	} else {
		elem := build(et, b)
		ref = func(h uint64, data unsafe.Pointer, n int) uint64 {
			for i := range n {
				h = elem.at(h, unsafe.Add(data, uintptr(i)*es))
			}
			return h
		}
	}
	return func(h uint64, p unsafe.Pointer) uint64 {
		s := (*sliceHeader)(p)
		h = mix(mix(mix(h, uint64(uintptr(s.data))), uint64(s.len)), uint64(s.cap))
		if s.data == nil || es == 0 {
			return h
		}
		return ref(h, s.data, s.len)
	}, ref
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// compileStruct hashes a struct field by field: runs of plain fields
// that touch as one piece of memory (padding left out), the others by
// their shapes.
func compileStruct(t reflect.Type, b map[reflect.Type]*shape) func(uint64, unsafe.Pointer) uint64 {
	type op struct {
		off, n uintptr
		s      *shape // nil: n plain bytes
	}
	var ops []op
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Size() == 0 {
			continue
		}
		if plain(f.Type) || f.Type == timeType {
			if l := len(ops) - 1; l >= 0 && ops[l].s == nil && ops[l].off+ops[l].n == f.Offset {
				ops[l].n += f.Type.Size()
				continue
			}
			ops = append(ops, op{off: f.Offset, n: f.Type.Size()})
			continue
		}
		ops = append(ops, op{off: f.Offset, s: build(f.Type, b)})
	}
	return func(h uint64, p unsafe.Pointer) uint64 {
		for _, o := range ops {
			if o.s == nil {
				h = mixMem(h, unsafe.Add(p, o.off), o.n)
			} else {
				h = o.s.at(h, unsafe.Add(p, o.off))
			}
		}
		return h
	}
}

// entryMix ends an entry's hash, so that the sum of the entries of a
// map does not depend on their order.
func entryMix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xFF51AFD7ED558CCD
	h ^= h >> 33
	return h
}

func compileMap(t reflect.Type, b map[reflect.Type]*shape) (func(uint64, unsafe.Pointer) uint64, func(uint64, unsafe.Pointer, int) uint64) {
	var ref func(uint64, unsafe.Pointer, int) uint64
	kt, vt := t.Key(), t.Elem()
	switch {
	case kt.Kind() == reflect.String && vt.Kind() == reflect.String:
		// Labels, annotations, selectors, any named string types: ranged as
		// map[string]string (the same layout).
		ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			var sum uint64
			for k, v := range *(*map[string]string)(unsafe.Pointer(&m)) {
				sum += entryMix(mix(mix(mix(mix(0, uint64(uintptr(unsafe.Pointer(unsafe.StringData(k))))), uint64(len(k))),
					uint64(uintptr(unsafe.Pointer(unsafe.StringData(v))))), uint64(len(v))))
			}
			return mix(h, sum)
		}
	case kt.Kind() == reflect.String && vt == quantityMapT.Elem():
		// A ResourceList.
		q := build(vt, b)
		ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			var sum uint64
			for k, v := range *(*map[string]resource.Quantity)(unsafe.Pointer(&m)) {
				e := mix(mix(0, uint64(uintptr(unsafe.Pointer(unsafe.StringData(k))))), uint64(len(k)))
				sum += entryMix(q.at(e, unsafe.Pointer(&v)))
			}
			return mix(h, sum)
		}
	case t == anyMapType:
		ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			return anyMap(h, *(*map[string]any)(unsafe.Pointer(&m)), 0)
		}
	default:
		ks, vs := build(kt, b), build(vt, b)
		ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			mv := reflect.NewAt(t, unsafe.Pointer(&m)).Elem()
			k, v := reflect.New(kt).Elem(), reflect.New(vt).Elem()
			var sum uint64
			for it := mv.MapRange(); it.Next(); {
				k.SetIterKey(it)
				v.SetIterValue(it)
				sum += entryMix(vs.at(ks.at(0, k.Addr().UnsafePointer()), v.Addr().UnsafePointer()))
			}
			return mix(h, sum)
		}
	}
	return func(h uint64, p unsafe.Pointer) uint64 {
		m := *(*unsafe.Pointer)(p)
		h = mix(h, uint64(uintptr(m)))
		if m == nil {
			return h
		}
		return ref(h, m, 0)
	}, ref
}

// maxAnyDepth bounds the nesting of interface values followed: a program
// could make a map hold itself.
const maxAnyDepth = 10000

// ifaceAt hashes the interface of type t at p: its two words (the boxed
// value of a string, number or bool cannot change, so they say it all)
// and what a map, slice or pointer in it refers to.
func ifaceAt(h uint64, t reflect.Type, p unsafe.Pointer, depth int) uint64 {
	h = mix(mix(h, word(p)), word(unsafe.Add(p, unsafe.Sizeof(uintptr(0)))))
	if depth > maxAnyDepth {
		return mix(h, 1)
	}
	if t == anyType {
		switch v := (*(*any)(p)).(type) {
		case nil, string, float64, int64, bool:
			return h
		case map[string]any:
			return anyMap(h, v, depth+1)
		case []any:
			for i := range v {
				h = ifaceAt(h, anyType, unsafe.Pointer(&v[i]), depth+1)
			}
			return h
		}
	}
	v := reflect.NewAt(t, p).Elem()
	if v.IsNil() {
		return h
	}
	e := v.Elem()
	c := reflect.New(e.Type()) // a copy of the box: its words are what the box holds
	c.Elem().Set(e)
	return shapeOf(e.Type()).at(h, c.UnsafePointer())
}

func anyMap(h uint64, m map[string]any, depth int) uint64 {
	var sum uint64
	for k, v := range m {
		e := mix(mix(0, uint64(uintptr(unsafe.Pointer(unsafe.StringData(k))))), uint64(len(k)))
		sum += entryMix(ifaceAt(e, anyType, unsafe.Pointer(&v), depth))
	}
	return mix(h, sum)
}

// fingerprint returns the fingerprint of the value that a slot of type t
// (a slice, map or pointer) set to data (with n elements, for a slice)
// refers to.
func fingerprint(seed uint64, s *shape, data unsafe.Pointer, n int) uint64 {
	return s.ref(mix(seed, uint64(n)), data, n)
}

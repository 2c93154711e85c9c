package share

import (
	"hash/maphash"
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
// A fingerprint hashes every byte of the value's memory and of all the
// memory it reaches (the elements of slices, the entries of maps, what
// pointers point to, what interfaces hold), not the content of strings:
// a string's bytes cannot change, so its pointer and length say whether
// it was replaced. A struct's or an array's memory is hashed in one
// piece (padding included: Go zeroes it, and only a write could change
// it), then what its slices, maps, pointers and interfaces refer to. Any write into the value's graph (a map entry added,
// removed or set, a slice element or struct field set, a slice
// resliced) changes at least one word, and so the fingerprint, but for
// a chance of 2^-64; a write of an equal but newly allocated string is
// a write too. Memory that no decoder writes and that reading may change
// (a time.Location's cache) is hashed by its address only.

// A shape fingerprints values of one Go type. at hashes the value at p:
// its memory, then what it refers to (deref). ref, for a slice, map or
// pointer type, hashes what such a value refers to: the slice's n
// elements from data, the map data, the pointee data.
type shape struct {
	typ   reflect.Type
	at    func(h uint64, p unsafe.Pointer) uint64
	deref func(h uint64, p unsafe.Pointer) uint64 // nil: nothing to follow
	ref   func(h uint64, data unsafe.Pointer, n int) uint64
}

var (
	shapes  sync.Map   // reflect.Type → *shape
	buildMu sync.Mutex // one build at a time: shapes holds only finished ones
	memSeed = maphash.MakeSeed()
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
	compile(s, b)
	return s
}

// mix folds the word w into h. Each step is a bijection of h for a given
// w and of w for a given h, so a change of one word always changes the
// fingerprint; changes of several words may cancel out by chance.
func mix(h, w uint64) uint64 {
	h = (h ^ w) * 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// mixMem folds the n bytes at p into h: a word at a time, or through
// maphash past 64 bytes.
func mixMem(h uint64, p unsafe.Pointer, n uintptr) uint64 {
	if n > 64 {
		return mix(h, maphash.Bytes(memSeed, unsafe.Slice((*byte)(p), n)))
	}
	i := uintptr(0)
	if uintptr(p)%8 == 0 {
		for ; i+8 <= n; i += 8 {
			h = mix(h, *(*uint64)(unsafe.Add(p, i)))
		}
	}
	for ; i < n; i++ {
		h = mix(h, uint64(*(*byte)(unsafe.Add(p, i))))
	}
	return h
}

func word(p unsafe.Pointer) uint64 { return uint64(uintptr(*(*unsafe.Pointer)(p))) }

// quantityWords is the size of a resource.Quantity in words.
const quantityWords = unsafe.Sizeof(resource.Quantity{}) / 8

// A Quantity is a whole number of words (or this fails to compile).
var _ = [1]int{}[unsafe.Sizeof(resource.Quantity{})%8]

var (
	timeType     = reflect.TypeFor[time.Time]()
	quantityMapT = reflect.TypeFor[map[string]resource.Quantity]()
	anyType      = reflect.TypeFor[any]()
	anyMapType   = reflect.TypeFor[map[string]any]()
)

// refOp is a slice, map, pointer or interface at off in a struct or
// array, whose referent is hashed after the memory.
type refOp struct {
	off uintptr
	s   *shape
}

// refsOf lists the slices, maps, pointers and interfaces in a value of
// type t at base: nested structs and arrays are flattened. A time.Time's
// Location is not followed (reading a time may fill its cache), nor
// channels, functions and unsafe pointers (no decoder makes one).
func refsOf(t reflect.Type, base uintptr, b map[reflect.Type]*shape, ops []refOp) []refOp {
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
		return append(ops, refOp{base, build(t, b)})
	case reflect.Struct:
		if t == timeType {
			return ops
		}
		for i := range t.NumField() {
			f := t.Field(i)
			ops = refsOf(f.Type, base+f.Offset, b, ops)
		}
	case reflect.Array:
		for i := range t.Len() {
			ops = refsOf(t.Elem(), base+uintptr(i)*t.Elem().Size(), b, ops)
		}
	}
	return ops
}

func compile(s *shape, b map[reflect.Type]*shape) {
	t := s.typ
	size := t.Size()
	switch t.Kind() {
	case reflect.Slice:
		compileSlice(s, b)
	case reflect.Map:
		compileMap(s, b)
	case reflect.Pointer:
		elem := build(t.Elem(), b)
		s.ref = func(h uint64, data unsafe.Pointer, _ int) uint64 { return elem.at(h, data) }
		s.deref = func(h uint64, p unsafe.Pointer) uint64 {
			if d := *(*unsafe.Pointer)(p); d != nil {
				return elem.at(h, d)
			}
			return h
		}
	case reflect.Interface:
		s.deref = func(h uint64, p unsafe.Pointer) uint64 { return ifaceDeref(h, t, p, 0) }
	case reflect.Struct, reflect.Array:
		ops := refsOf(t, 0, b, nil)
		if len(ops) > 0 {
			s.deref = func(h uint64, p unsafe.Pointer) uint64 {
				for _, o := range ops {
					// A nil pointer, map or interface, a slice without an
					// array: nothing to follow (its words are hashed).
					if q := unsafe.Add(p, o.off); *(*unsafe.Pointer)(q) != nil {
						h = o.s.deref(h, q)
					}
				}
				return h
			}
		}
	}
	s.at = func(h uint64, p unsafe.Pointer) uint64 {
		h = mixMem(h, p, size)
		if s.deref != nil {
			h = s.deref(h, p)
		}
		return h
	}
}

func compileSlice(s *shape, b map[reflect.Type]*shape) {
	et := s.typ.Elem()
	es := et.Size()
	elem := build(et, b)
	s.ref = func(h uint64, data unsafe.Pointer, n int) uint64 {
		if n == 0 || es == 0 {
			return h
		}
		h = mixMem(h, data, uintptr(n)*es)
		if d := elem.deref; d != nil {
			for i := range n {
				h = d(h, unsafe.Add(data, uintptr(i)*es))
			}
		}
		return h
	}
	s.deref = func(h uint64, p unsafe.Pointer) uint64 {
		sh := (*sliceHeader)(p)
		if sh.data == nil {
			return h
		}
		return s.ref(h, sh.data, sh.len)
	}
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// entrySeed starts an entry's hash: an entry of zero words (an empty
// key and value) must still count.
const entrySeed = 0x9E3779B97F4A7C15

// entryMix ends an entry's hash, so that the sum of the entries of a
// map does not depend on their order.
func entryMix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xFF51AFD7ED558CCD
	h ^= h >> 33
	return h
}

func strMix(h uint64, s string) uint64 {
	return mix(mix(h, uint64(uintptr(unsafe.Pointer(unsafe.StringData(s))))), uint64(len(s)))
}

func compileMap(s *shape, b map[reflect.Type]*shape) {
	t := s.typ
	kt, vt := t.Key(), t.Elem()
	switch {
	case kt.Kind() == reflect.String && vt.Kind() == reflect.String:
		// Labels, annotations, selectors, any named string types: ranged as
		// map[string]string (the same layout).
		s.ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			var sum, n uint64
			for k, v := range *(*map[string]string)(unsafe.Pointer(&m)) {
				sum += entryMix(strMix(strMix(entrySeed, k), v))
				n++
			}
			return mix(mix(h, sum), n)
		}
	case kt.Kind() == reflect.String && vt == quantityMapT.Elem():
		// A ResourceList: each Quantity's words, copied out of the map
		// (no allocation per entry), and its *inf.Dec if it has one.
		q := build(vt, b)
		s.ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			var sum, n uint64
			for k, v := range *(*map[string]resource.Quantity)(unsafe.Pointer(&m)) {
				e := strMix(entrySeed, k)
				words := *(*[quantityWords]uint64)(unsafe.Pointer(&v))
				for _, w := range words {
					e = mix(e, w)
				}
				if *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(&v), quantityD)) != nil {
					c := v // rare: an *inf.Dec, followed through a copy
					e = q.at(e, unsafe.Pointer(&c))
				}
				sum += entryMix(e)
				n++
			}
			return mix(mix(h, sum), n)
		}
	case t == anyMapType:
		s.ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			return anyMap(h, *(*map[string]any)(unsafe.Pointer(&m)), 0)
		}
	default:
		ks, vs := build(kt, b), build(vt, b)
		s.ref = func(h uint64, m unsafe.Pointer, _ int) uint64 {
			mv := reflect.NewAt(t, unsafe.Pointer(&m)).Elem()
			k, v := reflect.New(kt).Elem(), reflect.New(vt).Elem()
			var sum, n uint64
			for it := mv.MapRange(); it.Next(); {
				k.SetIterKey(it)
				v.SetIterValue(it)
				sum += entryMix(vs.at(ks.at(entrySeed, k.Addr().UnsafePointer()), v.Addr().UnsafePointer()))
				n++
			}
			return mix(mix(h, sum), n)
		}
	}
	s.deref = func(h uint64, p unsafe.Pointer) uint64 {
		if m := *(*unsafe.Pointer)(p); m != nil {
			return s.ref(h, m, 0)
		}
		return h
	}
}

// maxAnyDepth bounds the nesting of interface values followed: a program
// could make a map hold itself.
const maxAnyDepth = 10000

// ifaceDeref hashes what the interface of type t at p holds, its two
// words being hashed already: nothing for a string, number or bool (a
// boxed value cannot change), the referents of a map, slice or pointer.
func ifaceDeref(h uint64, t reflect.Type, p unsafe.Pointer, depth int) uint64 {
	if t == anyType {
		return anyDeref(h, *(*any)(p), depth)
	}
	return otherDeref(h, reflect.NewAt(t, p).Elem())
}

// anyWords folds the two words of x into h.
func anyWords(h uint64, x any) uint64 {
	w := *(*[2]uint64)(unsafe.Pointer(&x))
	return mix(mix(h, w[0]), w[1])
}

// anyDeref is ifaceDeref for an any holding x.
func anyDeref(h uint64, x any, depth int) uint64 {
	if depth > maxAnyDepth {
		return mix(h, 1)
	}
	switch v := x.(type) {
	case nil, string, float64, int64, bool:
		return h
	case map[string]any:
		return anyMap(h, v, depth+1)
	case []any:
		for _, e := range v {
			h = anyDeref(anyWords(h, e), e, depth+1)
		}
		return h
	}
	return otherDeref(h, reflect.ValueOf(&x).Elem())
}

// otherDeref follows an interface value of another dynamic type through
// a copy of its box (whose words are what the box holds).
func otherDeref(h uint64, v reflect.Value) uint64 {
	if v.IsNil() {
		return h
	}
	e := v.Elem()
	c := reflect.New(e.Type())
	c.Elem().Set(e)
	return shapeOf(e.Type()).at(h, c.UnsafePointer())
}

func anyMap(h uint64, m map[string]any, depth int) uint64 {
	h = mix(h, uint64(len(m)))
	var sum uint64
	for k, v := range m {
		sum += entryMix(anyDeref(anyWords(strMix(entrySeed, k), v), v, depth))
	}
	return mix(h, sum)
}

// fingerprint returns the fingerprint of what a slot of shape s (a
// slice, map or pointer type) set to data (with n elements, for a slice)
// refers to.
func fingerprint(seed uint64, s *shape, data unsafe.Pointer, n int) uint64 {
	return s.ref(mix(seed, uint64(n)), data, n)
}

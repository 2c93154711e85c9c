package informer

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
)

// IndexFunc computes the values under which obj is indexed, appending them to
// dst and returning the extended slice, in the manner of strconv.AppendInt:
// an index function that appends to dst allocates nothing. Returning no value
// leaves the object out of the index; duplicate values are stored once.
//
// An IndexFunc is user code: the library never calls it while holding one of
// its locks. It must be deterministic (the same object gives the same values)
// because values are recomputed from the stored object when it changes.
type IndexFunc[T Object] func(obj T, dst []string) ([]string, error)

// NamespaceIndex is the name of the index, by namespace, that Lister.Namespace
// uses. Informers add it by default.
const NamespaceIndex = "namespace"

// IndexByNamespace returns an IndexFunc that indexes objects by namespace.
// Cluster-scoped objects are indexed under "".
//
// With the default KeyFunc (MetaKey) an Indexer recognises this function
// and keeps the index from the keys without calling into the objects,
// exactly as for IndexerOptions.NamespaceIndex: the two cost the same.
// A port of client-go code that registers cache.NamespaceIndex with
// MetaNamespaceIndexFunc lands here.
//
//go:noinline
func IndexByNamespace[T Object]() IndexFunc[T] {
	return func(obj T, dst []string) ([]string, error) {
		return append(dst, obj.GetNamespace()), nil
	}
}

// isIndexByNamespace reports whether fn is IndexByNamespace's function: a
// func of type IndexFunc[T] with its code. (IndexByNamespace is not
// inlined, so that its function has one code wherever it is called;
// instantiations of one shape share that code, but only
// IndexByNamespace[T] makes an IndexFunc[T].)
func isIndexByNamespace[T Object](fn IndexFunc[T]) bool {
	return fn != nil && reflect.ValueOf(fn).Pointer() == reflect.ValueOf(IndexByNamespace[T]()).Pointer()
}

// IndexByLabel returns an IndexFunc that indexes objects by the value of the
// label key. Objects without that label are not indexed.
func IndexByLabel[T Object](key string) IndexFunc[T] {
	return func(obj T, dst []string) ([]string, error) {
		if v, ok := obj.GetLabels()[key]; ok {
			return append(dst, v), nil
		}
		return dst, nil
	}
}

// IndexValuesFunc adapts a function in client-go's style, which returns a new
// slice for every call, to an IndexFunc.
func IndexValuesFunc[T Object](fn func(obj T) ([]string, error)) IndexFunc[T] {
	return func(obj T, dst []string) ([]string, error) {
		vals, err := fn(obj)
		return append(dst, vals...), err
	}
}

// indexSet is the indexes of an Indexer at one point in time. It is replaced,
// never changed, when an index is added or removed; only the buckets in maps
// change, under the Indexer's lock.
type indexSet[T Object] struct {
	names []string
	funcs []IndexFunc[T]
	maps  []*index
	ready []bool // false while AddIndex fills the index: hidden from readers
	// fromKey marks a namespace index over MetaKey keys: its one value is
	// the key's namespace part, read without touching the object, and it
	// never changes for a key.
	fromKey []bool
	unready int // indexes not ready: upsertLocked's check per write
}

// find returns the position of the ready index name, or -1.
func (s *indexSet[T]) find(name string) int {
	for i, n := range s.names {
		if n == name && s.ready[i] {
			return i
		}
	}
	return -1
}

// with returns a copy of s with one more index, not yet ready; fromKey as
// in indexSet; iters is the Indexer's.
func (s *indexSet[T]) with(name string, fn IndexFunc[T], fromKey bool, iters *atomic.Int32) *indexSet[T] {
	return &indexSet[T]{
		names:   append(s.names[:len(s.names):len(s.names)], name),
		funcs:   append(s.funcs[:len(s.funcs):len(s.funcs)], fn),
		maps:    append(s.maps[:len(s.maps):len(s.maps)], newIndex(fromKey, iters)),
		ready:   append(s.ready[:len(s.ready):len(s.ready)], false),
		fromKey: append(s.fromKey[:len(s.fromKey):len(s.fromKey)], fromKey),
		unready: s.unready + 1,
	}
}

// withReady returns a copy of s in which index i is ready (or, if ok is
// false, removed).
func (s *indexSet[T]) withReady(i int, ok bool) *indexSet[T] {
	c := &indexSet[T]{
		names: append([]string(nil), s.names...),
		funcs: append([]IndexFunc[T](nil), s.funcs...),
		maps:  append([]*index(nil), s.maps...),
		ready: append([]bool(nil), s.ready...),

		fromKey: append([]bool(nil), s.fromKey...),
	}
	if ok {
		c.ready[i] = true
	} else {
		c.names = append(c.names[:i], c.names[i+1:]...)
		c.funcs = append(c.funcs[:i], c.funcs[i+1:]...)
		c.maps = append(c.maps[:i], c.maps[i+1:]...)
		c.ready = append(c.ready[:i], c.ready[i+1:]...)
		c.fromKey = append(c.fromKey[:i], c.fromKey[i+1:]...)
	}
	for _, r := range c.ready {
		if !r {
			c.unready++
		}
	}
	return c
}

// indexValues holds the values of every index of a set for one object, flat:
// the values of index i are vals[ends[i-1]:ends[i]].
type indexValues struct {
	vals []string
	ends []int
}

func (v *indexValues) reset() {
	clear(v.vals)
	v.vals = v.vals[:0]
	v.ends = v.ends[:0]
}

func (v *indexValues) of(i int) []string {
	start := 0
	if i > 0 {
		start = v.ends[i-1]
	}
	return v.vals[start:v.ends[i]]
}

// computeValues fills v with the values of every index in s for obj. It calls user
// code and must not run under a lock.
func computeValues[T Object](v *indexValues, s *indexSet[T], key string, obj T) error {
	v.reset()
	for i, fn := range s.funcs {
		if s.fromKey[i] {
			v.vals = append(v.vals, keyNamespace(key))
			v.ends = append(v.ends, len(v.vals))
			continue
		}
		var err error
		v.vals, err = fn(obj, v.vals)
		if err != nil {
			v.reset()
			return &IndexError{Index: s.names[i], Key: key, Err: err}
		}
		v.ends = append(v.ends, len(v.vals))
	}
	return nil
}

// computeValue is computeValues for index i only.
func computeValue[T Object](v *indexValues, s *indexSet[T], i int, key string, obj T) error {
	v.reset()
	if s.fromKey[i] {
		v.vals = append(v.vals, keyNamespace(key))
		v.ends = append(v.ends, len(v.vals))
		return nil
	}
	var err error
	v.vals, err = s.funcs[i](obj, v.vals)
	if err != nil {
		v.reset()
		return &IndexError{Index: s.names[i], Key: key, Err: err}
	}
	v.ends = append(v.ends, len(v.vals))
	return nil
}

// keyNamespace returns the namespace part of a MetaKey key.
func keyNamespace(key string) string {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// userFuncs reports whether some index of s calls an IndexFunc (user code);
// otherwise every index is kept from keys.
func (s *indexSet[T]) userFuncs() bool {
	for _, k := range s.fromKey {
		if !k {
			return true
		}
	}
	return false
}

// AddIndex adds a named index and indexes every object already stored. The
// index is visible to readers once AddIndex returns successfully. If fn fails
// for a stored object the index is not added and the error is an
// *IndexError.
func (ix *Indexer[T]) AddIndex(name string, fn IndexFunc[T]) error {
	if fn == nil {
		return fmt.Errorf("informer: AddIndex %q: nil IndexFunc", name)
	}
	ix.mu.Lock()
	s := ix.set.Load()
	if slices.Contains(s.names, name) {
		ix.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrIndexExists, name)
	}
	// From here on, writers maintain the new index too.
	ix.set.Store(s.with(name, fn, ix.metaKey && isIndexByNamespace(fn), &ix.iters))
	snaps := make([]indexSnap[T], 0, ix.items.n)
	for _, sl := range ix.slots.s {
		if sl.seq != 0 {
			snaps = append(snaps, indexSnap[T]{sl.key, sl.obj, sl.seq})
		}
	}
	ix.mu.Unlock()

	// Compute the values of existing objects without the lock.
	all, err := ix.indexValuesOf(name, snaps)

	ix.mu.Lock()
	defer ix.mu.Unlock()
	s = ix.set.Load()
	i := -1
	for j, n := range s.names {
		if n == name {
			i = j
		}
	}
	if err != nil {
		ix.set.Store(s.withReady(i, false))
		return err
	}
	m := s.maps[i]
	for k, sn := range snaps {
		// An entry written since the snapshot was indexed by its writer; a
		// deleted one must stay out.
		pos, ok := ix.posOf(sn.key)
		if !ok || ix.slots.s[pos].seq != sn.seq {
			continue
		}
		m.addAll(all[k], pos)
	}
	ix.set.Store(s.withReady(i, true))
	return nil
}

// indexSnap is an entry as AddIndex found it.
type indexSnap[T Object] struct {
	key string
	obj T
	seq uint64
}

// indexValuesOf computes the values of index name for every snapshot
// entry, calling the index function without the lock. It stops early if
// the index is gone.
func (ix *Indexer[T]) indexValuesOf(name string, snaps []indexSnap[T]) ([][]string, error) {
	var vals indexValues
	all := make([][]string, len(snaps))
	for k, sn := range snaps {
		s := ix.set.Load()
		i := len(s.names) - 1
		for i >= 0 && s.names[i] != name {
			i--
		}
		if i < 0 {
			break
		}
		if err := computeValue(&vals, s, i, sn.key, sn.obj); err != nil {
			return all, err
		}
		all[k] = append([]string(nil), vals.of(0)...)
	}
	return all, nil
}

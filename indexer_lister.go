package informer

import (
	"iter"

	"k8s.io/apimachinery/pkg/labels"
)

// Lister is a read-only view of an Indexer, shaped for controllers: get by
// key, list by label selector, and the same per namespace; and the
// Indexer's other reads (Len, Keys, All, Values and the index lookups).
// Iterators follow one rule: a collection's own are All, Keys and Values
// (as in package maps); the iterator form of a method X that returns a
// slice is XSeq (ListSeq, ByIndexSeq).
//
// Objects it returns are shared with the cache (and, from source/kube
// with sharing, parts of them with other objects): never write into
// them; copy, then write (obj.DeepCopy()). Handler says what a write
// would change.
type Lister[T Object] struct {
	ix *Indexer[T]
}

// NewLister returns a Lister over ix.
func NewLister[T Object](ix *Indexer[T]) Lister[T] { return Lister[T]{ix: ix} }

// Get returns the object stored under key ("namespace/name", or "name" for a
// cluster-scoped object with the default key func).
func (l Lister[T]) Get(key string) (T, bool) { return l.ix.Get(key) }

// List returns a snapshot of the objects whose labels match selector. A nil
// selector matches everything.
func (l Lister[T]) List(selector labels.Selector) []T {
	if matchesAll(selector) {
		return l.ix.List()
	}
	var out []T
	for obj := range l.ix.Values() {
		if selector.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, obj)
		}
	}
	return out
}

// ListSeq returns a weakly consistent iterator (see Indexer) over the
// objects whose labels match selector. A nil selector matches everything.
func (l Lister[T]) ListSeq(selector labels.Selector) iter.Seq[T] {
	return filter(l.ix.Values(), selector)
}

// Len returns the number of objects (Indexer.Len).
func (l Lister[T]) Len() int { return l.ix.Len() }

// Keys returns the keys of all objects (Indexer.Keys).
func (l Lister[T]) Keys() []string { return l.ix.Keys() }

// All iterates over the keys and objects (Indexer.All).
func (l Lister[T]) All() iter.Seq2[string, T] { return l.ix.All() }

// Values iterates over the objects (Indexer.Values).
func (l Lister[T]) Values() iter.Seq[T] { return l.ix.Values() }

// ByIndex returns the objects whose index values include value
// (Indexer.ByIndex).
func (l Lister[T]) ByIndex(index, value string) ([]T, error) { return l.ix.ByIndex(index, value) }

// ByIndexSeq iterates over the objects whose index values include value
// (Indexer.ByIndexSeq).
func (l Lister[T]) ByIndexSeq(index, value string) (iter.Seq[T], error) {
	return l.ix.ByIndexSeq(index, value)
}

// IndexKeys returns the keys of the objects whose index values include
// value (Indexer.IndexKeys).
func (l Lister[T]) IndexKeys(index, value string) ([]string, error) {
	return l.ix.IndexKeys(index, value)
}

// IndexValues returns the values an index holds (Indexer.IndexValues).
func (l Lister[T]) IndexValues(index string) ([]string, error) { return l.ix.IndexValues(index) }

// Indexes returns the names of the indexes (Indexer.Indexes).
func (l Lister[T]) Indexes() []string { return l.ix.Indexes() }

// Namespace returns a Lister for one namespace. It uses the NamespaceIndex
// when the Indexer has it, and otherwise scans every object.
func (l Lister[T]) Namespace(namespace string) NamespaceLister[T] {
	return NamespaceLister[T]{ix: l.ix, ns: namespace}
}

// NamespaceLister lists and gets the objects of one namespace.
type NamespaceLister[T Object] struct {
	ix *Indexer[T]
	ns string
}

// Get returns the object named name in the namespace. It looks up the key
// "namespace/name", so it assumes the default MetaKey key func.
func (l NamespaceLister[T]) Get(name string) (T, bool) {
	if l.ns == "" {
		return l.ix.Get(name)
	}
	return l.ix.Get(l.ns + "/" + name)
}

// List returns a snapshot of the namespace's objects whose labels match
// selector. A nil selector matches everything.
func (l NamespaceLister[T]) List(selector labels.Selector) []T {
	var out []T
	for obj := range l.ListSeq(selector) {
		out = append(out, obj)
	}
	return out
}

// ListSeq returns a weakly consistent iterator over the namespace's
// objects whose labels match selector. A nil selector matches everything.
func (l NamespaceLister[T]) ListSeq(selector labels.Selector) iter.Seq[T] {
	if seq, err := l.ix.ByIndexSeq(NamespaceIndex, l.ns); err == nil {
		return filter(seq, selector)
	}
	ns := l.ns
	return func(yield func(T) bool) {
		for obj := range l.ix.Values() {
			if obj.GetNamespace() == ns && (matchesAll(selector) || selector.Matches(labels.Set(obj.GetLabels()))) {
				if !yield(obj) {
					return
				}
			}
		}
	}
}

func matchesAll(selector labels.Selector) bool { return selector == nil || selector.Empty() }

func filter[T Object](seq iter.Seq[T], selector labels.Selector) iter.Seq[T] {
	if matchesAll(selector) {
		return seq
	}
	return func(yield func(T) bool) {
		for obj := range seq {
			if selector.Matches(labels.Set(obj.GetLabels())) && !yield(obj) {
				return
			}
		}
	}
}

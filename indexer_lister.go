package informer

import (
	"iter"

	"k8s.io/apimachinery/pkg/labels"
)

// Lister is a read-only view of an Indexer, shaped for controllers: get by
// key, list by label selector, and the same per namespace.
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

// Seq returns a weakly consistent iterator (see Indexer) over the objects
// whose labels match selector. A nil selector matches everything.
func (l Lister[T]) Seq(selector labels.Selector) iter.Seq[T] {
	return filter(l.ix.Values(), selector)
}

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
	for obj := range l.Seq(selector) {
		out = append(out, obj)
	}
	return out
}

// Seq returns a weakly consistent iterator over the namespace's objects whose
// labels match selector. A nil selector matches everything.
func (l NamespaceLister[T]) Seq(selector labels.Selector) iter.Seq[T] {
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

package informer_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer"
)

// cm is a small ConfigMap-like object used by the storage tests.
type cm struct {
	metav1.ObjectMeta
	Data map[string]string
}

// newCM returns a cm; kv are label key/value pairs.
func newCM(ns, name, rv string, kv ...string) *cm {
	c := &cm{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	if len(kv) > 0 {
		c.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			c.Labels[kv[i]] = kv[i+1]
		}
	}
	return c
}

func keyOf(t testing.TB, obj *cm) string {
	t.Helper()
	k, err := informer.MetaKey(obj)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// indexByLabelValues indexes an object under the value of every label, so an
// object can have zero, one or many values, and duplicates when two labels
// share a value.
func indexByLabelValues(obj *cm, dst []string) ([]string, error) {
	for _, v := range obj.Labels {
		dst = append(dst, v)
	}
	return dst, nil
}

var errBadIndex = errors.New("refusing to index this object")

// indexFailing fails for objects labelled bad=true.
func indexFailing(obj *cm, dst []string) ([]string, error) {
	if obj.Labels["bad"] == "true" {
		return dst, errBadIndex
	}
	return append(dst, obj.Name), nil
}

func cmIndexers() map[string]informer.IndexFunc[*cm] {
	return map[string]informer.IndexFunc[*cm]{
		informer.NamespaceIndex: informer.IndexByNamespace[*cm](),
		"app":                   informer.IndexByLabel[*cm]("app"),
		"values":                indexByLabelValues,
	}
}

func newCMIndexer() *informer.Indexer[*cm] {
	return informer.NewIndexer(informer.IndexerOptions[*cm]{Indexers: cmIndexers()})
}

// checkIndexes recomputes every index in funcs from the Indexer's objects and
// fails unless the Indexer's indexes equal them, through IndexValues,
// IndexKeys, ByIndex and ByIndexSeq. It also checks that Len, Keys, List,
// All and Values agree. The Indexer must not change while it runs.
func checkIndexes[T informer.Object](t testing.TB, ix *informer.Indexer[T], keyFunc informer.KeyFunc[T], funcs map[string]informer.IndexFunc[T]) {
	t.Helper()
	if keyFunc == nil {
		keyFunc = informer.MetaKey[T]
	}
	objs := ix.List()
	byKey := map[string]T{}
	for _, o := range objs {
		k, err := keyFunc(o)
		if err != nil {
			t.Fatalf("stored object has no key: %v", err)
		}
		if _, dup := byKey[k]; dup {
			t.Fatalf("List holds key %q twice", k)
		}
		byKey[k] = o
	}
	keys := ix.Keys()
	slices.Sort(keys)
	if want := slices.Sorted(maps.Keys(byKey)); !slices.Equal(keys, want) {
		t.Fatalf("Keys() = %q, keys of List() = %q", keys, want)
	}
	if ix.Len() != len(objs) {
		t.Fatalf("Len() = %d, len(List()) = %d", ix.Len(), len(objs))
	}
	n := 0
	for k, o := range ix.All() {
		n++
		if w, ok := byKey[k]; !ok || any(w) != any(o) {
			t.Fatalf("All() yielded %q => %v, List has %v (%v)", k, o, w, ok)
		}
		if g, ok := ix.Get(k); !ok || any(g) != any(o) {
			t.Fatalf("Get(%q) = %v, %v; All() yielded %v", k, g, ok, o)
		}
	}
	if n != len(objs) {
		t.Fatalf("All() yielded %d objects, List() %d", n, len(objs))
	}
	n = 0
	for range ix.Values() {
		n++
	}
	if n != len(objs) {
		t.Fatalf("Values() yielded %d objects, List() %d", n, len(objs))
	}

	names := ix.Indexes()
	slices.Sort(names)
	if want := slices.Sorted(maps.Keys(funcs)); !slices.Equal(names, want) {
		t.Fatalf("Indexes() = %q, want %q", names, want)
	}
	for name, fn := range funcs {
		want := map[string][]string{} // value -> sorted keys
		for k, o := range byKey {
			vals, err := fn(o, nil)
			if err != nil {
				t.Fatalf("index %q fails for stored object %q: %v", name, k, err)
			}
			slices.Sort(vals)
			for _, v := range slices.Compact(vals) {
				want[v] = append(want[v], k)
			}
		}
		values, err := ix.IndexValues(name)
		if err != nil {
			t.Fatalf("IndexValues(%q): %v", name, err)
		}
		slices.Sort(values)
		if w := slices.Sorted(maps.Keys(want)); !slices.Equal(values, w) {
			t.Fatalf("IndexValues(%q) = %q, recomputed %q", name, values, w)
		}
		for v, wantKeys := range want {
			slices.Sort(wantKeys)
			got, err := ix.IndexKeys(name, v)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, wantKeys) {
				t.Fatalf("IndexKeys(%q, %q) = %q, recomputed %q", name, v, got, wantKeys)
			}
			byIndex, err := ix.ByIndex(name, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedKeys(t, keyFunc, byIndex); !slices.Equal(got, wantKeys) {
				t.Fatalf("ByIndex(%q, %q) keys = %q, recomputed %q", name, v, got, wantKeys)
			}
			seq, err := ix.ByIndexSeq(name, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedKeys(t, keyFunc, slices.Collect(seq)); !slices.Equal(got, wantKeys) {
				t.Fatalf("ByIndexSeq(%q, %q) keys = %q, recomputed %q", name, v, got, wantKeys)
			}
		}
	}
}

func sortedKeys[T informer.Object](t testing.TB, keyFunc informer.KeyFunc[T], objs []T) []string {
	t.Helper()
	keys := make([]string, 0, len(objs))
	for _, o := range objs {
		k, err := keyFunc(o)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sortedObjKeys returns the MetaKeys of objs, sorted.
func sortedObjKeys(t testing.TB, objs []*cm) []string {
	t.Helper()
	return sortedKeys(t, informer.MetaKey[*cm], objs)
}

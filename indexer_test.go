package informer_test

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
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

type ixOp struct {
	op  string // add, update, delete, replace
	obj *cm
	all []*cm // for replace
}

func TestIndexerOps(t *testing.T) {
	a1 := newCM("ns1", "a", "1", "app", "web")
	a2 := newCM("ns1", "a", "2", "app", "db")
	b1 := newCM("ns2", "b", "1", "app", "web", "tier", "web")
	c1 := newCM("", "c", "1")
	tests := []struct {
		name   string
		ops    []ixOp
		want   []*cm
		values map[string][]string // index -> values present
	}{
		{name: "empty", values: map[string][]string{informer.NamespaceIndex: {}, "app": {}, "values": {}}},
		{
			name: "add",
			ops:  []ixOp{{op: "add", obj: a1}, {op: "add", obj: b1}, {op: "add", obj: c1}},
			want: []*cm{a1, b1, c1},
			values: map[string][]string{
				informer.NamespaceIndex: {"", "ns1", "ns2"},
				"app":                   {"web"},
				"values":                {"web"},
			},
		},
		{
			name:   "add twice is an update",
			ops:    []ixOp{{op: "add", obj: a1}, {op: "add", obj: a2}},
			want:   []*cm{a2},
			values: map[string][]string{"app": {"db"}},
		},
		{
			name:   "update absent is an add",
			ops:    []ixOp{{op: "update", obj: a2}},
			want:   []*cm{a2},
			values: map[string][]string{"app": {"db"}, informer.NamespaceIndex: {"ns1"}},
		},
		{
			name:   "update moves buckets",
			ops:    []ixOp{{op: "add", obj: a1}, {op: "add", obj: b1}, {op: "update", obj: a2}},
			want:   []*cm{a2, b1},
			values: map[string][]string{"app": {"db", "web"}, "values": {"db", "web"}},
		},
		{
			name:   "delete",
			ops:    []ixOp{{op: "add", obj: a1}, {op: "add", obj: b1}, {op: "delete", obj: a1}},
			want:   []*cm{b1},
			values: map[string][]string{informer.NamespaceIndex: {"ns2"}, "app": {"web"}},
		},
		{
			name:   "delete by key with another version",
			ops:    []ixOp{{op: "add", obj: a1}, {op: "delete", obj: a2}},
			values: map[string][]string{informer.NamespaceIndex: {}, "app": {}, "values": {}},
		},
		{
			name:   "delete absent",
			ops:    []ixOp{{op: "add", obj: b1}, {op: "delete", obj: a1}},
			want:   []*cm{b1},
			values: map[string][]string{informer.NamespaceIndex: {"ns2"}},
		},
		{
			name:   "replace",
			ops:    []ixOp{{op: "add", obj: a1}, {op: "add", obj: b1}, {op: "replace", all: []*cm{a2, c1}}},
			want:   []*cm{a2, c1},
			values: map[string][]string{informer.NamespaceIndex: {"", "ns1"}, "app": {"db"}},
		},
		{
			name:   "replace with nothing",
			ops:    []ixOp{{op: "add", obj: a1}, {op: "replace"}},
			values: map[string][]string{informer.NamespaceIndex: {}, "app": {}},
		},
		{
			name:   "replace with duplicate keys: last wins",
			ops:    []ixOp{{op: "replace", all: []*cm{a1, b1, a2}}},
			want:   []*cm{a2, b1},
			values: map[string][]string{"app": {"db", "web"}, informer.NamespaceIndex: {"ns1", "ns2"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := newCMIndexer()
			for _, op := range tt.ops {
				var err error
				switch op.op {
				case "add":
					err = ix.Add(op.obj)
				case "update":
					err = ix.Update(op.obj)
				case "delete":
					err = ix.Delete(op.obj)
				case "replace":
					err = ix.Replace(op.all)
				}
				if err != nil {
					t.Fatalf("%s: %v", op.op, err)
				}
			}
			checkIndexes(t, ix, nil, cmIndexers())
			if ix.Len() != len(tt.want) {
				t.Fatalf("Len() = %d, want %d", ix.Len(), len(tt.want))
			}
			for _, w := range tt.want {
				got, ok := ix.Get(keyOf(t, w))
				if !ok || got != w {
					t.Fatalf("Get(%q) = %v, %v; want %v", keyOf(t, w), got, ok, w)
				}
			}
			if got, want := sortedObjKeys(t, ix.List()), sortedObjKeys(t, tt.want); !slices.Equal(got, want) {
				t.Fatalf("List() keys = %q, want %q", got, want)
			}
			if got, want := sortedObjKeys(t, slices.Collect(ix.Values())), sortedObjKeys(t, tt.want); !slices.Equal(got, want) {
				t.Fatalf("Values() keys = %q, want %q", got, want)
			}
			for index, want := range tt.values {
				got, err := ix.IndexValues(index)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Fatalf("IndexValues(%q) = %q, want %q", index, got, want)
				}
			}
		})
	}
}

func TestIndexerGetMissing(t *testing.T) {
	ix := newCMIndexer()
	if got, ok := ix.Get("nope"); ok || got != nil {
		t.Fatalf("Get(missing) = %v, %v", got, ok)
	}
	mustAdd(t, ix, newCM("a", "b", "1"))
	for _, k := range []string{"", "b", "a", "a/b/", "A/b"} {
		if got, ok := ix.Get(k); ok {
			t.Errorf("Get(%q) = %v, want absent", k, got)
		}
	}
}

func TestIndexerUpsertAndDeleteKey(t *testing.T) {
	ix := newCMIndexer()
	v1, v2 := newCM("ns", "x", "1", "app", "a"), newCM("ns", "x", "2", "app", "b")
	old, existed, err := ix.Upsert(v1)
	if err != nil || existed || old != nil {
		t.Fatalf("Upsert(new) = %v, %v, %v", old, existed, err)
	}
	old, existed, err = ix.Upsert(v2)
	if err != nil || !existed || old != v1 {
		t.Fatalf("Upsert(existing) = %v, %v, %v; want v1, true, nil", old, existed, err)
	}
	old, existed, err = ix.DeleteKey("ns/x")
	if err != nil || !existed || old != v2 {
		t.Fatalf("DeleteKey = %v, %v, %v; want v2, true, nil", old, existed, err)
	}
	old, existed, err = ix.DeleteKey("ns/x")
	if err != nil || existed || old != nil {
		t.Fatalf("DeleteKey(absent) = %v, %v, %v", old, existed, err)
	}
	checkIndexes(t, ix, nil, cmIndexers())
}

func TestIndexerByIndex(t *testing.T) {
	ix := newCMIndexer()
	objs := []*cm{
		newCM("ns1", "a", "1", "app", "web", "x", "web"), // duplicate value in "values"
		newCM("ns1", "b", "1", "app", "db"),
		newCM("ns2", "c", "1", "app", "web"),
		newCM("ns2", "d", "1"),
	}
	for _, o := range objs {
		mustAdd(t, ix, o)
	}
	tests := []struct {
		index, value string
		want         []string
		wantErr      error
	}{
		{index: informer.NamespaceIndex, value: "ns1", want: []string{"ns1/a", "ns1/b"}},
		{index: informer.NamespaceIndex, value: "ns2", want: []string{"ns2/c", "ns2/d"}},
		{index: informer.NamespaceIndex, value: "ns3"},
		{index: "app", value: "web", want: []string{"ns1/a", "ns2/c"}},
		{index: "app", value: "db", want: []string{"ns1/b"}},
		{index: "app", value: ""},
		{index: "values", value: "web", want: []string{"ns1/a", "ns2/c"}},
		{index: "nope", value: "web", wantErr: informer.ErrNoSuchIndex},
	}
	for _, tt := range tests {
		t.Run(tt.index+"="+tt.value, func(t *testing.T) {
			objs, err := ix.ByIndex(tt.index, tt.value)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ByIndex error = %v, want %v", err, tt.wantErr)
			}
			keys, err2 := ix.IndexKeys(tt.index, tt.value)
			if !errors.Is(err2, tt.wantErr) {
				t.Fatalf("IndexKeys error = %v, want %v", err2, tt.wantErr)
			}
			seq, err3 := ix.ByIndexSeq(tt.index, tt.value)
			if !errors.Is(err3, tt.wantErr) {
				t.Fatalf("ByIndexSeq error = %v, want %v", err3, tt.wantErr)
			}
			if tt.wantErr != nil {
				if objs != nil || keys != nil || seq != nil {
					t.Fatalf("results on error: %v %v %v", objs, keys, seq != nil)
				}
				return
			}
			slices.Sort(keys)
			for what, got := range map[string][]string{
				"ByIndex":    sortedObjKeys(t, objs),
				"IndexKeys":  keys,
				"ByIndexSeq": sortedObjKeys(t, slices.Collect(seq)),
			} {
				if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
					t.Errorf("%s(%q, %q) = %q, want %q", what, tt.index, tt.value, got, tt.want)
				}
			}
		})
	}
	if _, err := ix.IndexValues("nope"); !errors.Is(err, informer.ErrNoSuchIndex) {
		t.Fatalf("IndexValues(unknown) error = %v", err)
	}
}

func TestIndexerAddIndex(t *testing.T) {
	t.Run("indexes existing objects", func(t *testing.T) {
		ix := informer.NewIndexer(informer.IndexerOptions[*cm]{})
		for i := range 300 {
			mustAdd(t, ix, newCM("ns"+strconv.Itoa(i%7), "o"+strconv.Itoa(i), "1", "app", strconv.Itoa(i%3)))
		}
		funcs := map[string]informer.IndexFunc[*cm]{}
		checkIndexes(t, ix, nil, funcs)
		for name, fn := range cmIndexers() {
			if err := ix.AddIndex(name, fn); err != nil {
				t.Fatal(err)
			}
			funcs[name] = fn
			checkIndexes(t, ix, nil, funcs)
		}
		// Writes after AddIndex maintain the new indexes.
		mustAdd(t, ix, newCM("ns0", "o0", "2", "app", "moved"))
		if err := ix.Delete(newCM("ns1", "o1", "")); err != nil {
			t.Fatal(err)
		}
		checkIndexes(t, ix, nil, funcs)
	})

	t.Run("duplicate name", func(t *testing.T) {
		ix := newCMIndexer()
		err := ix.AddIndex(informer.NamespaceIndex, informer.IndexByNamespace[*cm]())
		if !errors.Is(err, informer.ErrIndexExists) {
			t.Fatalf("AddIndex(existing initial index) error = %v, want ErrIndexExists", err)
		}
		if err := ix.AddIndex("extra", indexFailing); err != nil {
			t.Fatal(err)
		}
		if err := ix.AddIndex("extra", indexFailing); !errors.Is(err, informer.ErrIndexExists) {
			t.Fatalf("AddIndex(added index) error = %v, want ErrIndexExists", err)
		}
		funcs := cmIndexers()
		funcs["extra"] = indexFailing
		checkIndexes(t, ix, nil, funcs)
	})

	t.Run("nil func", func(t *testing.T) {
		ix := newCMIndexer()
		if err := ix.AddIndex("x", nil); err == nil {
			t.Fatal("AddIndex(nil func) succeeded")
		}
		checkIndexes(t, ix, nil, cmIndexers())
	})

	t.Run("unknown index", func(t *testing.T) {
		ix := newCMIndexer()
		mustAdd(t, ix, newCM("a", "b", "1"))
		if _, err := ix.ByIndex("x", "a"); !errors.Is(err, informer.ErrNoSuchIndex) {
			t.Errorf("ByIndex: %v", err)
		}
		if _, err := ix.ByIndexSeq("x", "a"); !errors.Is(err, informer.ErrNoSuchIndex) {
			t.Errorf("ByIndexSeq: %v", err)
		}
		if _, err := ix.IndexKeys("x", "a"); !errors.Is(err, informer.ErrNoSuchIndex) {
			t.Errorf("IndexKeys: %v", err)
		}
		if _, err := ix.IndexValues("x"); !errors.Is(err, informer.ErrNoSuchIndex) {
			t.Errorf("IndexValues: %v", err)
		}
	})

	t.Run("index func fails for a stored object", func(t *testing.T) {
		ix := newCMIndexer()
		mustAdd(t, ix, newCM("a", "good", "1"))
		mustAdd(t, ix, newCM("a", "bad", "1", "bad", "true"))
		err := ix.AddIndex("failing", indexFailing)
		var ie *informer.IndexError
		if !errors.As(err, &ie) || ie.Index != "failing" || ie.Key != "a/bad" || !errors.Is(err, errBadIndex) {
			t.Fatalf("AddIndex error = %#v, want *IndexError for a/bad wrapping errBadIndex", err)
		}
		checkIndexes(t, ix, nil, cmIndexers()) // not added
		// The name is free again, and the objects are untouched.
		if err := ix.Delete(newCM("a", "bad", "")); err != nil {
			t.Fatal(err)
		}
		if err := ix.AddIndex("failing", indexFailing); err != nil {
			t.Fatalf("AddIndex after removing the bad object: %v", err)
		}
		funcs := cmIndexers()
		funcs["failing"] = indexFailing
		checkIndexes(t, ix, nil, funcs)
		assertIndexKeys(t, ix, "failing", "good", "a/good")
	})
}

// TestIndexerAddIndexRacingUpdate pins down a race between AddIndex and an
// update that leaves the new index's values unchanged: AddIndex computes the
// values of stored objects without the lock; an update in that window must
// still leave the object in the new index.
func TestIndexerAddIndexRacingUpdate(t *testing.T) {
	ix := newCMIndexer()
	mustAdd(t, ix, newCM("ns", "x", "1", "app", "a"))

	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	byApp := func(obj *cm, dst []string) ([]string, error) {
		first := false
		once.Do(func() { first = true })
		if first { // AddIndex's own computation for the stored object
			close(entered)
			<-release
		}
		return append(dst, obj.Labels["app"]), nil
	}
	errc := make(chan error, 1)
	go func() { errc <- ix.AddIndex("byApp", byApp) }()
	<-entered
	// Same value in the new index, new version of the object.
	mustAdd(t, ix, newCM("ns", "x", "2", "app", "a"))
	close(release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	funcs := cmIndexers()
	funcs["byApp"] = byApp
	checkIndexes(t, ix, nil, funcs)
}

// TestIndexerAddIndexRacingDelete: an object deleted while AddIndex computes
// its values must stay out of the new index.
func TestIndexerAddIndexRacingDelete(t *testing.T) {
	ix := newCMIndexer()
	mustAdd(t, ix, newCM("ns", "x", "1", "app", "a"))
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	byApp := func(obj *cm, dst []string) ([]string, error) {
		first := false
		once.Do(func() { first = true })
		if first {
			close(entered)
			<-release
		}
		return append(dst, obj.Labels["app"]), nil
	}
	errc := make(chan error, 1)
	go func() { errc <- ix.AddIndex("byApp", byApp) }()
	<-entered
	if err := ix.Delete(newCM("ns", "x", "")); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, ix, newCM("ns", "y", "1", "app", "b"))
	close(release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	funcs := cmIndexers()
	funcs["byApp"] = byApp
	checkIndexes(t, ix, nil, funcs)
}

func TestIndexerBadInput(t *testing.T) {
	t.Run("nil object", func(t *testing.T) {
		ix := newCMIndexer()
		for name, f := range map[string]func(*cm) error{"Add": ix.Add, "Update": ix.Update, "Delete": ix.Delete} {
			if err := f(nil); !errors.Is(err, informer.ErrNilObject) {
				t.Errorf("%s(nil) error = %v, want ErrNilObject", name, err)
			}
		}
		if _, _, err := ix.Upsert(nil); !errors.Is(err, informer.ErrNilObject) {
			t.Errorf("Upsert(nil) error = %v", err)
		}
		if ix.Len() != 0 {
			t.Fatalf("Len() = %d", ix.Len())
		}
	})

	t.Run("empty name", func(t *testing.T) {
		ix := newCMIndexer()
		for name, f := range map[string]func(*cm) error{"Add": ix.Add, "Update": ix.Update, "Delete": ix.Delete} {
			if err := f(newCM("ns", "", "1")); !errors.Is(err, informer.ErrEmptyName) {
				t.Errorf("%s(no name) error = %v, want ErrEmptyName", name, err)
			}
		}
		checkIndexes(t, ix, nil, cmIndexers())
	})

	t.Run("key func fails", func(t *testing.T) {
		errKey := errors.New("no key for you")
		ix := informer.NewIndexer(informer.IndexerOptions[*cm]{
			KeyFunc: func(obj *cm) (string, error) {
				switch obj.Name {
				case "fail":
					return "", errKey
				case "empty":
					return "", nil
				}
				return "k:" + obj.Name, nil
			},
			Indexers: cmIndexers(),
		})
		err := ix.Add(newCM("ns", "fail", "1"))
		var ke *informer.KeyError
		if !errors.As(err, &ke) || !errors.Is(err, errKey) {
			t.Fatalf("Add with failing key func: %v, want *KeyError wrapping errKey", err)
		}
		err = ix.Add(newCM("ns", "empty", "1"))
		if !errors.As(err, &ke) || !errors.Is(err, informer.ErrEmptyName) {
			t.Fatalf("Add with empty key: %v, want *KeyError wrapping ErrEmptyName", err)
		}
		mustAdd(t, ix, newCM("ns", "ok", "1"))
		if _, ok := ix.Get("k:ok"); !ok {
			t.Fatal("custom key not used")
		}
		if ix.Len() != 1 {
			t.Fatalf("Len() = %d, want 1", ix.Len())
		}
	})

	t.Run("index func fails", func(t *testing.T) {
		funcs := cmIndexers()
		funcs["failing"] = indexFailing
		ix := informer.NewIndexer(informer.IndexerOptions[*cm]{Indexers: funcs})
		good := newCM("ns", "x", "1", "app", "a")
		mustAdd(t, ix, good)
		before, _ := ix.IndexValues("app")

		// A new object that cannot be indexed is not stored.
		err := ix.Add(newCM("ns", "y", "1", "bad", "true", "app", "b"))
		var ie *informer.IndexError
		if !errors.As(err, &ie) || ie.Index != "failing" || ie.Key != "ns/y" || !errors.Is(err, errBadIndex) {
			t.Fatalf("Add(unindexable) error = %v, want *IndexError{failing, ns/y}", err)
		}
		if _, ok := ix.Get("ns/y"); ok {
			t.Fatal("unindexable object was stored")
		}
		// An update to an unindexable state leaves the old state.
		if err := ix.Update(newCM("ns", "x", "2", "bad", "true", "app", "c")); !errors.As(err, &ie) {
			t.Fatalf("Update(unindexable) error = %v", err)
		}
		if got, _ := ix.Get("ns/x"); got != good {
			t.Fatalf("Get after failed update = %v, want the old object", got)
		}
		after, _ := ix.IndexValues("app")
		if !slices.Equal(before, after) {
			t.Fatalf("IndexValues(app) changed from %q to %q", before, after)
		}
		checkIndexes(t, ix, nil, funcs)
	})

	t.Run("index func returns duplicate values", func(t *testing.T) {
		dups := func(obj *cm, dst []string) ([]string, error) {
			return append(dst, "v", obj.Name, "v", obj.Name, "v"), nil
		}
		funcs := map[string]informer.IndexFunc[*cm]{"dups": dups}
		ix := informer.NewIndexer(informer.IndexerOptions[*cm]{Indexers: funcs})
		mustAdd(t, ix, newCM("ns", "a", "1"))
		mustAdd(t, ix, newCM("ns", "b", "1"))
		checkIndexes(t, ix, nil, funcs)
		objs, _ := ix.ByIndex("dups", "v")
		if len(objs) != 2 {
			t.Fatalf("ByIndex(dups, v) = %d objects, want 2 (each once)", len(objs))
		}
		mustAdd(t, ix, newCM("ns", "a", "2"))
		if err := ix.Delete(newCM("ns", "b", "")); err != nil {
			t.Fatal(err)
		}
		checkIndexes(t, ix, nil, funcs)
		assertIndexKeys(t, ix, "dups", "v", "ns/a")
		if err := ix.Delete(newCM("ns", "a", "")); err != nil {
			t.Fatal(err)
		}
		if vals, _ := ix.IndexValues("dups"); len(vals) != 0 {
			t.Fatalf("IndexValues after deleting everything = %q", vals)
		}
	})

	t.Run("replace with invalid objects", func(t *testing.T) {
		funcs := cmIndexers()
		funcs["failing"] = indexFailing
		ix := informer.NewIndexer(informer.IndexerOptions[*cm]{Indexers: funcs})
		mustAdd(t, ix, newCM("old", "gone", "1"))
		err := ix.Replace([]*cm{
			newCM("ns", "a", "1"),
			nil,
			newCM("ns", "", "1"),
			newCM("ns", "bad", "1", "bad", "true"),
			newCM("ns", "b", "1", "app", "x"),
		})
		if err == nil {
			t.Fatal("Replace with invalid objects returned no error")
		}
		var ie *informer.IndexError
		for _, want := range []error{informer.ErrNilObject, informer.ErrEmptyName, errBadIndex} {
			if !errors.Is(err, want) {
				t.Errorf("Replace error %v does not wrap %v", err, want)
			}
		}
		if !errors.As(err, &ie) || ie.Key != "ns/bad" {
			t.Errorf("Replace error %v: no *IndexError for ns/bad", err)
		}
		if got := slices.Sorted(slices.Values(ix.Keys())); !slices.Equal(got, []string{"ns/a", "ns/b"}) {
			t.Fatalf("Keys after Replace = %q, want [ns/a ns/b]", got)
		}
		checkIndexes(t, ix, nil, funcs)
	})

	t.Run("replace: last of duplicate keys wins in every index", func(t *testing.T) {
		ix := newCMIndexer()
		last := newCM("ns", "a", "3", "app", "c")
		if err := ix.Replace([]*cm{
			newCM("ns", "a", "1", "app", "a"),
			newCM("ns", "a", "2", "app", "b", "more", "x"),
			last,
		}); err != nil {
			t.Fatal(err)
		}
		if got, _ := ix.Get("ns/a"); got != last {
			t.Fatalf("Get = %v, want the last duplicate", got)
		}
		checkIndexes(t, ix, nil, cmIndexers())
		if vals, _ := ix.IndexValues("app"); !slices.Equal(vals, []string{"c"}) {
			t.Fatalf("IndexValues(app) = %q, want [c]", vals)
		}
	})
}

func TestIndexerUpdateMovesBetweenBuckets(t *testing.T) {
	ix := newCMIndexer()
	mustAdd(t, ix, newCM("ns", "a", "1", "app", "one"))
	mustAdd(t, ix, newCM("ns", "b", "1", "app", "one"))
	mustAdd(t, ix, newCM("ns", "a", "2", "app", "two"))
	assertIndexKeys(t, ix, "app", "one", "ns/b")
	assertIndexKeys(t, ix, "app", "two", "ns/a")
	mustAdd(t, ix, newCM("ns", "b", "2", "app", "two"))
	assertIndexKeys(t, ix, "app", "one")
	assertIndexKeys(t, ix, "app", "two", "ns/a", "ns/b")
	vals, _ := ix.IndexValues("app")
	if !slices.Equal(vals, []string{"two"}) {
		t.Fatalf("IndexValues(app) = %q: the empty bucket should be gone", vals)
	}
	// Losing the label leaves the index entirely.
	mustAdd(t, ix, newCM("ns", "a", "3"))
	mustAdd(t, ix, newCM("ns", "b", "3"))
	if vals, _ := ix.IndexValues("app"); len(vals) != 0 {
		t.Fatalf("IndexValues(app) = %q, want none", vals)
	}
	checkIndexes(t, ix, nil, cmIndexers())
}

// fillIndexer stores n objects spread over the given namespaces.
func fillIndexer(t testing.TB, ix *informer.Indexer[*cm], n, namespaces int) []*cm {
	objs := make([]*cm, n)
	for i := range n {
		objs[i] = newCM("ns"+strconv.Itoa(i%namespaces), "o"+strconv.Itoa(i), "1", "app", "a"+strconv.Itoa(i%5))
		if err := ix.Add(objs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return objs
}

func TestIndexerIteratorsBreakEarly(t *testing.T) {
	ix := newCMIndexer()
	fillIndexer(t, ix, 500, 1)
	for _, stopAt := range []int{1, 63, 64, 65, 200} {
		n := 0
		for range ix.All() {
			n++
			if n == stopAt {
				break
			}
		}
		if n != stopAt {
			t.Fatalf("All: %d iterations, want %d", n, stopAt)
		}
		n = 0
		for range ix.Values() {
			n++
			if n == stopAt {
				break
			}
		}
		if n != stopAt {
			t.Fatalf("Values: %d iterations, want %d", n, stopAt)
		}
		seq, err := ix.ByIndexSeq(informer.NamespaceIndex, "ns0")
		if err != nil {
			t.Fatal(err)
		}
		n = 0
		for range seq {
			n++
			if n == stopAt {
				break
			}
		}
		if n != stopAt {
			t.Fatalf("ByIndexSeq: %d iterations, want %d", n, stopAt)
		}
	}
	// The lock is free after breaking out: a write does not deadlock.
	mustAdd(t, ix, newCM("ns0", "after", "1"))
	checkIndexes(t, ix, nil, cmIndexers())
}

// TestIndexerIteratorsWeaklyConsistent writes to the Indexer from inside the
// loop bodies of its iterators. Nothing deadlocks; every object present for
// the whole iteration is yielded exactly once; nothing is yielded twice.
func TestIndexerIteratorsWeaklyConsistent(t *testing.T) {
	const n = 600
	iterators := map[string]func(ix *informer.Indexer[*cm]) func(func(*cm) bool){
		"Values": func(ix *informer.Indexer[*cm]) func(func(*cm) bool) { return ix.Values() },
		"All": func(ix *informer.Indexer[*cm]) func(func(*cm) bool) {
			return func(yield func(*cm) bool) {
				for k, o := range ix.All() {
					if k != o.Namespace+"/"+o.Name {
						panic("All yielded a key with another object: " + k)
					}
					if !yield(o) {
						return
					}
				}
			}
		},
		"ByIndexSeq": func(ix *informer.Indexer[*cm]) func(func(*cm) bool) {
			seq, err := ix.ByIndexSeq(informer.NamespaceIndex, "ns0")
			if err != nil {
				panic(err)
			}
			return seq
		},
	}
	for name, iterate := range iterators {
		t.Run(name, func(t *testing.T) {
			ix := newCMIndexer()
			objs := fillIndexer(t, ix, n, 1)
			// Objects with an odd number are deleted during the iteration
			// (unless already yielded); new objects are added.
			seen := map[string]int{}
			deleted := map[string]bool{}
			added := 0
			for o := range iterate(ix) {
				k := keyOf(t, o)
				seen[k]++
				// Reads and writes from inside the loop body.
				if _, ok := ix.Get(k); !ok && !strings.HasPrefix(o.Name, "o") {
					t.Fatalf("Get(%q) inside loop: missing", k)
				}
				if len(seen)%3 == 0 {
					victim := objs[(len(seen)*7)%n]
					if err := ix.Delete(victim); err != nil {
						t.Fatal(err)
					}
					deleted[keyOf(t, victim)] = true
				}
				if added < 100 {
					added++
					mustAdd(t, ix, newCM("ns0", "new"+strconv.Itoa(added), "1"))
				}
				if _, err := ix.ByIndex(informer.NamespaceIndex, "ns0"); err != nil {
					t.Fatal(err)
				}
				if !deleted[k] {
					// Store the same object again: an update in place. (A
					// deleted object is not re-added: that would be a new
					// object, which may be yielded again.)
					mustAdd(t, ix, o)
				}
			}
			for k, c := range seen {
				if c != 1 {
					t.Errorf("%q yielded %d times", k, c)
				}
			}
			// Every object still stored that existed before the loop and
			// was never deleted must have been yielded.
			for _, o := range objs {
				k := keyOf(t, o)
				if _, ok := ix.Get(k); ok && seen[k] == 0 {
					t.Errorf("%q present throughout but not yielded", k)
				}
			}
			checkIndexes(t, ix, nil, cmIndexers())
		})
	}
}

// TestIndexerConcurrent runs readers, writers, Replace and AddIndex at once
// (meant for -race), then checks every index against one recomputed from
// scratch.
func TestIndexerConcurrent(t *testing.T) {
	ix := newCMIndexer()
	const keys = 200
	rounds := 3000
	if testing.Short() {
		rounds = 300
	}
	obj := func(i, v int) *cm {
		return newCM("ns"+strconv.Itoa(i%4), "o"+strconv.Itoa(i%keys), strconv.Itoa(v),
			"app", "a"+strconv.Itoa((i+v)%3), "v", strconv.Itoa(v%2))
	}
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for r := range rounds {
				i := (r*31 + w*17) % keys
				switch r % 5 {
				case 0, 1, 2:
					_ = ix.Update(obj(i, r))
				case 3:
					_ = ix.Delete(obj(i, r))
				case 4:
					if r%500 == 4 && w == 0 {
						list := make([]*cm, 0, keys/2)
						for j := range keys / 2 {
							list = append(list, obj(j*2, r))
						}
						if err := ix.Replace(list); err != nil {
							t.Error(err)
						}
					} else {
						_ = ix.Add(obj(i, r+1))
					}
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for r := range rounds {
				switch r % 6 {
				case 0:
					_, _ = ix.ByIndex(informer.NamespaceIndex, "ns1")
				case 1:
					if seq, err := ix.ByIndexSeq("app", "a1"); err == nil {
						for o := range seq {
							if o.Labels["app"] != "a1" {
								t.Errorf("ByIndexSeq(app, a1) yielded %v", o.Labels)
							}
						}
					}
				case 2:
					for range ix.Values() {
					}
				case 3:
					_ = ix.List()
					_ = ix.Keys()
				case 4:
					_, _ = ix.Get("ns1/o1")
					_ = ix.Len()
				case 5:
					for _, name := range ix.Indexes() {
						vals, _ := ix.IndexValues(name)
						for _, v := range vals {
							_, _ = ix.IndexKeys(name, v)
						}
					}
				}
			}
		})
	}
	added := map[string]informer.IndexFunc[*cm]{}
	var addMu sync.Mutex
	wg.Go(func() {
		for i := range 8 {
			name := "late" + strconv.Itoa(i)
			var fn informer.IndexFunc[*cm]
			switch i % 4 {
			case 0:
				fn = informer.IndexByLabel[*cm]("v")
			case 1:
				fn = indexByLabelValues
			case 2:
				fn = func(obj *cm, dst []string) ([]string, error) { return dst, nil }
			case 3:
				fn = func(obj *cm, dst []string) ([]string, error) {
					return append(dst, obj.Name, obj.Namespace, obj.Name), nil
				}
			}
			if err := ix.AddIndex(name, fn); err != nil {
				t.Error(err)
				continue
			}
			addMu.Lock()
			added[name] = fn
			addMu.Unlock()
		}
	})
	wg.Wait()
	funcs := cmIndexers()
	maps.Copy(funcs, added)
	checkIndexes(t, ix, nil, funcs)
}

// TestIndexerUpdateAllocs: an update that leaves the index values unchanged
// does not touch the index maps and allocates nothing.
func TestIndexerUpdateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under the race detector")
	}
	ix := informer.NewIndexer(informer.IndexerOptions[*cm]{
		Indexers: map[string]informer.IndexFunc[*cm]{informer.NamespaceIndex: informer.IndexByNamespace[*cm]()},
	})
	fillIndexer(t, ix, 1000, 10)
	v := [2]*cm{newCM("ns3", "o3", "2", "app", "x"), newCM("ns3", "o3", "3", "app", "y")}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		if err := ix.Update(v[i%2]); err != nil {
			panic(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Update with unchanged index values: %v allocs/op, want 0", allocs)
	}
	ixNoIndex := informer.NewIndexer(informer.IndexerOptions[*cm]{})
	fillIndexer(t, ixNoIndex, 100, 10)
	allocs = testing.AllocsPerRun(1000, func() {
		i++
		if err := ixNoIndex.Update(v[i%2]); err != nil {
			panic(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Update without indexes: %v allocs/op, want 0", allocs)
	}
	allocs = testing.AllocsPerRun(1000, func() {
		if _, ok := ix.Get("ns3/o3"); !ok {
			panic("missing")
		}
	})
	if allocs != 0 {
		t.Errorf("Get: %v allocs/op, want 0", allocs)
	}
	checkIndexes(t, ix, nil, map[string]informer.IndexFunc[*cm]{informer.NamespaceIndex: informer.IndexByNamespace[*cm]()})
}

package informer_test

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/informer-go/informer"
)

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

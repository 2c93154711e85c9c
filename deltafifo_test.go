package informer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/informer-go/informer"
)

// fmtDelta renders a delta as Type:resourceVersion, with a "?" when the
// final state is unknown.
func fmtDelta(d informer.Delta[*cm]) string {
	s := d.Type.String() + ":" + d.Object.ResourceVersion
	if d.FinalStateUnknown {
		s += "?"
	}
	return s
}

// popped is one key's deltas, rendered: "key Type:rv Type:rv".
func fmtKeyDeltas(key string, ds []informer.Delta[*cm]) string {
	parts := []string{key}
	for _, d := range ds {
		parts = append(parts, fmtDelta(d))
	}
	return strings.Join(parts, " ")
}

// popOne pops one key, which must be queued, and renders it.
func popOne(t testing.TB, f *informer.DeltaFIFO[*cm]) string {
	t.Helper()
	if f.Len() == 0 {
		t.Fatal("popOne: queue is empty")
	}
	var got string
	if err := f.Pop(context.Background(), func(key string, ds []informer.Delta[*cm]) error {
		got = fmtKeyDeltas(key, ds)
		return nil
	}); err != nil {
		t.Fatalf("Pop: %v", err)
	}
	return got
}

// drain pops every queued key, in order.
func drain(t testing.TB, f *informer.DeltaFIFO[*cm]) []string {
	t.Helper()
	var out []string
	for f.Len() > 0 {
		out = append(out, popOne(t, f))
	}
	return out
}

// applyDeltas applies deltas to a cache the way an informer does.
func applyDeltas(ix *informer.Indexer[*cm], ds []informer.Delta[*cm]) error {
	for _, d := range ds {
		var err error
		if d.Type == informer.DeltaDeleted {
			err = ix.Delete(d.Object)
		} else {
			err = ix.Update(d.Object)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func newFIFO(known informer.KnownObjects[*cm]) *informer.DeltaFIFO[*cm] {
	return informer.NewDeltaFIFO(informer.DeltaFIFOOptions[*cm]{KnownObjects: known})
}

// fifoStep is one step of a DeltaFIFO table test.
type fifoStep struct {
	op   string // add, update, delete, replace, resync, pop
	obj  *cm
	list []*cm
	want []string // for pop: the popped keys in order; for replace/resync: nothing
	// unordered: the popped keys may come in any order (keys queued by one
	// Replace from the known objects, or by one Resync)
	unordered bool
}

func runFIFOSteps(t *testing.T, f *informer.DeltaFIFO[*cm], steps []fifoStep) {
	t.Helper()
	for i, s := range steps {
		var err error
		switch s.op {
		case "add":
			err = f.Add(s.obj)
		case "update":
			err = f.Update(s.obj)
		case "delete":
			err = f.Delete(s.obj)
		case "replace":
			err = f.Replace(s.list)
		case "resync":
			err = f.Resync()
		case "pop":
			var got []string
			for range s.want {
				got = append(got, popOne(t, f))
			}
			want := slices.Clone(s.want)
			if s.unordered {
				slices.Sort(got)
				slices.Sort(want)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: popped\n\t%q\nwant\n\t%q", i, got, want)
			}
		case "empty":
			if n := f.Len(); n != 0 {
				t.Fatalf("step %d: Len() = %d, want 0; queue: %q", i, n, drain(t, f))
			}
		default:
			t.Fatalf("unknown op %q", s.op)
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.op, err)
		}
	}
}

func TestDeltaFIFOQueue(t *testing.T) {
	a1, a2, a3 := newCM("ns", "a", "1"), newCM("ns", "a", "2"), newCM("ns", "a", "3")
	b1, b2 := newCM("ns", "b", "1"), newCM("ns", "b", "2")
	c1 := newCM("", "c", "1")
	tests := []struct {
		name  string
		steps []fifoStep
	}{
		{"keys in FIFO order", []fifoStep{
			{op: "add", obj: b1}, {op: "add", obj: a1}, {op: "add", obj: c1},
			{op: "pop", want: []string{"ns/b Added:1", "ns/a Added:1", "c Added:1"}},
			{op: "empty"},
		}},
		{"deltas of a key in order", []fifoStep{
			{op: "add", obj: a1}, {op: "add", obj: b1}, {op: "update", obj: a2}, {op: "update", obj: b2}, {op: "delete", obj: a3},
			{op: "pop", want: []string{"ns/a Added:1 Updated:2 Deleted:3", "ns/b Added:1 Updated:2"}},
		}},
		{"a key keeps its place when more deltas arrive", []fifoStep{
			{op: "add", obj: a1}, {op: "add", obj: b1}, {op: "update", obj: a2},
			{op: "pop", want: []string{"ns/a Added:1 Updated:2"}},
			{op: "update", obj: a3},
			{op: "pop", want: []string{"ns/b Added:1", "ns/a Updated:3"}},
		}},
		{"consecutive deletes compressed, newest kept", []fifoStep{
			{op: "add", obj: a1}, {op: "delete", obj: a2}, {op: "delete", obj: a3},
			{op: "pop", want: []string{"ns/a Added:1 Deleted:3"}},
		}},
		{"deletes separated by an add are not compressed", []fifoStep{
			{op: "delete", obj: a1}, {op: "add", obj: a2}, {op: "delete", obj: a3},
			{op: "pop", want: []string{"ns/a Deleted:1 Added:2 Deleted:3"}},
		}},
		{"known delete replaces an inferred one", []fifoStep{
			{op: "add", obj: a1}, {op: "replace"}, {op: "delete", obj: a2},
			{op: "pop", want: []string{"ns/a Added:1 Deleted:2"}},
		}},
		{"inferred delete does not replace a known one", []fifoStep{
			{op: "add", obj: a1}, {op: "delete", obj: a2}, {op: "replace"},
			{op: "pop", want: []string{"ns/a Added:1 Deleted:2"}},
		}},
		{"replace without known objects infers from the queue only", []fifoStep{
			{op: "add", obj: a1}, {op: "update", obj: b1}, {op: "replace", list: []*cm{b2, c1}},
			{op: "pop", want: []string{"ns/a Added:1 Deleted:1?", "ns/b Updated:1 Replaced:2", "c Replaced:1"}},
			{op: "empty"},
		}},
		{"resync without known objects is a no-op", []fifoStep{
			{op: "resync"}, {op: "empty"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runFIFOSteps(t, newFIFO(nil), tt.steps)
		})
	}
}

func TestDeltaFIFOReplaceWithKnownObjects(t *testing.T) {
	// The cache holds a, b, c; the queue holds pending deltas for d and e.
	ix := newCMIndexer()
	for _, o := range []*cm{newCM("ns", "a", "1"), newCM("ns", "b", "1"), newCM("ns", "c", "1")} {
		mustAdd(t, ix, o)
	}
	f := newFIFO(ix)
	runFIFOSteps(t, f, []fifoStep{
		{op: "add", obj: newCM("ns", "d", "1")},
		{op: "update", obj: newCM("ns", "d", "2")},
		{op: "delete", obj: newCM("ns", "e", "1")},
		{op: "update", obj: newCM("ns", "c", "2")},
		// The relist sees a (changed) only.
		{op: "replace", list: []*cm{newCM("ns", "a", "5")}},
		// Queued keys keep their place; d and c get a delete carrying their
		// newest queued state, e's delete stays as it is.
		{op: "pop", want: []string{
			"ns/d Added:1 Updated:2 Deleted:2?",
			"ns/e Deleted:1",
			"ns/c Updated:2 Deleted:2?",
			"ns/a Replaced:5",
		}},
		// b is known to the cache only: deleted with the cache's state.
		{op: "pop", want: []string{"ns/b Deleted:1?"}},
		{op: "empty"},
	})
}

func TestDeltaFIFOReplaceKnownUnordered(t *testing.T) {
	ix := newCMIndexer()
	for i := range 5 {
		mustAdd(t, ix, newCM("ns", fmt.Sprint("k", i), "1"))
	}
	f := newFIFO(ix)
	runFIFOSteps(t, f, []fifoStep{
		{op: "replace", list: []*cm{newCM("ns", "k2", "2")}},
		{op: "pop", want: []string{"ns/k2 Replaced:2"}},
		{op: "pop", unordered: true, want: []string{"ns/k0 Deleted:1?", "ns/k1 Deleted:1?", "ns/k3 Deleted:1?", "ns/k4 Deleted:1?"}},
		{op: "empty"},
	})
}

func TestDeltaFIFOStreamingReplace(t *testing.T) {
	newState := func() (*informer.Indexer[*cm], *informer.DeltaFIFO[*cm]) {
		ix := newCMIndexer()
		for _, n := range []string{"a", "b", "c", "d"} {
			mustAdd(t, ix, newCM("ns", n, "1"))
		}
		return ix, newFIFO(ix)
	}
	pages := [][]*cm{{newCM("ns", "a", "2"), newCM("ns", "x", "1")}, {}, {newCM("ns", "c", "2")}}

	_, whole := newState()
	if err := whole.Replace(slices.Concat(pages...)); err != nil {
		t.Fatal(err)
	}
	_, paged := newState()
	paged.BeginReplace()
	for _, p := range pages {
		if err := paged.ReplaceItems(p); err != nil {
			t.Fatal(err)
		}
		if paged.HasSynced() {
			t.Fatal("HasSynced before EndReplace")
		}
	}
	if err := paged.EndReplace(); err != nil {
		t.Fatal(err)
	}
	w, p := drain(t, whole), drain(t, paged)
	if !slices.Equal(w[:3], p[:3]) {
		t.Fatalf("paged replace queued %q, whole replace %q", p, w)
	}
	slices.Sort(w)
	slices.Sort(p)
	want := []string{"ns/a Replaced:2", "ns/b Deleted:1?", "ns/c Replaced:2", "ns/d Deleted:1?", "ns/x Replaced:1"}
	if !slices.Equal(w, want) || !slices.Equal(p, want) {
		t.Fatalf("replace queued %q (paged %q), want %q", w, p, want)
	}

	t.Run("a new BeginReplace abandons the one in progress", func(t *testing.T) {
		_, f := newState()
		f.BeginReplace()
		if err := f.ReplaceItems([]*cm{newCM("ns", "a", "2"), newCM("ns", "b", "2")}); err != nil {
			t.Fatal(err)
		}
		f.BeginReplace()
		if err := f.ReplaceItems([]*cm{newCM("ns", "b", "3"), newCM("ns", "c", "3"), newCM("ns", "d", "3")}); err != nil {
			t.Fatal(err)
		}
		if err := f.EndReplace(); err != nil {
			t.Fatal(err)
		}
		// Only the second list counts: a is not in it.
		got := drain(t, f)
		want := []string{"ns/a Replaced:2 Deleted:2?", "ns/b Replaced:2 Replaced:3", "ns/c Replaced:3", "ns/d Replaced:3"}
		if !slices.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

func TestDeltaFIFOResync(t *testing.T) {
	ix := newCMIndexer()
	for _, o := range []*cm{newCM("ns", "a", "1"), newCM("ns", "b", "1"), newCM("ns", "c", "1")} {
		mustAdd(t, ix, o)
	}
	f := newFIFO(ix)
	runFIFOSteps(t, f, []fifoStep{
		{op: "update", obj: newCM("ns", "a", "2")},
		{op: "delete", obj: newCM("ns", "c", "1")},
		{op: "resync"},
		{op: "pop", want: []string{"ns/a Updated:2", "ns/c Deleted:1", "ns/b Sync:1"}},
		{op: "empty"},
		{op: "resync"},
		{op: "pop", unordered: true, want: []string{"ns/a Sync:1", "ns/b Sync:1", "ns/c Sync:1"}},
		{op: "resync"}, {op: "resync"}, // nothing pending: no duplicate syncs
		{op: "pop", unordered: true, want: []string{"ns/a Sync:1", "ns/b Sync:1", "ns/c Sync:1"}},
		{op: "empty"},
	})
}

func TestDeltaFIFOBadInput(t *testing.T) {
	f := newFIFO(nil)
	for name, fn := range map[string]func(*cm) error{"Add": f.Add, "Update": f.Update, "Delete": f.Delete} {
		if err := fn(nil); !errors.Is(err, informer.ErrNilObject) {
			t.Errorf("%s(nil) error = %v, want ErrNilObject", name, err)
		}
		if err := fn(newCM("ns", "", "1")); !errors.Is(err, informer.ErrEmptyName) {
			t.Errorf("%s(no name) error = %v, want ErrEmptyName", name, err)
		}
	}
	if f.Len() != 0 {
		t.Fatalf("Len() = %d after rejected adds", f.Len())
	}

	t.Run("duplicate keys in Replace", func(t *testing.T) {
		f := newFIFO(nil)
		err := f.Replace([]*cm{newCM("ns", "a", "1"), newCM("ns", "b", "1"), newCM("ns", "a", "2")})
		if !errors.Is(err, informer.ErrDuplicateKey) {
			t.Fatalf("Replace error = %v, want ErrDuplicateKey", err)
		}
		if !strings.Contains(err.Error(), "ns/a") {
			t.Errorf("error %q does not name the key", err)
		}
		var oe *informer.ObjectError
		if !errors.As(err, &oe) {
			t.Errorf("error %v is not an *ObjectError", err)
		}
		if got, want := drain(t, f), []string{"ns/a Replaced:1 Replaced:2", "ns/b Replaced:1"}; !slices.Equal(got, want) {
			t.Fatalf("queued %q, want %q", got, want)
		}
		if !f.HasSynced() {
			t.Fatal("HasSynced false after draining a Replace that had a duplicate")
		}
	})

	t.Run("invalid objects in ReplaceItems", func(t *testing.T) {
		ix := newCMIndexer()
		mustAdd(t, ix, newCM("ns", "gone", "1"))
		f := newFIFO(ix)
		f.BeginReplace()
		err := f.ReplaceItems([]*cm{nil, newCM("ns", "a", "1"), newCM("ns", "", "1"), newCM("ns", "b", "1")})
		for _, want := range []error{informer.ErrNilObject, informer.ErrEmptyName} {
			if !errors.Is(err, want) {
				t.Errorf("ReplaceItems error %v does not report %v", err, want)
			}
		}
		var oe *informer.ObjectError
		if !errors.As(err, &oe) || oe.Op != "replace" {
			t.Errorf("ReplaceItems error %v: want *ObjectError{Op: replace}", err)
		}
		if err := f.EndReplace(); err != nil {
			t.Fatal(err)
		}
		if got, want := drain(t, f), []string{"ns/a Replaced:1", "ns/b Replaced:1", "ns/gone Deleted:1?"}; !slices.Equal(got, want) {
			t.Fatalf("queued %q, want %q", got, want)
		}
	})

	t.Run("custom key func", func(t *testing.T) {
		errKey := errors.New("bad key")
		f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[*cm]{KeyFunc: func(o *cm) (string, error) {
			if o.Name == "bad" {
				return "", errKey
			}
			return "custom:" + o.Name, nil
		}})
		var ke *informer.KeyError
		if err := f.Add(newCM("ns", "bad", "1")); !errors.As(err, &ke) || !errors.Is(err, errKey) {
			t.Fatalf("Add error = %v, want *KeyError wrapping errKey", err)
		}
		if err := f.Add(newCM("ns", "x", "1")); err != nil {
			t.Fatal(err)
		}
		if got := popOne(t, f); got != "custom:x Added:1" {
			t.Fatalf("popped %q", got)
		}
	})
}

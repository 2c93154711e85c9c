package memory_test

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

func TestWrites(t *testing.T) {
	type step struct {
		op      string // create, update, upsert, delete
		key     string
		wantErr error
	}
	tests := []struct {
		name      string
		steps     []step
		wantKeys  []string
		wantRV    string
		wantTypes []informer.EventType
	}{
		{
			name:      "create",
			steps:     []step{{"create", "ns/a", nil}, {"create", "b", nil}},
			wantKeys:  []string{"b", "ns/a"},
			wantRV:    "2",
			wantTypes: []informer.EventType{informer.EventAdded, informer.EventAdded},
		},
		{
			name:      "create twice",
			steps:     []step{{"create", "ns/a", nil}, {"create", "ns/a", memory.ErrAlreadyExists}},
			wantKeys:  []string{"ns/a"},
			wantRV:    "1",
			wantTypes: []informer.EventType{informer.EventAdded},
		},
		{
			name:      "update",
			steps:     []step{{"create", "ns/a", nil}, {"update", "ns/a", nil}},
			wantKeys:  []string{"ns/a"},
			wantRV:    "2",
			wantTypes: []informer.EventType{informer.EventAdded, informer.EventModified},
		},
		{
			name:     "update missing",
			steps:    []step{{"update", "ns/a", memory.ErrNotFound}},
			wantKeys: []string{},
			wantRV:   "0",
		},
		{
			name:      "upsert",
			steps:     []step{{"upsert", "ns/a", nil}, {"upsert", "ns/a", nil}},
			wantKeys:  []string{"ns/a"},
			wantRV:    "2",
			wantTypes: []informer.EventType{informer.EventAdded, informer.EventModified},
		},
		{
			name:      "delete",
			steps:     []step{{"create", "ns/a", nil}, {"create", "ns/b", nil}, {"delete", "ns/a", nil}},
			wantKeys:  []string{"ns/b"},
			wantRV:    "3",
			wantTypes: []informer.EventType{informer.EventAdded, informer.EventAdded, informer.EventDeleted},
		},
		{
			name:     "delete missing",
			steps:    []step{{"delete", "ns/a", memory.ErrNotFound}},
			wantKeys: []string{},
			wantRV:   "0",
		},
		{
			name:      "recreate after delete",
			steps:     []step{{"create", "a", nil}, {"delete", "a", nil}, {"create", "a", nil}},
			wantKeys:  []string{"a"},
			wantRV:    "3",
			wantTypes: []informer.EventType{informer.EventAdded, informer.EventDeleted, informer.EventAdded},
		},
		{
			name:     "nil object",
			steps:    []step{{"create", "", informer.ErrNilObject}},
			wantKeys: []string{},
			wantRV:   "0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memory.New[*obj](memory.Options{})
			w := watch(t, src, informer.WatchOptions{})
			for _, st := range tt.steps {
				o := newObj(st.key)
				if st.key == "" {
					o = nil
				}
				var err error
				switch st.op {
				case "create":
					err = src.Create(o)
				case "update":
					err = src.Update(o)
				case "upsert":
					err = src.Upsert(o)
				case "delete":
					err = src.Delete(st.key)
				}
				if !errors.Is(err, st.wantErr) {
					t.Fatalf("%s %q: err = %v, want %v", st.op, st.key, err, st.wantErr)
				}
				if err == nil && st.op != "delete" && o.ResourceVersion != src.ResourceVersion() {
					t.Errorf("%s %q: object resourceVersion %q, source at %q", st.op, st.key, o.ResourceVersion, src.ResourceVersion())
				}
			}
			if got := keys(src.Items()); !slices.Equal(got, tt.wantKeys) {
				t.Errorf("Items = %q, want %q", got, tt.wantKeys)
			}
			if src.Len() != len(tt.wantKeys) {
				t.Errorf("Len = %d, want %d", src.Len(), len(tt.wantKeys))
			}
			if got := src.ResourceVersion(); got != tt.wantRV {
				t.Errorf("ResourceVersion = %q, want %q", got, tt.wantRV)
			}
			for i, want := range tt.wantTypes {
				ev, err := w.Next()
				if err != nil {
					t.Fatal(err)
				}
				if ev.Type != want || ev.ResourceVersion != strconv.Itoa(i+1) {
					t.Errorf("event %d = %s, want %v at %d", i, describe(ev), want, i+1)
				}
			}
		})
	}
}

func TestGet(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	a := newObj("ns/a", "v1")
	must(t, src.Create(a))
	got, ok := src.Get("ns/a")
	if !ok || got != a {
		t.Fatalf("Get = %v, %v; want the created object", got, ok)
	}
	if _, ok := src.Get("ns/b"); ok {
		t.Fatal("Get of a missing key found something")
	}
	must(t, src.Delete("ns/a"))
	if _, ok := src.Get("ns/a"); ok {
		t.Fatal("Get after Delete found something")
	}
}

func TestStartResourceVersion(t *testing.T) {
	src := memory.New[*obj](memory.Options{StartResourceVersion: 100})
	if got := src.ResourceVersion(); got != "100" {
		t.Fatalf("ResourceVersion = %q, want 100", got)
	}
	o := newObj("a")
	must(t, src.Create(o))
	if o.ResourceVersion != "101" {
		t.Fatalf("first write at %q, want 101", o.ResourceVersion)
	}
	// Versions up to the start are already compacted.
	if _, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "99"}); !errors.Is(err, informer.ErrExpired) {
		t.Fatalf("Watch from before the start: %v, want ErrExpired", err)
	}
	w := watch(t, src, informer.WatchOptions{ResourceVersion: "100"})
	if got := next(t, w, 1); got[0] != "ADDED a@101 rv=101" {
		t.Fatalf("got %q", got)
	}
}

// Stored objects never change: a write sets the resourceVersion of the new
// object only, and the deleted event carries the last state untouched.
func TestOwnership(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	v1 := newObj("a", "v1")
	must(t, src.Create(v1))
	w := watch(t, src, informer.WatchOptions{ResourceVersion: "0"})
	v2 := newObj("a", "v2")
	must(t, src.Update(v2))
	must(t, src.Delete("a"))
	if v1.ResourceVersion != "1" || v2.ResourceVersion != "2" {
		t.Fatalf("versions changed: v1 at %q, v2 at %q", v1.ResourceVersion, v2.ResourceVersion)
	}
	want := []string{"MODIFIED a@2 rv=2 v2", "DELETED a@2 rv=3 v2"}
	if got := next(t, w, 2); !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

func TestObjectReused(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	a := newObj("a")
	must(t, src.Create(a))
	if err := src.Update(a); !errors.Is(err, memory.ErrObjectReused) {
		t.Fatalf("Update with the stored object: %v, want ErrObjectReused", err)
	}
	if err := src.Upsert(a); !errors.Is(err, memory.ErrObjectReused) {
		t.Fatalf("Upsert with the stored object: %v, want ErrObjectReused", err)
	}
	if got := src.ResourceVersion(); got != "1" {
		t.Fatalf("refused writes moved the version to %s", got)
	}
}

func TestEmptyName(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	if err := src.Create(newObj("ns/")); !errors.Is(err, informer.ErrEmptyName) {
		t.Fatalf("Create without a name: %v, want ErrEmptyName", err)
	}
}

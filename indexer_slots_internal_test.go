package informer

import (
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIndexerCompactRenumbers deletes most of a large Indexer, which
// squeezes the holes out of its slots and renumbers the positions in the
// map and in every index, then checks every read against a model, and that
// later writes still land in the right buckets.
func TestIndexerCompactRenumbers(t *testing.T) {
	byParity := func(o *bobj, dst []string) ([]string, error) {
		n, _ := strconv.Atoi(o.Name[1:])
		return append(dst, strconv.Itoa(n%2)), nil
	}
	for _, tc := range []struct {
		name string
		opts IndexerOptions[*bobj]
	}{
		{"from keys", IndexerOptions[*bobj]{NamespaceIndex: true}},
		{"user funcs", IndexerOptions[*bobj]{NamespaceIndex: true, Indexers: map[string]IndexFunc[*bobj]{"parity": byParity}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := NewIndexer(tc.opts)
			obj := func(i int, rv string) *bobj {
				return &bobj{metav1.ObjectMeta{Namespace: "ns" + strconv.Itoa(i%3), Name: "o" + strconv.Itoa(i), ResourceVersion: rv}}
			}
			model := map[string]*bobj{}
			for i := range 400 {
				o := obj(i, "1")
				if err := ix.Add(o); err != nil {
					t.Fatal(err)
				}
				model[o.Namespace+"/"+o.Name] = o
			}
			before := len(ix.slots.s)
			for i := range 400 {
				if i%10 == 0 {
					continue
				}
				o := obj(i, "1")
				if err := ix.Delete(o); err != nil {
					t.Fatal(err)
				}
				delete(model, o.Namespace+"/"+o.Name)
			}
			if len(ix.slots.s) >= before/2 {
				t.Fatalf("slots not compacted: %d positions for %d objects", len(ix.slots.s), ix.Len())
			}
			for i := 0; i < 400; i += 20 { // updates and new keys after the compact
				o := obj(i, "2")
				if err := ix.Update(o); err != nil {
					t.Fatal(err)
				}
				model[o.Namespace+"/"+o.Name] = o
				n := obj(1000+i, "1")
				if err := ix.Add(n); err != nil {
					t.Fatal(err)
				}
				model[n.Namespace+"/"+n.Name] = n
			}
			checkIndexerModel(t, ix, model)
		})
	}
}

// checkIndexerModel checks every read of ix against model.
func checkIndexerModel(t *testing.T, ix *Indexer[*bobj], model map[string]*bobj) {
	t.Helper()
	if ix.Len() != len(model) {
		t.Fatalf("Len = %d, want %d", ix.Len(), len(model))
	}
	for k, o := range model {
		if got, ok := ix.Get(k); !ok || got != o {
			t.Fatalf("Get(%q) = %v, %v", k, got, ok)
		}
	}
	n := 0
	for k, o := range ix.All() {
		if model[k] != o {
			t.Fatalf("All yields %q with another object", k)
		}
		n++
	}
	if n != len(model) {
		t.Fatalf("All yields %d, want %d", n, len(model))
	}
	s := ix.set.Load()
	for i, name := range s.names {
		want := map[string][]string{}
		for k, o := range model {
			var vals indexValues
			if err := computeValue(&vals, s, i, k, o); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals.of(0) {
				want[v] = append(want[v], k)
			}
		}
		vals, _ := ix.IndexValues(name)
		if len(vals) != len(want) {
			t.Fatalf("index %q has values %v, want %d", name, vals, len(want))
		}
		for v, keys := range want {
			got, err := ix.IndexKeys(name, v)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			slices.Sort(keys)
			if !slices.Equal(got, keys) {
				t.Fatalf("IndexKeys(%q, %q) = %v, want %v", name, v, got, keys)
			}
			objs, _ := ix.ByIndex(name, v)
			for _, o := range objs {
				if model[o.Namespace+"/"+o.Name] != o {
					t.Fatalf("ByIndex(%q, %q) holds a stale object", name, v)
				}
			}
		}
	}
}

// TestIndexByNamespaceFromKeys: an IndexByNamespace index is kept from the
// keys, as IndexerOptions.NamespaceIndex is, when the key is MetaKey, and
// called as a function otherwise.
func TestIndexByNamespaceFromKeys(t *testing.T) {
	other := func(o *bobj, dst []string) ([]string, error) { return append(dst, o.Namespace), nil }
	for _, tc := range []struct {
		name    string
		opts    IndexerOptions[*bobj]
		fromKey bool
	}{
		{"option", IndexerOptions[*bobj]{NamespaceIndex: true}, true},
		{"IndexByNamespace", IndexerOptions[*bobj]{Indexers: map[string]IndexFunc[*bobj]{NamespaceIndex: IndexByNamespace[*bobj]()}}, true},
		{"another name", IndexerOptions[*bobj]{Indexers: map[string]IndexFunc[*bobj]{"ns": IndexByNamespace[*bobj]()}}, true},
		{"a lookalike", IndexerOptions[*bobj]{Indexers: map[string]IndexFunc[*bobj]{NamespaceIndex: other}}, false},
		{"custom key", IndexerOptions[*bobj]{KeyFunc: func(o *bobj) (string, error) { return o.Name, nil }, NamespaceIndex: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := NewIndexer(tc.opts)
			s := ix.set.Load()
			if len(s.fromKey) != 1 || s.fromKey[0] != tc.fromKey {
				t.Fatalf("fromKey = %v, want [%v]", s.fromKey, tc.fromKey)
			}
			if err := ix.Add(bo("a", "1")); err != nil {
				t.Fatal(err)
			}
			got, err := ix.ByIndex(s.names[0], "ns")
			if err != nil || len(got) != 1 {
				t.Fatalf("ByIndex = %v, %v", got, err)
			}
		})
	}
	ix := NewIndexer(IndexerOptions[*bobj]{})
	if err := ix.AddIndex("byns", IndexByNamespace[*bobj]()); err != nil {
		t.Fatal(err)
	}
	if s := ix.set.Load(); !s.fromKey[0] {
		t.Fatal("AddIndex(IndexByNamespace) is not kept from keys")
	}
}

// TestUpsertIndexesForAnIndexBeingFilled: while AddIndex fills a new index
// (in the set, not ready yet), it skips the entries written since its
// snapshot, so a writer must add an entry it updates to that index itself,
// even though the entry's values did not change. Here AddIndex's first and
// last steps are taken by hand around an update.
func TestUpsertIndexesForAnIndexBeingFilled(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{})
	if err := ix.Add(bo("a", "1")); err != nil {
		t.Fatal(err)
	}
	ix.mu.Lock()
	ix.set.Store(ix.set.Load().with(NamespaceIndex, IndexByNamespace[*bobj](), true, &ix.iters))
	ix.mu.Unlock()
	if err := ix.Update(bo("a", "2")); err != nil {
		t.Fatal(err)
	}
	ix.mu.Lock()
	ix.set.Store(ix.set.Load().withReady(0, true))
	ix.mu.Unlock()
	got, err := ix.ByIndex(NamespaceIndex, "ns")
	if err != nil || len(got) != 1 || got[0].ResourceVersion != "2" {
		t.Fatalf("ByIndex(namespace, ns) = %v, %v; want a at resourceVersion 2", got, err)
	}
}

// The Indexer's map by key remembers where a key it did not find goes
// (posOfLocked) for the insert that follows; a removal in between (which
// shifts slots back), or an insert of another key, must make the insert
// probe again. Random keys in a
// small, full table, so that removals often shift the slot remembered;
// after every insert each stored key is found.
func TestIndexerMissThenRemove(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{})
	stored := []string{}
	next := 0
	s := ix.set.Load()
	for step := range 20000 {
		ix.mu.Lock()
		key := "ns/k" + strconv.Itoa(next)
		next++
		if _, ok := ix.posOfLocked(key, 0); ok {
			t.Fatalf("step %d: %s found before it was stored", step, key)
		}
		if len(stored) > 8 {
			i := step % len(stored)
			pos, ok := ix.posOf(stored[i])
			if !ok {
				t.Fatalf("step %d: %s not found", step, stored[i])
			}
			ix.deleteLocked(s, stored[i], pos)
			stored = slices.Delete(stored, i, i+1)
		}
		if step%3 == 0 {
			// The key looked up is not the one stored (a deletion of a
			// key never stored, then another key added).
			key = "ns/k" + strconv.Itoa(next)
			next++
		}
		ix.seq++
		ix.insertLocked(key, bo(key[3:], "1"))
		stored = append(stored, key)
		for _, k := range stored {
			if pos, ok := ix.posOf(k); !ok || ix.slots.s[pos].key != k {
				t.Fatalf("step %d: %s lost (found %v at %d)", step, k, ok, pos)
			}
		}
		ix.mu.Unlock()
	}
}

// An Indexer whose keys were mostly deleted gives its map by key back as
// it compacts its slots, as it gives the slots back: the map is rebuilt
// to fit the keys left, which are all found at their positions.
func TestIndexerKeyTableShrinks(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	const n, kept = 4096, 100
	for i := range n {
		if _, _, err := ix.Upsert(bo("k"+strconv.Itoa(i), "1")); err != nil {
			t.Fatal(err)
		}
	}
	peak := len(ix.items.slots)
	for i := kept; i < n; i++ {
		ix.DeleteKey("ns/k" + strconv.Itoa(i))
	}
	if got := len(ix.items.slots); got > peak/8 {
		t.Fatalf("after deleting %d of %d keys: %d slots kept (%d at the peak) for %d keys", n-kept, n, got, peak, ix.Len())
	}
	for i := range kept {
		key := "ns/k" + strconv.Itoa(i)
		pos, ok := ix.posOf(key)
		if !ok || ix.slots.s[pos].key != key {
			t.Fatalf("%s lost (found %v at %d)", key, ok, pos)
		}
	}
	if _, _, err := ix.Upsert(bo("k"+strconv.Itoa(n), "2")); err != nil || ix.Len() != kept+1 {
		t.Fatalf("an add after the deletions: %v, %d stored", err, ix.Len())
	}
}

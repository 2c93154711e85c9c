package informer_test

import (
	"iter"
	"maps"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/informer-go/informer"
)

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

// TestIndexerIterateWhileMostAreDeleted deletes most objects from inside an
// iteration (enough that the Indexer would like to reclaim their room) and
// checks that objects never deleted are each yielded once, and that the
// Indexer is sound after the iteration ends and more deletes follow.
func TestIndexerIterateWhileMostAreDeleted(t *testing.T) {
	for _, name := range []string{"All", "Values"} {
		t.Run(name, func(t *testing.T) {
			ix := newCMIndexer()
			objs := fillIndexer(t, ix, 2000, 3)
			keep := map[string]bool{}
			for i, o := range objs {
				if i%10 == 0 {
					keep[keyOf(t, o)] = true
				}
			}
			seen := map[string]int{}
			visit := func(o *cm) {
				if seen[keyOf(t, o)]++; len(seen) == 1 {
					for _, d := range objs {
						if !keep[keyOf(t, d)] {
							if err := ix.Delete(d); err != nil {
								t.Fatal(err)
							}
						}
					}
					// New objects land in the holes or at the end.
					for i := range 300 {
						mustAdd(t, ix, newCM("fresh", "f"+strconv.Itoa(i), "1"))
					}
				}
			}
			if name == "All" {
				for k, o := range ix.All() {
					if k != keyOf(t, o) {
						t.Fatalf("All yielded key %q with object %q", k, keyOf(t, o))
					}
					visit(o)
				}
			} else {
				for o := range ix.Values() {
					visit(o)
				}
			}
			for k := range keep {
				if seen[k] != 1 {
					t.Errorf("%s present throughout, yielded %d times", k, seen[k])
				}
			}
			for k, n := range seen {
				if n != 1 {
					t.Errorf("%s yielded %d times", k, n)
				}
			}
			checkIndexes(t, ix, nil, cmIndexers())
			// With no iterator running, deletes may now compact; the
			// Indexer stays sound and iteration sees exactly what is stored.
			for i := range 250 {
				if err := ix.Delete(newCM("fresh", "f"+strconv.Itoa(i), "")); err != nil {
					t.Fatal(err)
				}
			}
			mustAdd(t, ix, newCM("fresh", "after", "1"))
			checkIndexes(t, ix, nil, cmIndexers())
			if n := ix.Len(); n != len(keep)+51 {
				t.Fatalf("Len() = %d, want %d", n, len(keep)+51)
			}
		})
	}
}

// TestIndexerIterateAcrossReplace: an iteration that a Replace interrupts
// yields no key twice and finishes; afterwards the Indexer holds exactly the
// replacement.
func TestIndexerIterateAcrossReplace(t *testing.T) {
	ix := newCMIndexer()
	objs := fillIndexer(t, ix, 500, 2)
	seen := map[string]int{}
	replaced := false
	for k := range ix.All() {
		seen[k]++
		if !replaced {
			replaced = true
			// Half the old keys, in new versions, and some new ones.
			var list []*cm
			for i, o := range objs {
				if i%2 == 0 {
					list = append(list, newCM(o.Namespace, o.Name, "2"))
				}
			}
			for i := range 100 {
				list = append(list, newCM("new", "n"+strconv.Itoa(i), "1"))
			}
			if err := ix.Replace(list); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s yielded %d times", k, n)
		}
	}
	if ix.Len() != 350 {
		t.Fatalf("Len() = %d after Replace, want 350", ix.Len())
	}
	checkIndexes(t, ix, nil, cmIndexers())
	n := 0
	for o := range ix.Values() {
		n++
		if o.Namespace != "new" && o.ResourceVersion != "2" {
			t.Fatalf("Values yielded a replaced object %s@%s", keyOf(t, o), o.ResourceVersion)
		}
	}
	if n != 350 {
		t.Fatalf("Values yielded %d, want 350", n)
	}
}

// TestIndexerChurn adds and deletes in waves, so that positions are reused
// and reclaimed many times, with an unfinished pulled iterator in one wave.
func TestIndexerChurn(t *testing.T) {
	ix := newCMIndexer()
	live := map[string]bool{}
	for wave := range 6 {
		var stop func()
		if wave == 2 {
			// A pulled iterator left open keeps positions from moving.
			next, s := iterPull(ix)
			stop = s
			next()
		}
		for i := range 1500 {
			o := newCM("ns"+strconv.Itoa(i%4), "o"+strconv.Itoa((i*7+wave*311)%2000), strconv.Itoa(wave))
			mustAdd(t, ix, o)
			live[keyOf(t, o)] = true
		}
		n := 0
		for k := range live {
			if n++; n%4 != 0 {
				ns, name, _ := informer.SplitKey(k)
				if err := ix.Delete(newCM(ns, name, "")); err != nil {
					t.Fatal(err)
				}
				delete(live, k)
			}
		}
		if stop != nil {
			stop()
		}
		if ix.Len() != len(live) {
			t.Fatalf("wave %d: Len() = %d, want %d", wave, ix.Len(), len(live))
		}
		checkIndexes(t, ix, nil, cmIndexers())
	}
}

func iterPull(ix *informer.Indexer[*cm]) (next func() (*cm, bool), stop func()) {
	return iter.Pull(ix.Values())
}

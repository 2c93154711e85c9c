package informer_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/informer-go/informer"
)

// FuzzDeltaFIFO runs a sequence of queue operations, read from the fuzz
// input, against a DeltaFIFO feeding an Indexer and against a simple model
// of both. Each pop is applied to the Indexer (the cache, which is also the
// queue's KnownObjects) and to the model, and the two must agree:
//
//   - per key, deltas come out exactly as the model queued them: in order,
//     consecutive deletions compressed, inferred deletions where a relist
//     did not see a known or queued key;
//   - keys come out in the order they were first queued (keys queued by
//     one relist or resync from the cache, in any order among themselves);
//   - one pop never holds two consecutive deletions;
//   - after each pop the cache equals the model's cache, and HasSynced the
//     model's view of it; after draining, the cache equals the model's state.
func FuzzDeltaFIFO(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 0, 5, 0, 5, 0})
	f.Add([]byte{0, 0, 0, 1, 3, 0b0001, 5, 0, 5, 0, 5, 0})
	f.Add([]byte{3, 0b0011, 5, 0, 2, 0, 2, 0, 3, 0, 5, 0, 5, 0})
	f.Add([]byte{0, 2, 5, 0, 4, 0, 1, 2, 4, 0, 6, 0, 6, 0})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 0, 3, 3, 0b10101, 2, 1, 3, 0b1000, 4, 0, 5, 1, 5, 1, 5, 1, 5, 1})
	f.Add([]byte{3, 0xff, 6, 3, 3, 0, 2, 1, 3, 0x80, 6, 8})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const keySpace = 5
		ix := newCMIndexer()
		fifo := newFIFO(ix)
		m := newFIFOModel()
		version := 0
		obj := func(k int) *cm {
			version++
			return newCM("ns", "k"+strconv.Itoa(k), strconv.Itoa(version), "app", "a"+strconv.Itoa(version%3))
		}
		pop := func(max int) {
			if fifo.Len() == 0 {
				return
			}
			err := fifo.PopBatch(context.Background(), max, func(batch []informer.KeyDeltas[*cm]) error {
				if max == 1 && len(batch) != 1 {
					t.Fatalf("Pop handed %d keys", len(batch))
				}
				for _, kd := range batch {
					m.pop(t, kd.Key, kd.Deltas)
					if err := applyDeltas(ix, kd.Deltas); err != nil {
						t.Fatalf("applying %s: %v", kd.Key, err)
					}
				}
				m.checkCache(t, ix)
				return nil
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			m.donePop()
		}
		for i := 0; i < len(ops); i += 2 {
			op, arg := ops[i], byte(0)
			if i+1 < len(ops) {
				arg = ops[i+1]
			}
			k := int(arg) % keySpace
			switch op % 7 {
			case 0:
				o := obj(k)
				if err := fifo.Add(o); err != nil {
					t.Fatal(err)
				}
				m.push(m.key(o), informer.Delta[*cm]{Type: informer.DeltaAdded, Object: o}, nil)
			case 1:
				o := obj(k)
				if err := fifo.Update(o); err != nil {
					t.Fatal(err)
				}
				m.push(m.key(o), informer.Delta[*cm]{Type: informer.DeltaUpdated, Object: o}, nil)
			case 2:
				o := obj(k)
				if err := fifo.Delete(o); err != nil {
					t.Fatal(err)
				}
				m.push(m.key(o), informer.Delta[*cm]{Type: informer.DeltaDeleted, Object: o}, nil)
			case 3:
				// The low bits pick the keys listed; bit 7 lists the first
				// of them twice.
				var list []*cm
				first := -1
				for j := range keySpace {
					if arg&(1<<j) != 0 {
						list = append(list, obj(j))
						if first < 0 {
							first = j
						}
					}
				}
				if arg&0x80 != 0 && first >= 0 {
					list = append(list, obj(first))
				}
				err := fifo.Replace(list)
				if dup := arg&0x80 != 0 && len(list) > 0; dup != errors.Is(err, informer.ErrDuplicateKey) || (!dup && err != nil) {
					t.Fatalf("Replace(%d items, duplicate %v) error = %v", len(list), dup, err)
				}
				m.replace(list)
			case 4:
				if err := fifo.Resync(); err != nil {
					t.Fatal(err)
				}
				m.resync()
			case 5:
				pop(1)
			case 6:
				pop(int(arg%4) + 1)
			}
			if fifo.Len() != len(m.pending) {
				t.Fatalf("op %d: Len() = %d, model has %d keys queued", i/2, fifo.Len(), len(m.pending))
			}
			if fifo.HasSynced() != m.synced {
				t.Fatalf("op %d: HasSynced() = %v, model %v", i/2, fifo.HasSynced(), m.synced)
			}
		}
		for fifo.Len() > 0 {
			pop(3)
		}
		m.checkCache(t, ix)
		checkIndexes(t, ix, nil, cmIndexers())
	})
}

// fifoModel is the reference for FuzzDeltaFIFO: a DeltaFIFO written the
// simplest way, with the cache it feeds.
type fifoModel struct {
	pending map[string][]informer.Delta[*cm]
	// groups are the queued keys in queue order; the keys of one group may
	// come out in any order.
	groups       [][]string
	cache        map[string]*cm
	populated    bool
	initial      map[string]bool // queued before the first relist ended
	initialPopN  int             // initial keys in the pop in progress
	initialCount int
	synced       bool
}

func newFIFOModel() *fifoModel {
	return &fifoModel{pending: map[string][]informer.Delta[*cm]{}, cache: map[string]*cm{}, initial: map[string]bool{}}
}

func (m *fifoModel) key(o *cm) string { return o.Namespace + "/" + o.Name }

// push queues d for key. A key that is new to the queue joins group, or a
// group of its own if group is nil.
func (m *fifoModel) push(key string, d informer.Delta[*cm], group *[]string) {
	ds, queued := m.pending[key]
	if !queued {
		if group != nil {
			*group = append(*group, key)
		} else {
			m.groups = append(m.groups, []string{key})
		}
		if !m.populated {
			m.initial[key] = true
			m.initialCount++
		}
	}
	if n := len(ds); n > 0 && d.Type == informer.DeltaDeleted && ds[n-1].Type == informer.DeltaDeleted {
		if !d.FinalStateUnknown || ds[n-1].FinalStateUnknown {
			ds[n-1] = d
		}
	} else {
		ds = append(ds, d)
	}
	m.pending[key] = ds
}

func (m *fifoModel) replace(list []*cm) {
	seen := map[string]bool{}
	for _, o := range list {
		seen[m.key(o)] = true
		m.push(m.key(o), informer.Delta[*cm]{Type: informer.DeltaReplaced, Object: o}, nil)
	}
	for key, ds := range m.pending {
		if last := ds[len(ds)-1]; !seen[key] && last.Type != informer.DeltaDeleted {
			m.push(key, informer.Delta[*cm]{Type: informer.DeltaDeleted, Object: last.Object, FinalStateUnknown: true}, nil)
		}
	}
	var group []string
	for key, o := range m.cache {
		if _, queued := m.pending[key]; !seen[key] && !queued {
			m.push(key, informer.Delta[*cm]{Type: informer.DeltaDeleted, Object: o, FinalStateUnknown: true}, &group)
		}
	}
	if len(group) > 0 {
		m.groups = append(m.groups, group)
	}
	m.populated = true
	m.checkSynced()
}

func (m *fifoModel) resync() {
	var group []string
	for key, o := range m.cache {
		if _, queued := m.pending[key]; !queued {
			m.push(key, informer.Delta[*cm]{Type: informer.DeltaSync, Object: o}, &group)
		}
	}
	if len(group) > 0 {
		m.groups = append(m.groups, group)
	}
}

// pop checks one popped key against the model and applies it to the
// model's cache.
func (m *fifoModel) pop(t *testing.T, key string, got []informer.Delta[*cm]) {
	t.Helper()
	if len(m.groups) == 0 {
		t.Fatalf("popped %s from a queue the model thinks is empty", key)
	}
	head := m.groups[0]
	i := slices.Index(head, key)
	if i < 0 {
		t.Fatalf("popped %s, model expects one of %q next", key, head)
	}
	if head = slices.Delete(head, i, i+1); len(head) == 0 {
		m.groups = m.groups[1:]
	} else {
		m.groups[0] = head
	}
	want := m.pending[key]
	delete(m.pending, key)
	if !slices.Equal(got, want) {
		t.Fatalf("popped %s with %s, model has %s", key, fmtKeyDeltas(key, got), fmtKeyDeltas(key, want))
	}
	for j := 1; j < len(got); j++ {
		if got[j].Type == informer.DeltaDeleted && got[j-1].Type == informer.DeltaDeleted {
			t.Fatalf("popped %s with two consecutive deletions", fmtKeyDeltas(key, got))
		}
	}
	for _, d := range got {
		if m.key(d.Object) != key {
			t.Fatalf("popped %s with an object of key %s", key, m.key(d.Object))
		}
		if d.Type == informer.DeltaDeleted {
			delete(m.cache, key)
		} else {
			m.cache[key] = d.Object
		}
	}
	if m.initial[key] {
		delete(m.initial, key)
		m.initialPopN++
	}
}

// donePop ends a pop: its callback has returned.
func (m *fifoModel) donePop() {
	m.initialCount -= m.initialPopN
	m.initialPopN = 0
	m.checkSynced()
}

func (m *fifoModel) checkSynced() {
	if m.populated && m.initialCount == 0 {
		m.synced = true
	}
}

func (m *fifoModel) checkCache(t *testing.T, ix *informer.Indexer[*cm]) {
	t.Helper()
	if ix.Len() != len(m.cache) {
		t.Fatalf("cache has %d objects, model %d", ix.Len(), len(m.cache))
	}
	for key, want := range m.cache {
		if got, ok := ix.Get(key); !ok || got != want {
			t.Fatalf("cache[%s] = %v, model %v", key, got, want)
		}
	}
}

// fuzzIndexFuncs are index functions of several shapes: no value, one
// value, many values, duplicate values, label-based, failing.
var fuzzIndexFuncs = []struct {
	name string
	fn   informer.IndexFunc[*cm]
}{
	{"none", func(_ *cm, dst []string) ([]string, error) { return dst, nil }},
	{informer.NamespaceIndex, informer.IndexByNamespace[*cm]()},
	{"app", informer.IndexByLabel[*cm]("app")},
	{"many", func(o *cm, dst []string) ([]string, error) {
		return append(dst, o.Name, o.Namespace, o.Namespace+"/"+o.Labels["app"]), nil
	}},
	{"dups", func(o *cm, dst []string) ([]string, error) {
		return append(dst, o.Labels["app"], "all", o.Labels["app"], "all"), nil
	}},
	{"values", indexByLabelValues},
	{"failing", indexFailing},
	{"rv-parity", func(o *cm, dst []string) ([]string, error) {
		n, _ := strconv.Atoi(o.ResourceVersion)
		if n%2 == 0 {
			return append(dst, "even"), nil
		}
		return dst, nil
	}},
}

// FuzzIndexer runs Add/Update/Delete/Replace/AddIndex sequences read from the
// fuzz input against an Indexer and a map, with index functions of several
// shapes. After every operation the Indexer holds what the map holds, and
// every index equals one recomputed from scratch.
func FuzzIndexer(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 3, 2, 0, 1, 1, 2})
	f.Add([]byte{3, 6, 0, 11, 0, 22, 3, 6, 2, 0x0f, 4, 1})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 3, 3, 3, 4, 4, 0, 4, 1, 1, 0, 2, 0xff})
	f.Add([]byte{3, 5, 0, 5, 0, 0x15, 4, 5, 2, 0x33, 3, 7, 1, 5})
	f.Add([]byte{2, 0x0f, 3, 0, 3, 1, 3, 2, 3, 3, 3, 4, 3, 5, 3, 6, 3, 7, 0, 0x20})
	f.Add([]byte{0, 1, 5, 0, 0, 2, 5, 7, 1, 1, 5, 2, 2, 0x3f, 5, 0})
	f.Add([]byte{0xc0, 1, 0, 2, 3, 2, 0, 1, 1, 2, 5, 0, 0, 3})
	f.Add([]byte{0x80, 3, 6, 0, 11, 0, 22, 3, 6, 2, 0x0f, 4, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const keySpace = 6
		initial := map[string]informer.IndexFunc[*cm]{}
		// The first byte picks the starting indexes: user index functions
		// or none, and the namespace index kept from keys or not.
		var mode byte
		if len(ops) > 0 {
			mode = ops[0]
		}
		if mode&0x40 == 0 {
			for _, x := range fuzzIndexFuncs[1:3] {
				initial[x.name] = x.fn
			}
		}
		withNS := mode&0x80 != 0
		ix := informer.NewIndexer(informer.IndexerOptions[*cm]{Indexers: maps.Clone(initial), NamespaceIndex: withNS})
		installed := initial
		if withNS {
			installed[informer.NamespaceIndex] = informer.IndexByNamespace[*cm]()
		}
		model := map[string]*cm{}
		version := 0
		obj := func(k int, v byte) *cm {
			version++
			var kv []string
			if v%4 != 0 {
				kv = append(kv, "app", "a"+strconv.Itoa(int(v%3)))
			}
			if v%5 == 0 {
				kv = append(kv, "x", "a"+strconv.Itoa(int(v%3))) // same value as app: a duplicate in "values"
			}
			if v%11 == 1 {
				kv = append(kv, "bad", "true")
			}
			return newCM("ns"+strconv.Itoa(k%3), "o"+strconv.Itoa(k), strconv.Itoa(version), kv...)
		}
		indexable := func(o *cm) bool {
			for _, fn := range installed {
				if _, err := fn(o, nil); err != nil {
					return false
				}
			}
			return true
		}
		if len(ops) > 128 {
			ops = ops[:128] // every op is checked in full: keep runs short
		}
		for i := 0; i < len(ops); i += 2 {
			op, arg := ops[i], byte(0)
			if i+1 < len(ops) {
				arg = ops[i+1]
			}
			k := int(arg) % keySpace
			switch op % 6 {
			case 0: // add or update with new labels
				o := obj(k, arg/keySpace)
				err := ix.Add(o)
				var ie *informer.IndexError
				if indexable(o) {
					if err != nil {
						t.Fatalf("Add: %v", err)
					}
					model[keyOf(t, o)] = o
				} else if !errors.As(err, &ie) {
					t.Fatalf("Add(unindexable) error = %v, want *IndexError", err)
				}
			case 1:
				if err := ix.Delete(obj(k, 0)); err != nil {
					t.Fatal(err)
				}
				delete(model, "ns"+strconv.Itoa(k%3)+"/o"+strconv.Itoa(k))
			case 2: // replace with the keys of the mask, maybe twice
				var list []*cm
				for j := range keySpace {
					if arg&(1<<j) != 0 {
						list = append(list, obj(j, byte(j)+arg))
					}
				}
				if arg&0x40 != 0 && len(list) > 0 {
					first, _ := strconv.Atoi(list[0].Name[1:])
					list = append(list, obj(first, arg))
				}
				want := map[string]*cm{}
				bad := false
				for _, o := range list {
					if indexable(o) {
						want[keyOf(t, o)] = o
					} else {
						bad = true
					}
				}
				if err := ix.Replace(list); (err != nil) != bad {
					t.Fatalf("Replace error = %v, want an error: %v", err, bad)
				}
				model = want
			case 3: // add an index
				x := fuzzIndexFuncs[int(arg)%len(fuzzIndexFuncs)]
				err := ix.AddIndex(x.name, x.fn)
				_, exists := installed[x.name]
				ok := true
				for _, o := range model {
					if _, ferr := x.fn(o, nil); ferr != nil {
						ok = false
					}
				}
				switch {
				case exists:
					if !errors.Is(err, informer.ErrIndexExists) {
						t.Fatalf("AddIndex(%s) again: %v", x.name, err)
					}
				case !ok:
					var ie *informer.IndexError
					if !errors.As(err, &ie) {
						t.Fatalf("AddIndex(%s) over an unindexable object: %v", x.name, err)
					}
				default:
					if err != nil {
						t.Fatalf("AddIndex(%s): %v", x.name, err)
					}
					installed = maps.Clone(installed)
					installed[x.name] = x.fn
				}
			case 4: // a new version with the same labels: index values unchanged
				key := "ns" + strconv.Itoa(k%3) + "/o" + strconv.Itoa(k)
				if old, ok := model[key]; ok {
					o := &cm{ObjectMeta: old.ObjectMeta}
					version++
					o.ResourceVersion = strconv.Itoa(version)
					if err := ix.Update(o); err != nil && indexable(o) {
						t.Fatalf("Update: %v", err)
					} else if err == nil {
						model[key] = o
					}
				}
			case 5: // a burst of objects that come and go: positions are reclaimed
				n := 65 + int(arg%8)
				for j := range n {
					o := newCM("burst", "b"+strconv.Itoa(j), "1")
					if err := ix.Add(o); err != nil {
						t.Fatal(err)
					}
					model[keyOf(t, o)] = o
				}
				for j := range n {
					if j%int(arg%3+1) == 0 {
						o := newCM("burst", "b"+strconv.Itoa(j), "")
						if err := ix.Delete(o); err != nil {
							t.Fatal(err)
						}
						delete(model, keyOf(t, o))
					}
				}
			}
			if ix.Len() != len(model) {
				t.Fatalf("op %d: Len() = %d, model %d", i/2, ix.Len(), len(model))
			}
			for key, want := range model {
				if got, ok := ix.Get(key); !ok || got != want {
					t.Fatalf("op %d: Get(%s) = %v, model %v", i/2, key, got, want)
				}
			}
			checkIndexes(t, ix, nil, installed)
		}
	})
}

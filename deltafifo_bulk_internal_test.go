package informer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type bobj struct{ metav1.ObjectMeta }

func bo(name, rv string) *bobj {
	return &bobj{metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// popAll pops everything queued and returns "key:type" in order.
func popAll(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj]) []string {
	t.Helper()
	var out []string
	for f.Len() > 0 {
		err := f.PopBatch(context.Background(), 3, func(batch []KeyDeltas[*bobj]) error {
			for _, kd := range batch {
				for _, d := range kd.Deltas {
					out = append(out, kd.Key+":"+d.Type.String())
					if ix != nil {
						if d.Type == DeltaDeleted {
							ix.DeleteKey(kd.Key)
						} else {
							ix.upsert(kd.Key, d.Object)
						}
					}
				}
			}
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestDeltaFIFOBulkReplace(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	f.bulkOK = true

	// A first list goes in as bulks and infers no deletion.
	f.BeginReplace()
	if !f.bulkMode {
		t.Fatal("first replacement into an empty cache is not a bulk")
	}
	f.ReplaceItems([]*bobj{bo("a", "1"), bo("b", "2")})
	f.ReplaceItems([]*bobj{bo("c", "3"), {}}) // an invalid item is skipped
	if f.Len() != 3 {
		t.Fatalf("Len = %d, want 3", f.Len())
	}
	// A change during the replacement is queued after it.
	f.Update(bo("a", "4"))
	if err := f.EndReplace(); err != nil {
		t.Fatal(err)
	}
	if f.HasSynced() {
		t.Fatal("synced before the first list was popped")
	}
	got := popAll(t, f, ix)
	want := []string{"ns/a:Replaced", "ns/b:Replaced", "ns/c:Replaced", "ns/a:Updated"}
	if !equal(got, want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
	if !f.HasSynced() {
		t.Fatal("not synced after the first list was processed")
	}

	// The cache is not empty now: the next replacement is not a bulk.
	f.BeginReplace()
	if f.bulkMode {
		t.Fatal("replacement over a full cache is a bulk")
	}
	f.ReplaceItems([]*bobj{bo("a", "5")})
	f.EndReplace()
	got = popAll(t, f, ix)
	want = []string{"ns/a:Replaced", "ns/b:Deleted", "ns/c:Deleted"}
	if !equal(got, want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
}

// An abandoned bulk (a first list that failed half way) still counts as
// queued: the next replacement infers deletions for its keys.
func TestDeltaFIFOAbandonedBulk(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	f.bulkOK = true
	f.BeginReplace()
	f.ReplaceItems([]*bobj{bo("a", "1"), bo("b", "2"), bo("b", "2")})
	// The list fails; a new one begins before anything was popped.
	f.BeginReplace()
	if f.bulkMode {
		t.Fatal("replacement with keys queued is a bulk")
	}
	f.ReplaceItems([]*bobj{bo("a", "3")})
	f.EndReplace()
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	got := popAll(t, f, ix)
	want := []string{"ns/a:Replaced", "ns/b:Replaced", "ns/b:Replaced", "ns/a:Replaced", "ns/b:Deleted"}
	if !equal(got, want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
	if ix.Len() != 1 || !f.HasSynced() {
		t.Fatalf("cache has %d objects, synced=%v", ix.Len(), f.HasSynced())
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A change to a cached or queued object allocates nothing for its key.
func TestDeltaFIFOKeyInterning(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	a := bo("a", "1")
	ix.Add(a)
	f.Update(a)
	var key string
	f.Pop(context.Background(), func(k string, _ []Delta[*bobj]) error { key = k; return nil })
	stored, _, _, _ := ix.internKey([]byte("ns/a"), ix.items.hashBytes([]byte("ns/a")), false)
	if unsafeStringData(key) != unsafeStringData(stored) {
		t.Fatal("the queued key is not the cached key's string")
	}
	allocs := testing.AllocsPerRun(100, func() {
		f.Update(a)
		f.Pop(context.Background(), func(string, []Delta[*bobj]) error { return nil })
	})
	if allocs != 0 {
		t.Fatalf("update+pop of a cached key: %v allocs, want 0", allocs)
	}
}

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

// TestDeltaFIFOBulkRingGrowsWhileWrapped: a first list's pages queue as
// bulks, in a ring of their own beside the queue's ring (where each bulk
// takes one place, among the keys changed meanwhile). When pages come
// faster than they are popped, both rings grow while wrapped around, their
// heads past the start of their arrays; every key must still come out
// once, in order, with its delta.
func TestDeltaFIFOBulkRingGrowsWhileWrapped(t *testing.T) {
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{})
	f.bulkOK = true
	f.BeginReplace()
	if !f.bulkMode {
		t.Fatal("not a bulk replacement")
	}
	var want, got []string // "key:Type resourceVersion", in queue order
	pop := func(max int) {
		t.Helper()
		err := f.PopBatch(context.Background(), max, func(batch []KeyDeltas[*bobj]) error {
			for _, kd := range batch {
				for _, d := range kd.Deltas {
					got = append(got, kd.Key+":"+d.Type.String()+" "+d.Object.ResourceVersion)
				}
			}
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	// Per step, a page of one to three objects (one bulk) and a change to
	// a key not in the list (one queued key); zero to four keys popped, so
	// the backlog grows by about a key a step while the heads move on, and
	// the rings fill with their heads anywhere.
	rng := rand.New(rand.NewPCG(1, 2))
	queueGrew, bulksGrew := 0, 0 // growths while wrapped
	for i := range 600 {
		if f.bulks.GrowsWrapped() {
			bulksGrew++
		}
		if f.queue.GrowsWrapped() {
			queueGrew++
		}
		page := make([]*bobj, 1+rng.IntN(3))
		for j := range page {
			page[j] = bo(fmt.Sprint("p", i, "-", j), fmt.Sprint(i))
			want = append(want, fmt.Sprint("ns/p", i, "-", j, ":Replaced ", i))
		}
		if err := f.ReplaceItems(page); err != nil {
			t.Fatal(err)
		}
		if f.queue.GrowsWrapped() {
			queueGrew++
		}
		if err := f.Add(bo(fmt.Sprint("c", i), fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprint("ns/c", i, ":Added ", i))
		if n := rng.IntN(5); n > 0 {
			pop(n)
		}
	}
	for f.Len() > 0 {
		pop(5)
	}
	if err := f.EndReplace(); err != nil {
		t.Fatal(err)
	}
	if queueGrew < 2 || bulksGrew < 2 {
		t.Fatalf("the queue's ring grew %d times while wrapped, the bulks' %d: want each at least twice", queueGrew, bulksGrew)
	}
	if !equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("popped %d keys, want %d; key %d is %s, want %s", len(got), len(want), i+1, got[i], want[i])
			}
		}
		t.Fatalf("popped %d keys, want %d", len(got), len(want))
	}
}

// TestDeltaFIFOBulkKeys: a first list's default keys are cut from shared
// blocks, one allocation per block, not per key; every key is still its
// object's MetaKey (across block boundaries, with cluster-scoped objects,
// whose key is their name, long names and keyless objects between them),
// and a block holds no more than its keys' bytes and one key.
func TestDeltaFIFOBulkKeys(t *testing.T) {
	var items []*bobj
	for i := range 3000 {
		o := bo(fmt.Sprintf("obj-%d", i), "1")
		switch i % 7 {
		case 1:
			o.Namespace = "" // cluster-scoped
		case 3:
			o.Name = fmt.Sprintf("%0*d", 5000, i) // longer than a block
		}
		items = append(items, o)
		if i%500 == 0 {
			items = append(items, &bobj{}, nil) // no key: reported and left out
		}
	}
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: NewIndexer(IndexerOptions[*bobj]{})})
	f.bulkOK = true
	f.BeginReplace()
	err := f.ReplaceItems(items)
	if err == nil {
		t.Fatal("keyless items not reported")
	}
	f.EndReplace()
	var keys []string
	for f.Len() > 0 {
		f.PopBatch(context.Background(), 100, func(batch []KeyDeltas[*bobj]) error {
			for _, kd := range batch {
				want, err := MetaKey(kd.Deltas[0].Object)
				if err != nil || kd.Key != want {
					t.Fatalf("key %q, want %q (%v)", kd.Key, want, err)
				}
				keys = append(keys, kd.Key)
			}
			return nil
		}, nil)
	}
	if len(keys) != 3000 {
		t.Fatalf("%d keys popped, want 3000", len(keys))
	}
	// Keys of one block share its memory; a cluster-scoped key is its name.
	shared := 0
	for i := 1; i < len(keys); i++ {
		prev := uintptr(unsafe.Pointer(unsafe.StringData(keys[i-1])))
		if uintptr(unsafe.Pointer(unsafe.StringData(keys[i]))) == prev+uintptr(len(keys[i-1])) {
			shared++
		}
	}
	if shared < 1000 {
		t.Fatalf("%d keys follow the previous one in memory, want most", shared)
	}
	if o := items[3]; unsafe.StringData(keys[1]) != unsafe.StringData(o.Name) || o.Namespace != "" {
		t.Fatalf("cluster-scoped key %q does not share its object's name", keys[1])
	}

	small := make([]*bobj, 1000)
	for i := range small {
		small[i] = bo(fmt.Sprintf("obj-%d", i), "1")
	}
	allocs := testing.AllocsPerRun(20, func() {
		f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{})
		f.bulkOK = true
		f.BeginReplace()
		f.ReplaceItems(small)
	})
	// 1000 keys of ~10 bytes: 3 blocks, the bulk, its two slices, the
	// scratch, the queue's rings, the FIFO itself.
	if allocs > 30 {
		t.Fatalf("a first page of 1000 objects: %v allocations, want one per block, not per key", allocs)
	}
}

// A first list's keys are hashed with the bulk, on the reflector's
// goroutine, for the Indexer the queue feeds: each popped key carries its
// keyHash, with the default key and with a user key func.
func TestDeltaFIFOBulkHashes(t *testing.T) {
	for _, userKeys := range []bool{false, true} {
		t.Run(fmt.Sprintf("user keys %v", userKeys), func(t *testing.T) {
			var items []*bobj
			var want []string
			for i := range 300 {
				if i%100 == 3 {
					items = append(items, &bobj{}) // no name: left out
					continue
				}
				o := bo(fmt.Sprintf("obj-%d", i), "1")
				items = append(items, o)
				want = append(want, "ns/"+o.Name)
			}
			opts := DeltaFIFOOptions[*bobj]{KnownObjects: NewIndexer(IndexerOptions[*bobj]{})}
			if userKeys {
				opts.KeyFunc = func(o *bobj) (string, error) { return MetaKey(o) }
			}
			f := NewDeltaFIFO(opts)
			f.bulkOK = true
			f.BeginReplace()
			if err := f.ReplaceItems(items); err == nil {
				t.Fatal("keyless items not reported")
			}
			if err := f.EndReplace(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for f.Len() > 0 {
				batch, initial, err := f.take(nil, 64)
				if err != nil {
					t.Fatal(err)
				}
				for _, kd := range batch {
					if kd.hash != keyHash(kd.Key) {
						t.Fatalf("%s: hash %d, want %d", kd.Key, kd.hash, keyHash(kd.Key))
					}
					got = append(got, kd.Key)
				}
				f.done(batch, initial)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("popped %d keys, want %d in the list's order", len(got), len(want))
			}
		})
	}
}

// TestDeltaFIFOBulkSplit: a page of at least bulkSplit objects is made by
// two goroutines, a half each. Whatever halves the objects without a key
// fall in, the bulk holds the others in order, each under its key and
// with its key's hash for the Indexer, the errors come in the items'
// order, and nothing is left beyond the bulk's end to keep objects alive.
func TestDeltaFIFOBulkSplit(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, tc := range []struct {
		name   string
		n      int
		nilAt  []int // nil objects (ErrNilObject)
		anonAt []int // objects without a name (ErrEmptyName)
	}{
		{"below the split", bulkSplit - 1, []int{3}, []int{bulkSplit - 2}},
		{"all keyed", bulkSplit, nil, nil},
		{"keyless in the first half", bulkSplit + 1, []int{0, 7}, []int{bulkSplit/2 - 1}},
		{"keyless in the second half", 2*bulkSplit + 3, nil, []int{bulkSplit + 2, 2*bulkSplit + 2}},
		{"keyless in both", 2 * bulkSplit, []int{5}, []int{bulkSplit + 9}},
		{"first half all keyless", bulkSplit, []int{0, 1, 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]*bobj, tc.n)
			for i := range items {
				items[i] = bo(fmt.Sprintf("obj-%d", i), "1")
				if i%5 == 2 {
					items[i].Namespace = "" // cluster-scoped: its key is its name
				}
			}
			for _, i := range tc.anonAt {
				items[i].Name = ""
			}
			if tc.name == "first half all keyless" {
				for i := range tc.n / 2 {
					items[i].Name = ""
				}
			}
			for _, i := range tc.nilAt {
				items[i] = nil
			}
			f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: NewIndexer(IndexerOptions[*bobj]{})})
			b, errs := f.bulkOf(nil, items, nil)
			var want []*bobj
			var wantErrs []error
			for _, o := range items {
				switch {
				case o == nil:
					wantErrs = append(wantErrs, ErrNilObject)
				case o.Name == "":
					wantErrs = append(wantErrs, ErrEmptyName)
				default:
					want = append(want, o)
				}
			}
			if b.keys != nil || b.deltas != nil || len(b.staged) != len(want) {
				t.Fatalf("bulk of %d keys, %d deltas, %d staged entries; want %d staged", len(b.keys), len(b.deltas), len(b.staged), len(want))
			}
			for i, o := range want {
				key, _ := MetaKey(o)
				e := b.staged[i]
				if e.key != key || e.obj != o {
					t.Fatalf("entry %d: %q with %v, want %q with %v", i, e.key, e.obj, key, o)
				}
				if e.hash != keyHash(key) || e.seq != 0 || e.mark != 0 {
					t.Fatalf("entry %d (%q): hash %#x, seq %d, mark %d; want hash %#x, 0, 0", i, key, e.hash, e.seq, e.mark, keyHash(key))
				}
			}
			if len(errs) != len(wantErrs) {
				t.Fatalf("%d errors, want %d", len(errs), len(wantErrs))
			}
			for i, err := range errs {
				if !errors.Is(err, wantErrs[i]) {
					t.Fatalf("error %d is %v, want %v (in the items' order)", i, err, wantErrs[i])
				}
			}
			for i, e := range b.staged[len(b.staged):cap(b.staged)] {
				if e != (slot[*bobj]{}) {
					t.Fatalf("position %d beyond the bulk's end still holds an object or a key", len(b.staged)+i)
				}
			}
		})
	}
}

// TestDeltaFIFOBulkNextDeltas: the Deltas of staged bulk entries that next
// hands out (the informer's loop) are made in the queue's scratch, at the
// entries' positions in the batch, also for a batch that holds the end of
// one page and the start of the next; each is a DeltaReplaced of its
// entry's object, and the scratch keeps no object of a batch handed back
// (and is dropped once no page is left).
func TestDeltaFIFOBulkNextDeltas(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	f.bulkOK = true
	var pages [2][]*bobj
	for i := range 300 {
		o := &bobj{metav1.ObjectMeta{Namespace: fmt.Sprint("ns-", i%7), Name: fmt.Sprint("o", i), ResourceVersion: "1"}}
		pages[i/200] = append(pages[i/200], o)
	}
	f.BeginReplace()
	for _, p := range pages {
		if err := f.ReplaceItems(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.EndReplace(); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(pages[0]), pages[1]...)
	var prev []KeyDeltas[*bobj]
	prevInitial, seen := 0, 0
	for {
		batch, initial, _, err := f.next(prev, prevInitial, nil, 128)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		for i, d := range f.nextDeltas[len(batch):] {
			if d.Object != nil {
				t.Fatalf("the scratch holds an object at %d, beyond this batch of %d, after the last was handed back", len(batch)+i, len(batch))
			}
		}
		for _, kd := range batch {
			o := want[seen]
			key, _ := MetaKey(o)
			if kd.Key != key || len(kd.Deltas) != 1 || kd.Deltas[0].Type != DeltaReplaced || kd.Deltas[0].Object != o {
				t.Fatalf("entry %d: %s with %d deltas (%v), want %s replaced by %v", seen, kd.Key, len(kd.Deltas), kd.Deltas, key, o)
			}
			seen++
		}
		ix.applyBatch(batch, nil)
		prev, prevInitial = batch, initial
	}
	if seen != len(want) {
		t.Fatalf("%d entries handed out, want %d", seen, len(want))
	}
	if f.nextDeltas != nil {
		t.Fatal("the scratch is kept after the last page was handed back")
	}
	if ix.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", ix.Len(), len(want))
	}
}

package informer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestApplyListedFirstList stores first lists through a DeltaFIFO's bulk
// into an empty Indexer with a namespace index (applyListed's path): in
// namespace order and not, cluster-scoped keys among them, a key listed
// twice (the later object wins, and the second is reported as an update
// of the first), and more keys than the key table was made for (it grows
// within a batch). Each key's result, its position hint, Get, iteration
// and every namespace's listing are checked against a model.
//
// The queue makes the page ready as the Indexer's entries (Indexer.stage),
// and the Indexer takes it as its slots, a batch at a time, until a key
// listed twice or a write of its own between two batches ends that: then
// the rest is stored as copies, and the page's entries not yet handed out
// must be intact (the Indexer's slots have no room to append over them).
func TestApplyListedFirstList(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sorted bool
		dup    int  // index of an object listed again in the second batch, or -1
		write  bool // an Add of the Indexer's own between the first two batches
	}{
		{"namespace order", true, -1, false},
		{"namespaces in turn", false, -1, false},
		{"a key twice", false, 37, false},
		{"a key twice, namespace order", true, 200, false},
		{"each namespace a prefix of the next", false, -1, false},
		{"a write between batches", false, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var items []*bobj
			for i := range 700 {
				ns := fmt.Sprintf("ns-%d", i%23)
				if tc.sorted {
					ns = fmt.Sprintf("ns-%02d", i/31)
				}
				if tc.name == "each namespace a prefix of the next" {
					ns = strings.Repeat("n", 1+i%23)
				}
				if i%50 == 7 {
					ns = "" // cluster-scoped
				}
				items = append(items, &bobj{metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprint("o", i), ResourceVersion: "1"}})
			}
			var dupKey string
			if tc.dup >= 0 {
				dupKey, _ = MetaKey(items[tc.dup])
				again := *items[tc.dup]
				again.ResourceVersion = "2"
				items = slices.Insert(items, 130, &again) // in the second batch of 128
			}
			ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
			f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
			f.bulkOK = true
			if err := f.Replace(items); err != nil {
				t.Fatal(err)
			}
			page := unsafe.SliceData(ix.staged)
			if page == nil {
				t.Fatal("the first page into an empty Indexer is not staged")
			}
			extra := &bobj{metav1.ObjectMeta{Namespace: "zz", Name: "extra", ResourceVersion: "1"}}
			var existed []string
			for b := 0; f.Len() > 0; b++ {
				if b == 1 && tc.write {
					if err := ix.Add(extra); err != nil {
						t.Fatal(err)
					}
				}
				batch, initial, err := f.take(nil, 128)
				if err != nil {
					t.Fatal(err)
				}
				res := ix.applyBatch(batch, nil)
				if len(res) != len(batch) {
					t.Fatalf("%d results for %d keys", len(res), len(batch))
				}
				for i, kd := range batch {
					if res[i].existed {
						existed = append(existed, kd.Key)
					}
					pos, ok := ix.posOf(kd.Key)
					if !kd.applied || !ok || kd.cached != pos+1 {
						t.Fatalf("%s: applied %v, hint %d, stored at %d (%v)", kd.Key, kd.applied, kd.cached, pos, ok)
					}
				}
				f.done(batch, initial)
			}
			want := map[string]*bobj{}
			byNS := map[string][]string{}
			for _, o := range items {
				key, _ := MetaKey(o)
				if _, ok := want[key]; !ok {
					byNS[o.Namespace] = append(byNS[o.Namespace], key)
				}
				want[key] = o
			}
			if tc.write {
				want["zz/extra"], byNS["zz"] = extra, []string{"zz/extra"}
			}
			adopted := unsafe.SliceData(ix.slots.s) == page
			if adopted != (tc.dup < 0 && !tc.write) || ix.staged != nil {
				t.Fatalf("slots are the staged page: %v; staged page still held: %v", adopted, ix.staged != nil)
			}
			if tc.dup >= 0 {
				if !slices.Equal(existed, []string{dupKey}) {
					t.Fatalf("keys found stored: %v, want %s", existed, dupKey)
				}
			} else if len(existed) > 0 {
				t.Fatalf("keys found stored in a first list: %v", existed)
			}
			if ix.Len() != len(want) {
				t.Fatalf("Len = %d, want %d", ix.Len(), len(want))
			}
			for key, o := range want {
				if got, ok := ix.Get(key); !ok || got != o {
					t.Fatalf("Get(%s) = %v, %v", key, got, ok)
				}
			}
			seen := 0
			for key, o := range ix.All() {
				if want[key] != o {
					t.Fatalf("iteration yields %s with %v, want %v", key, o, want[key])
				}
				seen++
			}
			if seen != len(want) {
				t.Fatalf("iteration yields %d entries, want %d", seen, len(want))
			}
			for ns, keys := range byNS {
				got, err := ix.ByIndex(NamespaceIndex, ns)
				if err != nil {
					t.Fatal(err)
				}
				var gotKeys []string
				for _, o := range got {
					k, _ := MetaKey(o)
					gotKeys = append(gotKeys, k)
				}
				slices.Sort(gotKeys)
				slices.Sort(keys)
				if !slices.Equal(gotKeys, keys) {
					t.Fatalf("namespace %q lists %v, want %v", ns, gotKeys, keys)
				}
			}
		})
	}
}

// TestStagedPageLetGo: a first list's page that the queue staged for its
// Indexer (Indexer.stage) is let go of when a consumer other than an
// Informer's stores the keys by the Indexer's own writes, and when the
// Indexer's content is replaced: it keeps no page of objects alive.
func TestStagedPageLetGo(t *testing.T) {
	for _, via := range []string{"writes", "Replace"} {
		t.Run(via, func(t *testing.T) {
			ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
			f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
			f.bulkOK = true
			if err := f.Replace([]*bobj{bo("a", "1"), bo("b", "1"), bo("c", "1")}); err != nil {
				t.Fatal(err)
			}
			if ix.staged == nil {
				t.Fatal("the first page into an empty Indexer is not staged")
			}
			switch via {
			case "writes":
				popAll(t, f, ix)
				if ix.Len() != 3 {
					t.Fatalf("Len = %d, want 3", ix.Len())
				}
			case "Replace":
				if err := ix.Replace(nil); err != nil {
					t.Fatal(err)
				}
			}
			if ix.staged != nil {
				t.Fatal("the Indexer still holds the staged page")
			}
		})
	}
}

package informer

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestApplyListedFirstList stores first lists through a DeltaFIFO's bulk
// into an empty Indexer with a namespace index (applyListed's path): in
// namespace order and not, cluster-scoped keys among them, a key listed
// twice (the later object wins, and the second is reported as an update
// of the first), and more keys than the key table was made for (it grows
// within a batch). Each key's result, its position hint, Get and every
// namespace's listing are checked against a model.
func TestApplyListedFirstList(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sorted bool
		dup    int // index of an object listed again in the second batch, or -1
	}{
		{"namespace order", true, -1},
		{"namespaces in turn", false, -1},
		{"a key twice", false, 37},
		{"a key twice, namespace order", true, 200},
		{"each namespace a prefix of the next", false, -1},
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
			var existed []string
			for f.Len() > 0 {
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

package informer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIndexNearBuckets writes objects of a few hundred namespaces in
// random order (so that the namespace index finds most buckets in its
// near cache, which grows with them, and some values share a slot there),
// empties whole namespaces (their buckets go) and fills them again (new
// buckets), and checks every namespace's listing against a model after
// each step, and that the cache holds only live buckets under their own
// value.
func TestIndexNearBuckets(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	x := ix.set.Load().maps[0]
	const spaces, per = 300, 6
	ns := func(i int) string { return fmt.Sprintf("team-%d", i*7919) } // short and long values
	model := map[string]map[string]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	put := func(i, j int) {
		o := &bobj{metav1.ObjectMeta{Namespace: ns(i), Name: fmt.Sprint("o", j)}}
		if err := ix.Add(o); err != nil {
			t.Fatal(err)
		}
		if model[o.Namespace] == nil {
			model[o.Namespace] = map[string]bool{}
		}
		model[o.Namespace][o.Name] = true
	}
	check := func(step string) {
		t.Helper()
		for i := range spaces {
			got, err := ix.ByIndex(NamespaceIndex, ns(i))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range got {
				names = append(names, o.Name)
			}
			var want []string
			for n := range model[ns(i)] {
				want = append(want, n)
			}
			slices.Sort(names)
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Fatalf("%s: namespace %s lists %v, want %v", step, ns(i), names, want)
			}
		}
		for slot, b := range x.near {
			if b != nil && (x.buckets[b.v] != b || int(nearHash(b.v)>>x.nearShift) != slot) {
				t.Fatalf("%s: near[%d] holds a bucket of %q that is not the index's, or not in its slot", step, slot, b.v)
			}
		}
	}
	for _, k := range rng.Perm(spaces * per) {
		put(k%spaces, k/spaces)
	}
	check("filled")
	if len(x.near) < 8*spaces/2 {
		t.Fatalf("near has %d slots for %d buckets", len(x.near), spaces)
	}
	shared := map[uint64]int{}
	for i := range spaces {
		shared[nearHash(ns(i))>>x.nearShift]++
	}
	if len(shared) == spaces {
		t.Fatal("no two namespaces share a slot in near: the test misses the case")
	}
	for round := range 4 {
		// Empty a third of the namespaces, in random order: their
		// buckets go.
		var gone []int
		for _, k := range rng.Perm(spaces * per) {
			i, j := k%spaces, k/spaces
			if i%3 != round%3 {
				continue
			}
			key := ns(i) + "/o" + fmt.Sprint(j)
			if _, _, err := ix.DeleteKey(key); err != nil {
				t.Fatal(err)
			}
			delete(model[ns(i)], fmt.Sprint("o", j))
			if j == 0 {
				gone = append(gone, i)
			}
		}
		check(fmt.Sprintf("round %d emptied", round))
		// Fill them again, interleaved with the others' namespaces.
		for _, k := range rng.Perm(len(gone) * per) {
			put(gone[k%len(gone)], k/len(gone))
			put(rng.IntN(spaces), per+rng.IntN(3))
		}
		check(fmt.Sprintf("round %d filled again", round))
	}
}

// nearHash is the same for a value wherever its bytes are (a key's
// namespace part is a piece of a longer string) and spreads values of
// every length.
func TestNearHash(t *testing.T) {
	seen := map[uint64]string{}
	for _, v := range []string{"", "a", "ab", "abc", "abcd", "abcde", "default", "kube-system", "kube-public", "team-a-production-eu-west-1"} {
		key := v + "/name"
		if nearHash(v) != nearHash(key[:len(v)]) {
			t.Fatalf("nearHash(%q) depends on the bytes after it", v)
		}
		if o, ok := seen[nearHash(v)]; ok {
			t.Fatalf("nearHash(%q) = nearHash(%q)", v, o)
		}
		seen[nearHash(v)] = v
	}
}

// TestIndexerReserveOffs: a first list of known size (Indexer.stage)
// sizes the namespace index's offsets once, rather than doubling them
// from 64 as positions arrive, and the index still lists every entry.
func TestIndexerReserveOffs(t *testing.T) {
	const n = 1000
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	ix.stage(make([]slot[*bobj], n))
	x := ix.set.Load().maps[0]
	if len(x.offs) < n {
		t.Fatalf("offsets for %d positions after stage of %d", len(x.offs), n)
	}
	first := &x.offs[0]
	for i := range n {
		if err := ix.Add(&bobj{metav1.ObjectMeta{Namespace: fmt.Sprint("ns-", i%7), Name: fmt.Sprint("o", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if &x.offs[0] != first {
		t.Fatal("the offsets grew again while the reserved entries arrived")
	}
	total := 0
	for i := range 7 {
		got, err := ix.ByIndex(NamespaceIndex, fmt.Sprint("ns-", i))
		if err != nil {
			t.Fatal(err)
		}
		total += len(got)
	}
	if total != n {
		t.Fatalf("the namespace index lists %d entries, want %d", total, n)
	}
}

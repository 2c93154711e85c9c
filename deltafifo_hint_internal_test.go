package informer

import (
	"strconv"
	"testing"
)

// TestCachedPositionHint: a key queued for a change carries the position
// its Indexer held it at (so the consumer skips a lookup by key), and the
// consumer checks that position before trusting it: the change lands on
// the key's entry however the Indexer changed between the queueing and the
// applying (the entry deleted and its slot reused by another key, the
// slots compacted), and never on another key's entry.
func TestCachedPositionHint(t *testing.T) {
	for _, tc := range []struct {
		name string
		// between runs after a's update is queued, before it is applied.
		between func(ix *Indexer[*bobj])
		// existed is whether a is cached when its update is applied.
		existed bool
	}{
		{"unchanged", func(*Indexer[*bobj]) {}, true},
		{"deleted, slot reused", func(ix *Indexer[*bobj]) {
			ix.Delete(bo("a", "1"))
			ix.Add(bo("c", "1")) // takes a's hole
		}, false},
		{"deleted and added again", func(ix *Indexer[*bobj]) {
			ix.Delete(bo("a", "1"))
			ix.Add(bo("c", "1"))
			ix.Add(bo("a", "2"))
		}, true},
		{"compacted", func(ix *Indexer[*bobj]) {
			for i := range 200 { // every key before a: a moves down
				ix.Delete(bo("o"+strconv.Itoa(i), "1"))
			}
		}, true},
	} {
		for _, noting := range []bool{false, true} {
			name := tc.name
			if noting {
				name += ", noting" // as the process loop applies: applyNoting
			}
			t.Run(name, func(t *testing.T) {
				testCachedPositionHint(t, tc.between, tc.existed, noting, tc.name == "unchanged")
			})
		}
	}
}

// testCachedPositionHint is a case of TestCachedPositionHint; with noting,
// the batch is applied as the process loop does, and wantNoted says
// whether the update is noted as it is applied (the hint holds).
func testCachedPositionHint(t *testing.T, between func(ix *Indexer[*bobj]), existed, noting, wantNoted bool) {
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	for i := range 200 {
		ix.Add(bo("o"+strconv.Itoa(i), "1"))
	}
	ix.Add(bo("a", "1"))
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	a3 := bo("a", "3")
	f.Update(a3)
	between(ix)
	batch, initial, err := f.take(nil, 10)
	if err != nil || len(batch) != 1 {
		t.Fatalf("take: %d keys, %v", len(batch), err)
	}
	if batch[0].cached == 0 {
		t.Error("the queued key carries no position hint")
	}
	var res applyResult[*bobj]
	if noting {
		var nb noteBatch[*bobj]
		nb.grow(len(batch))
		rs, noted := ix.applyNoting(batch, nil, &nb)
		if noted != 0 != wantNoted {
			t.Errorf("%d keys noted as applied, want noted %t", noted, wantNoted)
		}
		if noted == 1 {
			// Noted: an update of the stored a.
			res = applyResult[*bobj]{old: nb.old[0], existed: true}
			if nb.new[0] != a3 || nb.meta[0] != uint8(notifyUpdate) || nb.old[0] == nil || nb.old[0].Name != "a" {
				t.Errorf("noted %v -> %v (meta %d), want an update of a to a3", nb.old[0], nb.new[0], nb.meta[0])
			}
		} else {
			res = rs[0]
		}
	} else {
		res = ix.applyBatch(batch, nil)[0]
	}
	f.done(batch, initial)
	if res.err != nil || res.existed != existed {
		t.Errorf("applied: existed %t, err %v; want existed %t", res.existed, res.err, existed)
	}
	if got, ok := ix.Get("ns/a"); !ok || got != a3 {
		t.Errorf("Get(ns/a) = %v, %t; want the update", got, ok)
	}
	for key, obj := range ix.All() {
		if key != "ns/a" && obj.Name == "a" {
			t.Errorf("the update landed on %s", key)
		}
		if want := obj.Namespace + "/" + obj.Name; key != want {
			t.Errorf("entry %s holds %s", key, want)
		}
	}
	if n := len(ix.Keys()); n != len(ix.List()) {
		t.Errorf("%d keys, %d objects", n, len(ix.List()))
	}
}

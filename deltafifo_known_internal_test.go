package informer

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// checkKeyTable checks, with nothing in flight, that a DeltaFIFO keeping
// its known keys has every queued key's slot pointing at its pending
// entry, every other slot at a live known entry nothing refers to, and
// counts that add up; every key the table knows as cached is in ix
// unless gone is true for it (deleted from ix directly).
func checkKeyTable(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj], gone map[string]bool) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inflight != 0 {
		t.Fatal("a batch in flight")
	}
	n, queued, known, referred := 0, 0, 0, 0
	for i, s := range f.items.slots {
		switch {
		case s.at1 == 0:
			continue
		case s.at1 > 0:
			p := f.pendAt(s.at1 - 1)
			if p.deltas == nil || f.items.hashString(p.key) != s.hash {
				t.Fatalf("slot %d: pending entry of %q with %d deltas", i, p.key, len(p.deltas))
			}
			if q := f.queuedLocked(p.key); q.at != s.at1-1 {
				t.Fatalf("%q queued at %d, found at %d", p.key, s.at1-1, q.at)
			}
			queued++
			if p.kk > 0 {
				referred++
				if k := f.knownKeys[p.kk-1]; k.key != p.key {
					t.Fatalf("%q refers to the known entry of %q", p.key, k.key)
				}
			}
		default:
			k := f.knownKeys[-s.at1-1]
			if k.key == "" || k.hash != s.hash {
				t.Fatalf("slot %d: known entry %+v", i, k)
			}
			if q := f.queuedLocked(k.key); q.at != noPending || q.kk != -s.at1 {
				t.Fatalf("%q: lookup found %+v", k.key, q)
			}
			if _, ok := ix.posOf(k.key); !ok && !gone[k.key] {
				t.Fatalf("%q known as cached, not in the Indexer", k.key)
			}
			known++
		}
		n++
	}
	if n != f.items.n || queued != f.inuse || known+referred != f.nknown || f.nknown+len(f.knownFree) != len(f.knownKeys) {
		t.Fatalf("table: %d slots (n %d), %d queued (inuse %d), %d known + %d referred (nknown %d), %d free of %d",
			n, f.items.n, queued, f.inuse, known, referred, f.nknown, len(f.knownFree), len(f.knownKeys))
	}
}

// runKnownOps is runRelistOps with pops as an Informer does them (take,
// applyBatch, done: the Indexer says where it stored each key), deletions
// from the Indexer behind the queue's back (op 7), and the key table
// checked after every op.
func runKnownOps(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj], ops []byte, applied bool) []string {
	t.Helper()
	const keySpace = 8
	var out []string
	gone := map[string]bool{}
	version := 0
	obj := func(k int) *bobj {
		version++
		return bo("k"+strconv.Itoa(k), strconv.Itoa(version))
	}
	pop := func(max int) {
		if applied {
			batch, initial, err := f.take(nil, max)
			if err != nil {
				t.Fatal(err)
			}
			for _, kd := range batch {
				for _, d := range kd.Deltas {
					out = append(out, kd.Key+":"+d.Type.String())
				}
			}
			ix.applyBatch(batch, nil)
			f.done(batch, initial)
			return
		}
		err := f.PopBatch(context.Background(), max, func(batch []KeyDeltas[*bobj]) error {
			for _, kd := range batch {
				for _, d := range kd.Deltas {
					out = append(out, kd.Key+":"+d.Type.String())
					if d.Type == DeltaDeleted {
						ix.DeleteKey(kd.Key)
					} else {
						ix.upsert(kd.Key, d.Object)
					}
				}
			}
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i], ops[i+1]
		k := int(arg) % keySpace
		switch op % 8 {
		case 0:
			f.Update(obj(k))
		case 1:
			f.Delete(obj(k))
		case 2:
			f.BeginReplace()
		case 3:
			var page []*bobj
			for j := range keySpace {
				if arg&(1<<j) != 0 {
					page = append(page, obj(j))
				}
			}
			if err := f.ReplaceItems(page); err != nil && !errors.Is(err, ErrDuplicateKey) {
				t.Fatal(err)
			}
		case 4:
			if err := f.EndReplace(); err != nil {
				t.Fatal(err)
			}
		case 5, 6:
			if f.Len() > 0 {
				pop(int(arg%3) + 1)
			}
		case 7:
			key := "ns/k" + strconv.Itoa(k)
			ix.DeleteKey(key)
			gone[key] = true
		}
		if f.keep {
			checkKeyTable(t, f, ix, gone)
		}
	}
	for f.Len() > 0 {
		pop(2)
	}
	// Deleting every key empties the table.
	for k := range keySpace {
		f.Delete(obj(k))
	}
	for f.Len() > 0 {
		pop(3)
	}
	if f.keep {
		checkKeyTable(t, f, ix, gone)
		if f.items.n != 0 || f.nknown != 0 {
			t.Fatalf("after deleting every key: %d slots, %d known", f.items.n, f.nknown)
		}
	}
	return out
}

// TestDeltaFIFOKnownKeys: a DeltaFIFO over an Indexer keeps the keys its
// consumer stored in its key table, and pops exactly what one that keeps
// no known keys (KnownObjects behind an interface) pops, with watch
// events, relists, pops applied as an Informer applies them or by a
// Pop callback, and deletions from the Indexer behind the queue's back.
func TestDeltaFIFOKnownKeys(t *testing.T) {
	for seed := range uint64(2000) {
		r := rand.New(rand.NewPCG(seed, 7))
		ops := make([]byte, 2*(10+r.IntN(80)))
		for i := range ops {
			ops[i] = byte(r.UintN(256))
		}
		applied := seed%2 == 0
		ixA := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
		fA := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ixA})
		ixB := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
		fB := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: setKnown{ixB}})
		if !fA.keep || fB.keep {
			t.Fatal("the two queues do not use the two ways")
		}
		a := perKey(runKnownOps(t, fA, ixA, ops, applied))
		b := perKey(runKnownOps(t, fB, ixB, ops, applied))
		for k := range keysOf(a, b) {
			if !slices.Equal(a[k], b[k]) {
				t.Fatalf("seed %d, ops %v: %s: with known keys popped\n%v\nwithout\n%v", seed, ops, k, a[k], b[k])
			}
		}
	}
}

// TestDeltaFIFOKnownKeysMany: thousands of keys updated, deleted and
// popped as an Informer does, so that the table grows, wraps around and
// shifts clusters back; after every burst the table is consistent, and
// it empties when every key is deleted.
func TestDeltaFIFOKnownKeysMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	const nkeys = 3000
	model := map[string]bool{}
	drain := func(max int) {
		for f.Len() > 0 {
			batch, initial, err := f.take(nil, max)
			if err != nil {
				t.Fatal(err)
			}
			ix.applyBatch(batch, nil)
			f.done(batch, initial)
		}
	}
	for step := range 300 {
		for range rng.IntN(400) {
			k := rng.IntN(nkeys)
			o := bo("k"+strconv.Itoa(k), strconv.Itoa(step))
			if rng.IntN(3) == 0 {
				f.Delete(o)
				delete(model, "ns/"+o.Name)
			} else {
				f.Update(o)
				model["ns/"+o.Name] = true
			}
		}
		drain(1 + rng.IntN(50))
		checkKeyTable(t, f, ix, nil)
		if ix.Len() != len(model) {
			t.Fatalf("step %d: %d cached, want %d", step, ix.Len(), len(model))
		}
		if f.nknown != len(model) {
			t.Fatalf("step %d: %d known keys, %d cached", step, f.nknown, len(model))
		}
	}
	for k := range nkeys {
		f.Delete(bo("k"+strconv.Itoa(k), "x"))
	}
	drain(64)
	checkKeyTable(t, f, ix, nil)
	if f.items.n != 0 || f.nknown != 0 || ix.Len() != 0 {
		t.Fatalf("after deleting every key: %d slots, %d known, %d cached", f.items.n, f.nknown, ix.Len())
	}
	if len(f.knownKeys) != 0 {
		t.Fatalf("%d known entries kept after every key was deleted", len(f.knownKeys))
	}
}

package informer

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkKeyTable checks, with nothing in flight, that a DeltaFIFO keeping
// its known keys has every slot pointing at a queued or a cached key's
// entry, found by its key, and counts that add up; every key the table
// knows as cached is in ix unless gone is true for it (deleted from ix
// directly).
func checkKeyTable(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj], gone map[string]bool) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inflight != 0 {
		t.Fatal("a batch in flight")
	}
	n, queued, known := 0, 0, 0
	for i, s := range f.items.slots {
		if s.at1 == 0 {
			continue
		}
		p := f.pendAt(s.at1 - 1)
		if f.items.hashString(p.key) != s.hash || p.moved {
			t.Fatalf("slot %d: entry %+v", i, p)
		}
		q := f.queuedLocked(p.key)
		switch p.state {
		case entryQueued:
			if p.deltas == nil || q.at != s.at1-1 {
				t.Fatalf("%q queued at %d with %d deltas, found at %+v", p.key, s.at1-1, len(p.deltas), q)
			}
			queued++
		case entryKnown:
			if p.deltas != nil || q.at != noPending || q.kk != s.at1 {
				t.Fatalf("%q cached at %d with %d deltas, found at %+v", p.key, s.at1-1, len(p.deltas), q)
			}
			if _, ok := ix.posOf(p.key); !ok && !gone[p.key] {
				t.Fatalf("%q known as cached, not in the Indexer", p.key)
			}
			known++
		default:
			t.Fatalf("slot %d: %q in state %d", i, p.key, p.state)
		}
		n++
	}
	free := 0
	for at := f.freed; at != 0; at = int32(f.pendAt(at - 1).gen) {
		if p := f.pendAt(at - 1); p.state != entryFree || p.key != "" {
			t.Fatalf("free entry %d: %+v", at-1, p)
		}
		free++
	}
	if n != f.items.n || queued != f.inuse || known != f.nknown || int(f.npend) < n+free {
		t.Fatalf("table: %d slots (n %d), %d queued (inuse %d), %d known (nknown %d), %d free, npend %d",
			n, f.items.n, queued, f.inuse, known, f.nknown, free, f.npend)
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
		case 0, 1, 2, 3:
			queueOp(t, f, op, arg, keySpace, obj)
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
		ops := randomOps(seed, 7, 80)
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
	if f.npend != 0 {
		t.Fatalf("%d entries kept after every key was deleted", f.npend)
	}
}

// A change queued while the key's entry is in flight goes to a new entry,
// which takes the key's slot; the one in flight is freed when it is done,
// and the new one gets from it where the Indexer stored the key. Two
// consumers may each hold an entry of the key, done in either order.
func TestDeltaFIFOPushWhileInFlight(t *testing.T) {
	type step struct {
		op  string // "update", "delete", "take" (one key, into a new hold), "done" (hold i), "cached" (k0 added to the Indexer first)
		arg int
	}
	cases := []struct {
		name   string
		steps  []step
		cached bool // k0 is in the Indexer at the end
	}{
		{"update of a cached key in flight", []step{{"cached", 0}, {"update", 0}, {"take", 0}, {"update", 0}, {"done", 0}}, true},
		{"update of a new key in flight", []step{{"update", 0}, {"take", 0}, {"update", 0}, {"done", 0}}, true},
		{"add while its deletion is in flight", []step{{"cached", 0}, {"delete", 0}, {"take", 0}, {"update", 0}, {"done", 0}}, true},
		{"deletion while an update is in flight", []step{{"cached", 0}, {"update", 0}, {"take", 0}, {"delete", 0}, {"done", 0}}, false},
		{"two in flight, done in order", []step{{"update", 0}, {"take", 0}, {"update", 0}, {"take", 0}, {"update", 0}, {"done", 0}, {"done", 1}}, true},
		{"two in flight, done out of order", []step{{"update", 0}, {"take", 0}, {"update", 0}, {"take", 0}, {"update", 0}, {"done", 1}, {"done", 0}}, true},
		{"deleted by the second, first done last", []step{{"cached", 0}, {"update", 0}, {"take", 0}, {"delete", 0}, {"take", 0}, {"done", 1}, {"done", 0}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
			f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
			// Other keys, cached, so that k0 is not the Indexer's only one.
			for i := 1; i <= 5; i++ {
				f.Update(bo("k"+strconv.Itoa(i), "1"))
			}
			drainApplied(t, f, ix)
			type hold struct {
				batch   []KeyDeltas[*bobj]
				initial int
			}
			var holds []*hold
			v := 1
			for _, s := range tc.steps {
				v++
				switch s.op {
				case "cached":
					f.Update(bo("k0", "1"))
					drainApplied(t, f, ix)
				case "update":
					f.Update(bo("k0", strconv.Itoa(v)))
				case "delete":
					f.Delete(bo("k0", strconv.Itoa(v)))
				case "take":
					batch, initial, err := f.take(nil, 1)
					if err != nil || len(batch) != 1 || batch[0].Key != "ns/k0" {
						t.Fatalf("take: %v %v", batch, err)
					}
					ix.applyBatch(batch, nil)
					holds = append(holds, &hold{batch, initial})
				case "done":
					h := holds[s.arg]
					f.done(h.batch, h.initial)
				}
			}
			// What is still queued has where the Indexer holds the key.
			if pos, ok := ix.posOf("ns/k0"); ok {
				f.mu.Lock()
				q := f.queuedLocked("ns/k0")
				f.mu.Unlock()
				if q.at != noPending && f.pendAt(q.at).cached != pos+1 {
					t.Fatalf("k0 at %d in the Indexer, queued with the hint %d", pos, f.pendAt(q.at).cached)
				}
			}
			drainApplied(t, f, ix)
			checkKeyTable(t, f, ix, nil)
			pos, ok := ix.posOf("ns/k0")
			if ok != tc.cached {
				t.Fatalf("k0 cached = %v, want %v", ok, tc.cached)
			}
			f.mu.Lock()
			q := f.queuedLocked("ns/k0")
			live := f.items.n
			free := 0
			for at := f.freed; at != 0; at = int32(f.pendAt(at - 1).gen) {
				free++
			}
			npend := int(f.npend)
			f.mu.Unlock()
			if ok && (q.kk == 0 || q.cached != int32(pos)+1) {
				t.Fatalf("k0 at %d in the Indexer, the queue's entry says %+v", pos, q)
			}
			if !ok && (q.kk != 0 || q.at != noPending) {
				t.Fatalf("k0 deleted, still in the key table: %+v", q)
			}
			if live+free != npend {
				t.Fatalf("%d entries live, %d free, %d in all: an entry leaked", live, free, npend)
			}
		})
	}
}

// drainApplied pops every queued key as an Informer does.
func drainApplied(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj]) {
	t.Helper()
	for f.Len() > 0 {
		batch, initial, err := f.take(nil, 8)
		if err != nil {
			t.Fatal(err)
		}
		ix.applyBatch(batch, nil)
		f.done(batch, initial)
	}
}

// When most entries are free after the queue drained, the cached keys'
// entries move to the first positions; their keys are found there, with
// their positions in the Indexer, and can be changed as before.
func TestDeltaFIFOKnownCompact(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	const n, kept = 4000, 500
	for i := range n {
		f.Update(bo("k"+strconv.Itoa(i), "1"))
	}
	drainApplied(t, f, ix)
	if f.npend != n {
		t.Fatalf("%d entries for %d keys", f.npend, n)
	}
	for i := kept; i < n; i++ {
		f.Delete(bo("k"+strconv.Itoa(i), "2"))
	}
	drainApplied(t, f, ix)
	checkKeyTable(t, f, ix, nil)
	if f.npend != kept || f.freed != 0 || f.nknown != kept {
		t.Fatalf("after deleting %d of %d keys: %d entries, free list %d, %d known", n-kept, n, f.npend, f.freed, f.nknown)
	}
	// The key table, grown for n keys, is given back too.
	if len(f.items.slots) > 1024 {
		t.Fatalf("after deleting %d of %d keys: %d slots kept for %d keys", n-kept, n, len(f.items.slots), f.items.n)
	}
	checkKeptHints(t, f, ix, kept)
	for i := range kept {
		f.Update(bo("k"+strconv.Itoa(i), "3"))
	}
	drainApplied(t, f, ix)
	checkKeyTable(t, f, ix, nil)
	if f.npend != kept || ix.Len() != kept {
		t.Fatalf("after updating the kept keys: %d entries, %d cached", f.npend, ix.Len())
	}
}

// A compaction that keeps the key table (not four times the size its keys
// need) renumbers its slots in place: here most entries were freed by keys
// whose changes were queued while they were in flight (moved entries hold
// no slot), so the entries outnumber the slots the table ever needed.
func TestDeltaFIFOKnownCompactInPlace(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	const n, inFlight, kept = 1200, 400, 384
	for i := range n {
		f.Update(bo("k"+strconv.Itoa(i), "1"))
	}
	batch, initial, err := f.take(nil, inFlight)
	if err != nil || len(batch) != inFlight {
		t.Fatalf("take: %d keys, %v", len(batch), err)
	}
	for _, kd := range batch {
		f.Update(bo(strings.TrimPrefix(kd.Key, "ns/"), "2")) // a new entry each
	}
	ix.applyBatch(batch, nil)
	f.done(batch, initial)
	drainApplied(t, f, ix)
	slots := len(f.items.slots)
	if f.npend < n+inFlight {
		t.Fatalf("%d entries, want at least %d", f.npend, n+inFlight)
	}
	for i := kept; i < n; i++ {
		f.Delete(bo("k"+strconv.Itoa(i), "3"))
	}
	drainApplied(t, f, ix)
	checkKeyTable(t, f, ix, nil)
	if f.npend != kept || f.nknown != kept || len(f.items.slots) != slots {
		t.Fatalf("after deleting %d of %d keys: %d entries, %d known, %d slots (were %d)", n-kept, n, f.npend, f.nknown, len(f.items.slots), slots)
	}
	checkKeptHints(t, f, ix, kept)
}

// checkKeptHints checks that keys ns/k0 to ns/k<kept-1> are cached, each
// with an entry in the queue's key table that has its Indexer position.
func checkKeptHints(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj], kept int) {
	t.Helper()
	for i := range kept {
		key := "ns/k" + strconv.Itoa(i)
		pos, ok := ix.posOf(key)
		f.mu.Lock()
		q := f.queuedLocked(key)
		f.mu.Unlock()
		if !ok || q.kk == 0 || q.cached != int32(pos)+1 {
			t.Fatalf("%s: in the Indexer at %d (%v), the queue's entry says %+v", key, pos, ok, q)
		}
	}
}

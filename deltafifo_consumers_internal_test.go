package informer

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Several consumers of one DeltaFIFO over an Indexer, each taking,
// applying and handing back batches as an Informer does, while changes
// and relists are queued: two consumers may hold deltas of one key at
// once, and the key table must stay sound all the same. Once everything
// is done, every slot points at a queued or cached key's entry, counts add
// up, no entry leaked, and deleting every key empties the table.
func TestDeltaFIFOSeveralConsumers(t *testing.T) {
	rounds := 40
	if testing.Short() {
		rounds = 5
	}
	for round := range rounds {
		rng := rand.New(rand.NewPCG(uint64(round), 11))
		ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
		f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
		const keySpace = 16
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for c := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var buf []KeyDeltas[*bobj]
				for {
					batch, initial, err := f.wait(ctx, buf[:0], 1+c)
					if err != nil {
						return
					}
					ix.applyBatch(batch, nil)
					f.done(batch, initial)
					buf = batch
				}
			}()
		}
		for i := range 3000 {
			k := rng.IntN(keySpace)
			o := bo("k"+strconv.Itoa(k), strconv.Itoa(i))
			switch r := rng.IntN(100); {
			case r < 60:
				f.Update(o)
			case r < 90:
				f.Delete(o)
			case r < 95:
				var page []*bobj
				for j := range keySpace {
					if rng.IntN(2) == 0 {
						page = append(page, bo("k"+strconv.Itoa(j), strconv.Itoa(i)))
					}
				}
				f.BeginReplace()
				if err := f.ReplaceItems(page); err != nil && !errors.Is(err, ErrDuplicateKey) {
					t.Fatal(err)
				}
				if err := f.EndReplace(); err != nil {
					t.Fatal(err)
				}
			default:
				time.Sleep(time.Microsecond)
			}
		}
		// Wait until everything is done, then stop the consumers.
		for {
			f.mu.Lock()
			quiet := f.nkeys == 0 && f.inflight == 0
			f.mu.Unlock()
			if quiet {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
		cancel()
		wg.Wait()
		// Two consumers may have applied one key's deltas out of order:
		// the table may know a key as cached that the Indexer lost.
		gone := map[string]bool{}
		for k := range keySpace {
			gone["ns/k"+strconv.Itoa(k)] = true
		}
		checkKeyTable(t, f, ix, gone)
		f.mu.Lock()
		free := 0
		for at := f.freed; at != 0; at = int32(f.pendAt(at - 1).gen) {
			free++
		}
		if f.items.n+free != int(f.npend) {
			t.Fatalf("round %d: %d entries live, %d free, %d in all: an entry leaked", round, f.items.n, free, f.npend)
		}
		f.mu.Unlock()
		for k := range keySpace {
			f.Delete(bo("k"+strconv.Itoa(k), "x"))
		}
		drainApplied(t, f, ix)
		checkKeyTable(t, f, ix, nil)
		if f.items.n != 0 || f.nknown != 0 || ix.Len() != 0 {
			t.Fatalf("round %d: after deleting every key: %d slots, %d known, %d cached", round, f.items.n, f.nknown, ix.Len())
		}
	}
}

// runHeldOps runs ops (pairs of bytes) against f feeding ix with one
// consumer that holds a batch across other operations, as an Informer's
// process loop does while the reflector queues changes and relists: the
// keys of the held batch are in flight meanwhile. It returns what was
// popped, "key:type:finalStateUnknown", in order.
func runHeldOps(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj], ops []byte) []string {
	t.Helper()
	const keySpace = 6
	var out []string
	version := 0
	obj := func(k int) *bobj {
		version++
		return bo("k"+strconv.Itoa(k), strconv.Itoa(version))
	}
	var held []KeyDeltas[*bobj]
	var heldInitial int
	take := func(max int) {
		if held != nil || f.Len() == 0 {
			return
		}
		batch, initial, err := f.take(nil, max)
		if err != nil || len(batch) == 0 {
			t.Fatalf("take: %d keys, %v", len(batch), err)
		}
		for _, kd := range batch {
			for _, d := range kd.Deltas {
				out = append(out, kd.Key+":"+d.Type.String()+":"+strconv.FormatBool(d.FinalStateUnknown))
			}
		}
		ix.applyBatch(batch, nil)
		held, heldInitial = batch, initial
	}
	done := func() {
		if held != nil {
			f.done(held, heldInitial)
			held = nil
		}
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i], ops[i+1]
		k := int(arg) % keySpace
		switch op % 8 {
		case 0, 1, 2, 3:
			queueOp(t, f, op, arg, keySpace, obj)
		case 4:
			done() // EndReplace waits for the batch in flight
			if err := f.EndReplace(); err != nil {
				t.Fatal(err)
			}
		case 5:
			take(int(arg%3) + 1)
		case 6:
			done()
		case 7:
			f.Update(obj(k))
			f.Update(obj(k))
		}
		if held == nil && f.keep {
			checkKeyTable(t, f, ix, nil)
		}
	}
	done()
	for f.Len() > 0 {
		take(2)
		done()
	}
	return out
}

// A DeltaFIFO that keeps its known keys (and marks relists in the
// Indexer) pops, per key, exactly what one over the same Indexer behind
// the interface pops, when its consumer holds a batch across changes and
// relist pages (keys in flight, entries moved), and both leave the same
// cache.
func TestDeltaFIFOKnownKeysWhileHeld(t *testing.T) {
	for seed := range uint64(3000) {
		ops := randomOps(seed, 9, 60)
		ixA := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
		fA := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ixA})
		ixB := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
		fB := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: setKnown{ixB}})
		a := perKey(runHeldOps(t, fA, ixA, ops))
		b := perKey(runHeldOps(t, fB, ixB, ops))
		for k := range keysOf(a, b) {
			if !slices.Equal(a[k], b[k]) {
				t.Fatalf("seed %d, ops %v: %s: with known keys popped\n%v\nwithout\n%v", seed, ops, k, a[k], b[k])
			}
		}
		ka, kb := ixA.Keys(), ixB.Keys()
		slices.Sort(ka)
		slices.Sort(kb)
		if !slices.Equal(ka, kb) {
			t.Fatalf("seed %d, ops %v: caches differ: %v vs %v", seed, ops, ka, kb)
		}
	}
}

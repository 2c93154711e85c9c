package informer

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// next (done, then take, a chunk of keys per hold of the lock) pops what
// done and then take pop, batch for batch, and leaves the same queue and
// cache: twins fed the same changes, relists and batch sizes (from one key
// to far more than a chunk; a first list's bulk among them), one consumed
// with next, the other with done and take.
func TestDeltaFIFONextAsDoneAndTake(t *testing.T) {
	seeds := uint64(300)
	if testing.Short() {
		seeds = 30
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 5))
		type twin struct {
			ix      *Indexer[*bobj]
			f       *DeltaFIFO[*bobj]
			held    []KeyDeltas[*bobj]
			initial int
			popped  []string
		}
		var tw [2]*twin
		for i := range tw {
			ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
			tw[i] = &twin{ix: ix, f: NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})}
			// As an Informer's (the first list a bulk), or as a plain
			// DeltaFIFO's (its keys queued one by one, taken in chunks).
			tw[i].f.bulkOK = seed%2 == 0
		}
		record := func(w *twin, batch []KeyDeltas[*bobj]) {
			w.popped = append(w.popped, "|")
			for _, kd := range batch {
				for _, d := range kd.Deltas {
					w.popped = append(w.popped, kd.Key+":"+d.Type.String()+":"+d.Object.ResourceVersion)
				}
			}
			w.ix.applyBatch(batch, nil)
		}
		const keySpace = 90
		version := 0
		// The first list, as a bulk.
		var page []*bobj
		for k := range keySpace / 2 {
			page = append(page, bo("k"+strconv.Itoa(k), "0"))
		}
		for _, w := range tw {
			w.f.BeginReplace()
			if err := w.f.ReplaceItems(page); err != nil {
				t.Fatal(err)
			}
			if err := w.f.EndReplace(); err != nil {
				t.Fatal(err)
			}
		}
		for step := range 60 {
			switch r := rng.IntN(10); {
			case r < 6: // changes
				for range rng.IntN(60) {
					version++
					o := bo("k"+strconv.Itoa(rng.IntN(keySpace)), strconv.Itoa(version))
					del := rng.IntN(8) == 0
					for _, w := range tw {
						if del {
							w.f.Delete(o)
						} else {
							w.f.Update(o)
						}
					}
				}
			case r < 7: // a relist, a page of it a bulk or not
				version++
				page = page[:0]
				for k := range keySpace {
					if rng.IntN(3) > 0 {
						page = append(page, bo("k"+strconv.Itoa(k), strconv.Itoa(version)))
					}
				}
				for i, w := range tw {
					if tw[i].held != nil {
						// EndReplace waits for the batch in flight.
						w.f.done(w.held, w.initial)
						w.held = nil
					}
					w.f.BeginReplace()
					if err := w.f.ReplaceItems(slices.Clone(page)); err != nil {
						t.Fatal(err)
					}
					if err := w.f.EndReplace(); err != nil {
						t.Fatal(err)
					}
				}
			default: // a batch: the last one done, the next taken
				max := []int{1, 7, holdChunk, holdChunk + 1, 40, 128}[rng.IntN(6)]
				a, b := tw[0], tw[1]
				batch, initial, _, err := a.f.next(a.held, a.initial, nil, max)
				if err != nil {
					t.Fatal(err)
				}
				a.held, a.initial = nil, 0
				if len(batch) > 0 {
					record(a, batch)
					a.held, a.initial = batch, initial
				}
				if b.held != nil {
					b.f.done(b.held, b.initial)
					b.held = nil
				}
				batch, initial, err = b.f.take(nil, max)
				if err != nil {
					t.Fatal(err)
				}
				if len(batch) > 0 {
					record(b, batch)
					b.held, b.initial = batch, initial
				}
			}
			if la, lb := tw[0].f.Len(), tw[1].f.Len(); la != lb {
				t.Fatalf("seed %d, step %d: %d keys queued with next, %d with take", seed, step, la, lb)
			}
			if sa, sb := tw[0].f.HasSynced(), tw[1].f.HasSynced(); sa != sb {
				t.Fatalf("seed %d, step %d: synced %t with next, %t with take", seed, step, sa, sb)
			}
		}
		for _, w := range tw {
			if w.held != nil {
				w.f.done(w.held, w.initial)
				w.held = nil
			}
			for w.f.Len() > 0 {
				batch, initial, err := w.f.take(nil, 50)
				if err != nil {
					t.Fatal(err)
				}
				record(w, batch)
				w.f.done(batch, initial)
			}
			checkKeyTable(t, w.f, w.ix, nil)
		}
		if !slices.Equal(tw[0].popped, tw[1].popped) {
			t.Fatalf("seed %d: next popped\n%v\ndone and take popped\n%v", seed, tw[0].popped, tw[1].popped)
		}
		if a, b := tw[0].ix.Keys(), tw[1].ix.Keys(); len(a) != len(b) {
			t.Fatalf("seed %d: caches differ: %d keys vs %d", seed, len(a), len(b))
		}
	}
}

// A consumer using next, as the process loop does (the batch it hands
// back and the one it takes in one array), while a producer queues
// changes and, now and then, a relist of every key (BeginReplace,
// ReplaceItems, EndReplace, which pauses the queue and waits for the batch
// in flight): the lock is given up between chunks, and changes land
// meanwhile on keys in flight. Nothing hangs, every key ends with its last
// change cached, each key's changes are popped in the order they were
// queued (a relist restates the version popped last), and the key table
// is sound.
func TestDeltaFIFONextWhileQueueing(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
		f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
		const keySpace, changes = 300, 20000
		ctx, cancel := context.WithCancel(context.Background())
		last := map[string]int{} // the consumer's: the last version popped per key
		var bad string
		var wg sync.WaitGroup
		wg.Go(func() {
			buf := make([]KeyDeltas[*bobj], 0, 128)
			var held []KeyDeltas[*bobj]
			heldInitial := 0
			for {
				batch, initial, _, err := f.next(held, heldInitial, buf[:0], 128)
				held, heldInitial = nil, 0
				if err != nil {
					return
				}
				if len(batch) == 0 {
					select {
					case <-f.ready:
					case <-ctx.Done():
						return
					}
					continue
				}
				for _, kd := range batch {
					for _, d := range kd.Deltas {
						v, _ := strconv.Atoi(d.Object.ResourceVersion)
						if (v < last[kd.Key] || v == last[kd.Key] && d.Type != DeltaReplaced) && bad == "" {
							bad = kd.Key + ": version " + strconv.Itoa(v) + " after " + strconv.Itoa(last[kd.Key])
						}
						last[kd.Key] = v
					}
				}
				ix.applyBatch(batch, nil)
				held, heldInitial = batch, initial
			}
		})
		rng := rand.New(rand.NewPCG(uint64(round), 3))
		want := map[string]int{}
		for v := 1; v <= changes; v++ {
			k := "k" + strconv.Itoa(rng.IntN(keySpace))
			f.Update(bo(k, strconv.Itoa(v)))
			want["ns/"+k] = v
			if v%2500 == 0 {
				page := make([]*bobj, 0, len(want))
				for k, v := range want {
					page = append(page, bo(strings.TrimPrefix(k, "ns/"), strconv.Itoa(v)))
				}
				f.BeginReplace()
				if err := f.ReplaceItems(page); err != nil {
					t.Fatal(err)
				}
				if err := f.EndReplace(); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Wait for the consumer to apply the last change of every key.
		deadline := time.Now().Add(time.Minute)
		for !appliedAll(ix, want) {
			if time.Now().After(deadline) {
				cancel()
				t.Fatalf("round %d: the last changes not applied after a minute", round)
			}
			runtime.Gosched()
		}
		cancel()
		wg.Wait()
		if bad != "" {
			t.Fatalf("round %d: popped out of order: %s", round, bad)
		}
		checkKeyTable(t, f, ix, nil)
	}
}

// appliedAll reports whether ix holds, for every key of want, the object
// of the version want says.
func appliedAll(ix *Indexer[*bobj], want map[string]int) bool {
	for k, v := range want {
		o, ok := ix.Get(k)
		if !ok || o.ResourceVersion != strconv.Itoa(v) {
			return false
		}
	}
	return true
}

// The first change of a cached key shares the Indexer's key string and
// carries its position, unless the Indexer's lock is held (by the process
// loop, applying a batch): the reflector then does not wait for it, and
// the key is a string of its own, with no position; the change is
// applied all the same.
func TestDeltaFIFOInternWhileIndexerBusy(t *testing.T) {
	ix := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ix})
	f.bulkOK = true // as an Informer's: the first list a bulk, its keys in the Indexer only
	f.BeginReplace()
	if err := f.ReplaceItems([]*bobj{bo("a", "1"), bo("b", "1")}); err != nil {
		t.Fatal(err)
	}
	if err := f.EndReplace(); err != nil {
		t.Fatal(err)
	}
	drainApplied(t, f, ix)
	stored, _, pos, _ := ix.internKey([]byte("ns/a"), ix.items.hashBytes([]byte("ns/a")), false)

	f.Update(bo("a", "2")) // the Indexer free
	ix.mu.Lock()
	f.Update(bo("b", "2")) // the Indexer busy
	ix.mu.Unlock()
	batch, initial, err := f.take(nil, 2)
	if err != nil || len(batch) != 2 {
		t.Fatalf("take: %d keys, %v", len(batch), err)
	}
	a, b := batch[0], batch[1]
	if a.Key != "ns/a" || b.Key != "ns/b" {
		t.Fatalf("took %q, %q", a.Key, b.Key)
	}
	if unsafe.StringData(a.Key) != unsafe.StringData(stored) || a.cached != pos+1 {
		t.Errorf("a, the Indexer free: key shared %t, position hint %d, want %d",
			unsafe.StringData(a.Key) == unsafe.StringData(stored), a.cached, pos+1)
	}
	if b.cached != 0 {
		t.Errorf("b, the Indexer busy: position hint %d, want none", b.cached)
	}
	ix.applyBatch(batch, nil)
	f.done(batch, initial)
	for _, k := range []string{"ns/a", "ns/b"} {
		if o, ok := ix.Get(k); !ok || o.ResourceVersion != "2" {
			t.Errorf("%s: cached %v, want version 2", k, o)
		}
	}
	checkKeyTable(t, f, ix, nil)

	// Once stored, b's entry keeps the Indexer's string: its next change
	// carries it and the position, and takes the update's fast path.
	storedB, _, posB, _ := ix.internKey([]byte("ns/b"), ix.items.hashBytes([]byte("ns/b")), false)
	f.Update(bo("b", "3"))
	batch, initial, err = f.take(nil, 1)
	if err != nil || len(batch) != 1 {
		t.Fatalf("take: %d keys, %v", len(batch), err)
	}
	if b := batch[0]; unsafe.StringData(b.Key) != unsafe.StringData(storedB) || b.cached != posB+1 {
		t.Errorf("b's next change: key shared %t, position hint %d, want %d",
			unsafe.StringData(b.Key) == unsafe.StringData(storedB), b.cached, posB+1)
	}
	ix.applyBatch(batch, nil)
	f.done(batch, initial)
	checkKeyTable(t, f, ix, nil)
}

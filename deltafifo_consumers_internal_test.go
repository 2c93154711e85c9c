package informer

import (
	"context"
	"errors"
	"math/rand/v2"
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

package informer

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The key table against a map: random queueing and popping of keys from a
// set large enough for the table to grow, wrap around and shift clusters
// back on removal; after every step each key is found exactly when queued.
func TestDeltaFIFOKeyTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{})
	const nkeys = 3000
	objs := make([]*bobj, nkeys)
	for i := range objs {
		objs[i] = bo("k"+strconv.Itoa(i), "1")
	}
	queued := map[string]bool{}
	check := func(step int) {
		t.Helper()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.items.n != len(queued) {
			t.Fatalf("step %d: table holds %d keys, want %d", step, f.items.n, len(queued))
		}
		for _, o := range objs {
			key := "ns/" + o.Name
			q := f.queuedLocked(key)
			if got := q.at != noPending; got != queued[key] {
				t.Fatalf("step %d: %s queued = %v, want %v", step, key, got, queued[key])
			}
			if q.at != noPending && f.pendAt(q.at).key != key {
				t.Fatalf("step %d: %s found at the entry of %s", step, key, f.pendAt(q.at).key)
			}
		}
	}
	ctx := context.Background()
	for step := range 400 {
		// Bursts of adds, then of pops, so that the queue swings between
		// empty and a few thousand keys.
		if step%40 < 20 {
			for range rng.IntN(300) {
				o := objs[rng.IntN(nkeys)]
				if err := f.Update(o); err != nil {
					t.Fatal(err)
				}
				queued["ns/"+o.Name] = true
			}
		} else {
			for range rng.IntN(300) {
				if f.Len() == 0 {
					break
				}
				err := f.PopBatch(ctx, 1+rng.IntN(8), func(batch []KeyDeltas[*bobj]) error {
					for _, kd := range batch {
						delete(queued, kd.Key)
					}
					return nil
				}, nil)
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		check(step)
	}
}

// Removal keeps every remaining key reachable from its home slot, also
// when a cluster wraps around the end of the table: hashes chosen to pile
// up at the end of a 16-slot table, inserted and removed at random.
func TestKeyTableWrappedClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tb keyTable
	tb.resize(16)
	live := map[int32]uint32{} // at → hash
	next := int32(0)
	reachable := func(h uint32, at int32) bool {
		mask := uint32(len(tb.slots) - 1)
		for i := h & mask; tb.slots[i].at1 != 0; i = (i + 1) & mask {
			if tb.slots[i].at1 == at+1 {
				return true
			}
		}
		return false
	}
	for step := range 20000 {
		if len(live) < 10 && (len(live) == 0 || rng.IntN(2) == 0) {
			h := uint32(13+rng.IntN(6)) % 16 // homes 13, 14, 15, 0, 1, 2
			tb.insert(qpos{at: noPending, idx: -1, hash: h}, next+1)
			live[next] = h
			next++
		} else {
			for at, h := range live { // a random one
				tb.remove(h, at+1)
				delete(live, at)
				break
			}
		}
		if len(tb.slots) != 16 {
			t.Fatalf("the table grew to %d slots", len(tb.slots))
		}
		if tb.n != len(live) {
			t.Fatalf("step %d: %d keys, want %d", step, tb.n, len(live))
		}
		for at, h := range live {
			if !reachable(h, at) {
				t.Fatalf("step %d: entry %d (home %d) is not reachable from its home", step, at, h)
			}
		}
	}
}

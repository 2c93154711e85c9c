package informer

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// setKnown hides an *Indexer behind the KnownObjects interface, so that a
// DeltaFIFO over it keeps the keys a relist saw in a set instead of marking
// them in the Indexer: the reference for the marks.
type setKnown struct{ ix *Indexer[*bobj] }

func (k setKnown) Get(key string) (*bobj, bool)  { return k.ix.Get(key) }
func (k setKnown) All() iter.Seq2[string, *bobj] { return k.ix.All() }

// runRelistOps runs ops (pairs of bytes) against a DeltaFIFO feeding ix:
// watch events, relists in pages with pops between them, and pops that
// apply to ix. It returns what was popped, in order.
func runRelistOps(t *testing.T, f *DeltaFIFO[*bobj], ix *Indexer[*bobj], ops []byte) []string {
	t.Helper()
	const keySpace = 8
	var out []string
	version := 0
	obj := func(k int) *bobj {
		version++
		return bo("k"+strconv.Itoa(k), strconv.Itoa(version))
	}
	pop := func(max int) {
		if f.Len() == 0 {
			return
		}
		err := f.PopBatch(context.Background(), max, func(batch []KeyDeltas[*bobj]) error {
			for _, kd := range batch {
				for _, d := range kd.Deltas {
					out = append(out, fmt.Sprintf("%s:%s:%v", kd.Key, d.Type, d.FinalStateUnknown))
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
			f.Add(obj(k))
		case 1:
			f.Update(obj(k))
		case 2:
			f.Delete(obj(k))
		case 3:
			f.BeginReplace()
		case 4: // a page: the keys of the mask
			var page []*bobj
			for j := range keySpace {
				if arg&(1<<j) != 0 {
					page = append(page, obj(j))
				}
			}
			if err := f.ReplaceItems(page); err != nil && !errors.Is(err, ErrDuplicateKey) {
				t.Fatal(err)
			}
		case 5:
			if err := f.EndReplace(); err != nil {
				t.Fatal(err)
			}
		case 6:
			pop(int(arg%3) + 1)
		case 7:
			if err := f.Resync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for f.Len() > 0 {
		pop(2)
	}
	return out
}

// checkMarksMatchSet runs ops with relists that mark the Indexer and with
// relists that keep a set, and requires the same deltas and caches.
func checkMarksMatchSet(t *testing.T, ops []byte) {
	ixA := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	fA := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: ixA})
	ixB := NewIndexer(IndexerOptions[*bobj]{NamespaceIndex: true})
	fB := NewDeltaFIFO(DeltaFIFOOptions[*bobj]{KnownObjects: setKnown{ixB}})
	if fA.marks == nil || fB.marks != nil {
		t.Fatal("the two queues do not use the two ways")
	}
	// Keys queued by one relist come out in any order among themselves:
	// compare each key's deltas.
	a := perKey(runRelistOps(t, fA, ixA, ops))
	b := perKey(runRelistOps(t, fB, ixB, ops))
	for k := range keysOf(a, b) {
		if !slices.Equal(a[k], b[k]) {
			t.Fatalf("ops %v: %s: marks popped\n%v\nthe set\n%v", ops, k, a[k], b[k])
		}
	}
	ka, kb := ixA.Keys(), ixB.Keys()
	slices.Sort(ka)
	slices.Sort(kb)
	if !slices.Equal(ka, kb) {
		t.Fatalf("caches differ: %v vs %v", ka, kb)
	}
}

func perKey(popped []string) map[string][]string {
	m := map[string][]string{}
	for _, p := range popped {
		k, d, _ := strings.Cut(p, ":")
		m[k] = append(m[k], d)
	}
	return m
}

func keysOf(a, b map[string][]string) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// TestDeltaFIFORelistMarks: a relist that marks the keys it saw in the
// Indexer infers exactly the deletions a relist keeping a set of them does,
// with pops, watch events and resyncs between its pages.
func TestDeltaFIFORelistMarks(t *testing.T) {
	for seed := range uint64(3000) {
		ops := randomOps(seed, 1, 60)
		t.Run(strconv.Itoa(int(seed)), func(t *testing.T) { checkMarksMatchSet(t, ops) })
	}
}

func FuzzDeltaFIFORelistMarks(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 6, 2, 3, 0, 4, 0x03, 6, 1, 4, 0x04, 5, 0, 6, 2})
	f.Add([]byte{0, 1, 0, 2, 6, 2, 3, 0, 4, 0x01, 6, 0, 2, 1, 4, 0x01, 5, 0, 6, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 256 {
			ops = ops[:256]
		}
		checkMarksMatchSet(t, ops)
	})
}

// randomOps returns a seeded sequence of op and argument bytes, 10 to
// 10+n-1 pairs, for the tests that replay them on two queues.
func randomOps(seed, stream uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, stream))
	ops := make([]byte, 2*(10+r.IntN(n)))
	for i := range ops {
		ops[i] = byte(r.UintN(256))
	}
	return ops
}

// queueOp applies op 0 to 3 of the replayed sequences to f: an update or
// a deletion of key arg % keySpace, a relist's beginning, a page of the
// keys in arg's bits (obj makes each object).
func queueOp(t *testing.T, f *DeltaFIFO[*bobj], op, arg byte, keySpace int, obj func(k int) *bobj) {
	t.Helper()
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
	}
}

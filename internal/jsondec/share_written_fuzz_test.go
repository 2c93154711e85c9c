package jsondec

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/informer-go/informer/internal/share/sharetest"
)

// FuzzSharedWrites is FuzzSharedKeepsValues with a write step (issue 34):
// input after input through one table, the values decoded through it are
// kept and written into as a careless program would
// (sharetest.Scribble, seeded by the input), and every decode after the
// writes must equal the decode of its bytes without a table, whatever
// was written into the values of earlier ones.
func FuzzSharedWrites(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(uint8(i), i%2 == 0, uint64(i), s)
	}
	pod := podJSON(f)
	for i := range sharedFuzzTargets {
		f.Add(uint8(i), true, uint64(i), pod)
	}
	f.Add(uint8(0), true, uint64(1), []byte(`{"metadata":{"labels":{"a":"b","c":"d"}},"metadata":{"labels":{"e":"f"}}}`))
	f.Add(uint8(0), true, uint64(2), []byte(`{"metadata":{"labels":{"":"","c":"d"}}}`))
	s := NewShared(0)
	var held []any
	next := 0
	f.Fuzz(func(t *testing.T, which uint8, kube bool, seed uint64, data []byte) {
		typ := sharedFuzzTargets[int(which)%len(sharedFuzzTargets)]
		r := rand.New(rand.NewPCG(seed, uint64(len(data))))
		dec, shared := Unmarshal, s.Unmarshal
		if kube {
			dec, shared = UnmarshalKube, s.UnmarshalKube
		}
		want := reflect.New(typ).Interface()
		if dec(data, want) != nil || !reflect.DeepEqual(want, want) {
			return // an error (FuzzSharedKeepsValues compares those), or a NaN
		}
		for i := range 4 {
			got := reflect.New(typ).Interface()
			if err := shared(data, got); err != nil {
				t.Fatalf("%v ← %q: decode %d through the table: %v; without: none", typ, data, i, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%v ← %q: decode %d through the table, after writes into values decoded before, gives\n%s\nwithout a table\n%s", typ, data, i, dump(got), dump(want))
			}
			if len(held) < 64 {
				held = append(held, got)
			} else {
				held[next] = got
				next = (next + 1) % len(held)
			}
			// A write into this decode or an earlier one.
			sharetest.Scribble(held[r.IntN(len(held))], r)
		}
	})
}

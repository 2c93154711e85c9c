package shard_test

import (
	"math/rand/v2"
	"testing"

	"github.com/informer-go/informer/shard"
)

func TestSplitCoversSpace(t *testing.T) {
	for n := 1; n <= 9; n++ {
		var got []shard.Range
		for i := range n {
			got = append(got, shard.Split(n, i))
		}
		if got[0].Start != 0 || got[n-1].End != 0 {
			t.Fatalf("n=%d: %v does not start at 0 and end at 2^64", n, got)
		}
		for i := 1; i < n; i++ {
			if got[i].Start != got[i-1].End {
				t.Fatalf("n=%d: gap or overlap between %v and %v", n, got[i-1], got[i])
			}
		}
		if s := shard.NewSet(got...); !s.IsAll() {
			t.Fatalf("n=%d: union %v, want everything", n, s)
		}
	}
	if r := shard.Split(2, 1); r.Start != 1<<63 || r.End != 0 {
		t.Fatalf("Split(2,1) = %v", r)
	}
	if r := shard.Split(4, 1); r.Start != 1<<62 || r.End != 1<<63 {
		t.Fatalf("Split(4,1) = %v", r)
	}
}

func TestSetOperations(t *testing.T) {
	r := func(a, b uint64) shard.Range { return shard.Range{Start: a, End: b} }
	tests := []struct {
		name       string
		a, b       shard.Set
		inter, sub shard.Set
	}{
		{"disjoint", shard.NewSet(r(0, 10)), shard.NewSet(r(20, 30)), nil, shard.NewSet(r(0, 10))},
		{"inside", shard.NewSet(r(0, 100)), shard.NewSet(r(20, 30)), shard.NewSet(r(20, 30)), shard.NewSet(r(0, 20), r(30, 100))},
		{"to the end", shard.All(), shard.NewSet(r(1<<63, 0)), shard.NewSet(r(1<<63, 0)), shard.NewSet(r(0, 1<<63))},
		{"adjacent merge", shard.NewSet(r(0, 10), r(10, 20)), shard.NewSet(r(5, 15)), shard.NewSet(r(5, 15)), shard.NewSet(r(0, 5), r(15, 20))},
		{"everything minus everything", shard.All(), shard.All(), shard.All(), nil},
		{"empty", nil, shard.All(), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Intersect(tc.b); !got.Equal(tc.inter) {
				t.Errorf("%v ∩ %v = %v, want %v", tc.a, tc.b, got, tc.inter)
			}
			if got := tc.a.Subtract(tc.b); !got.Equal(tc.sub) {
				t.Errorf("%v − %v = %v, want %v", tc.a, tc.b, got, tc.sub)
			}
			if got := tc.a.Overlaps(tc.b); got != !tc.inter.Empty() {
				t.Errorf("Overlaps = %v", got)
			}
		})
	}
}

// TestSetAgainstPoints checks the set operations against membership of
// random hashes, on random sets.
func TestSetAgainstPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randSet := func() shard.Set {
		var rs []shard.Range
		for range rng.IntN(4) {
			a, b := rng.Uint64()>>rng.UintN(4), rng.Uint64()
			if a > b {
				a, b = b, a
			}
			if a == b {
				continue
			}
			if rng.IntN(4) == 0 {
				b = 0
			}
			rs = append(rs, shard.Range{Start: a, End: b})
		}
		return shard.NewSet(rs...)
	}
	for range 500 {
		a, b := randSet(), randSet()
		in, sub := a.Intersect(b), a.Subtract(b)
		points := []uint64{0, ^uint64(0)}
		for _, s := range []shard.Set{a, b} {
			for _, r := range s {
				points = append(points, r.Start, r.Start-1, r.End, r.End-1)
			}
		}
		for range 50 {
			points = append(points, rng.Uint64())
		}
		for _, h := range points {
			ia, ib := a.Contains(h), b.Contains(h)
			if in.Contains(h) != (ia && ib) || sub.Contains(h) != (ia && !ib) {
				t.Fatalf("a=%v b=%v h=%#x: ∩ %v − %v", a, b, h, in, sub)
			}
		}
		for i := 1; i < len(in); i++ {
			if in[i-1].End == 0 || in[i].Start <= in[i-1].End {
				t.Fatalf("not normalised: %v", in)
			}
		}
	}
}

func TestFraction(t *testing.T) {
	if f := shard.All().Fraction(); f != 1 {
		t.Fatalf("All: %v", f)
	}
	if f := shard.NewSet(shard.Split(4, 1), shard.Split(4, 3)).Fraction(); f != 0.5 {
		t.Fatalf("half: %v", f)
	}
}

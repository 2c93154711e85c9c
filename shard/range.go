package shard

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Range is the half-open interval [Start, End) of the 64-bit hash space.
// End 0 stands for 2^64, the end of the space, so Range{} is the whole
// space; a Range never holds nothing (use an empty Set for that).
type Range struct {
	Start, End uint64
}

// Full is the whole hash space.
var Full = Range{}

// Contains reports whether hash h falls in r.
func (r Range) Contains(h uint64) bool {
	return h >= r.Start && (r.End == 0 || h < r.End)
}

// last returns the last hash in r.
func (r Range) last() uint64 { return r.End - 1 } // End 0 wraps to MaxUint64

// String returns r as "[0x…, 0x…)".
func (r Range) String() string { return "[" + hexStart(r.Start) + ", " + hexEnd(r.End) + ")" }

// Split returns the i-th of n equal ranges of the hash space (0 ≤ i < n):
// [⌊i·2^64/n⌋, ⌊(i+1)·2^64/n⌋). The n ranges cover the space exactly.
// It panics unless 0 ≤ i < n.
func Split(n, i int) Range {
	if n <= 0 || i < 0 || i >= n {
		panic(fmt.Sprintf("shard.Split(%d, %d): want 0 <= i < n", n, i))
	}
	return Range{Start: boundary(n, i), End: boundary(n, i+1)}
}

// boundary is ⌊i·2^64/n⌋, 0 for i = n (2^64).
func boundary(n, i int) uint64 {
	if i == n {
		return 0
	}
	q, _ := bits.Div64(uint64(i), 0, uint64(n))
	return q
}

// Set is a set of hashes: sorted, non-overlapping, non-adjacent ranges.
// Build one with NewSet (which normalises); the zero value is empty.
type Set []Range

// NewSet returns the union of rs as a normalised Set.
func NewSet(rs ...Range) Set {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b Range) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	var out Set
	for _, r := range s {
		if n := len(out); n > 0 && (out[n-1].End == 0 || r.Start <= out[n-1].End) {
			if out[n-1].End != 0 && (r.End == 0 || r.End > out[n-1].End) {
				out[n-1].End = r.End
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// All is the Set of the whole hash space.
func All() Set { return Set{Full} }

// Empty reports whether s holds no hash.
func (s Set) Empty() bool { return len(s) == 0 }

// IsAll reports whether s is the whole hash space.
func (s Set) IsAll() bool { return len(s) == 1 && s[0] == Full }

// Contains reports whether hash h is in s.
func (s Set) Contains(h uint64) bool {
	for _, r := range s {
		if r.Contains(h) {
			return true
		}
	}
	return false
}

// Equal reports whether s and o hold the same hashes (both normalised).
func (s Set) Equal(o Set) bool { return slices.Equal(s, o) }

// Intersect returns the hashes in both s and o.
func (s Set) Intersect(o Set) Set {
	var out []Range
	for _, a := range s {
		for _, b := range o {
			start := max(a.Start, b.Start)
			last := min(a.last(), b.last())
			if start > last {
				continue
			}
			end := last + 1 // 0 when last is MaxUint64: 2^64
			out = append(out, Range{Start: start, End: end})
		}
	}
	return NewSet(out...)
}

// Overlaps reports whether s and o share a hash.
func (s Set) Overlaps(o Set) bool { return !s.Intersect(o).Empty() }

// Subtract returns the hashes of s that are not in o.
func (s Set) Subtract(o Set) Set {
	cur := slices.Clone(s)
	for _, b := range o {
		var next []Range
		for _, a := range cur {
			next = append(next, cut(a, b)...)
		}
		cur = next
	}
	return NewSet(cur...)
}

// cut returns the parts of a outside b.
func cut(a, b Range) []Range {
	start, last := max(a.Start, b.Start), min(a.last(), b.last())
	if start > last {
		return []Range{a}
	}
	var out []Range
	if a.Start < start {
		out = append(out, Range{Start: a.Start, End: start})
	}
	if last < a.last() {
		out = append(out, Range{Start: last + 1, End: a.End})
	}
	return out
}

// Fraction returns the share of the hash space that s holds, in [0, 1].
func (s Set) Fraction() float64 {
	var f float64
	for _, r := range s {
		f += float64(r.last()-r.Start) + 1
	}
	return f / (1 << 64)
}

// String returns s as its ranges joined by " ∪ ", "∅" when empty.
func (s Set) String() string {
	if len(s) == 0 {
		return "∅"
	}
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.String()
	}
	return strings.Join(parts, " ∪ ")
}

func hexStart(v uint64) string { return fmt.Sprintf("0x%016x", v) }

func hexEnd(v uint64) string {
	if v == 0 {
		return "0x10000000000000000"
	}
	return hexStart(v)
}

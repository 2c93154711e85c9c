package ring

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/informer-go/informer/shard"
)

// Labels and annotations of a member's Lease.
const (
	// LabelRing names the ring a Lease belongs to (Options.Name).
	LabelRing = "ring.informer-go.io/name"
	// AnnotationClaim lists the ranges the member works or is about to
	// work: "start-end" hex pairs joined by commas (end 10000000000000000
	// is 2^64), "" for none. Others never start work in them.
	AnnotationClaim = "ring.informer-go.io/claim"
)

// Assign returns the ranges of member me when the live members are
// members: the hash space split into len(members) equal ranges, given in
// the order of the sorted identities. Empty when me is not a member.
//
// Equal ranges rather than consistent hashing: each member's share is
// one shardRange clause, which the apiserver evaluates per object and
// watcher, and the shares are exactly equal (uids hash evenly), where
// consistent hashing needs many virtual nodes (many clauses) to come
// within 10% of that. The cost is movement: going from n to n+1 members
// moves about half the keys instead of 1/(n+1); the handoff protocol
// makes that safe, and a member's new range syncs from one filtered list.
func Assign(members []string, me string) shard.Set {
	ms := slices.Clone(members)
	slices.Sort(ms)
	ms = slices.Compact(ms)
	i := slices.Index(ms, me)
	if i < 0 {
		return nil
	}
	return shard.NewSet(shard.Split(len(ms), i))
}

// encodeClaim writes s for AnnotationClaim.
func encodeClaim(s shard.Set) string {
	parts := make([]string, len(s))
	for i, r := range s {
		end := fmt.Sprintf("%016x", r.End)
		if r.End == 0 {
			end = "10000000000000000"
		}
		parts[i] = fmt.Sprintf("%016x-%s", r.Start, end)
	}
	return strings.Join(parts, ",")
}

// decodeClaim reads AnnotationClaim. What it cannot read claims the
// whole space: a member whose claim is unreadable keeps everyone out
// until its lease expires and it is evicted, never lets two in.
func decodeClaim(v string) (shard.Set, bool) {
	if v == "" {
		return nil, true
	}
	var rs []shard.Range
	for p := range strings.SplitSeq(v, ",") {
		a, b, ok := strings.Cut(p, "-")
		if !ok {
			return shard.All(), false
		}
		start, err1 := strconv.ParseUint(a, 16, 64)
		var end uint64
		var err2 error
		if b != "10000000000000000" {
			end, err2 = strconv.ParseUint(b, 16, 64)
			if err2 == nil && end <= start {
				return shard.All(), false
			}
		}
		if err1 != nil || err2 != nil {
			return shard.All(), false
		}
		rs = append(rs, shard.Range{Start: start, End: end})
	}
	return shard.NewSet(rs...), true
}

// leaseName is the name of a member's Lease: the ring's name, "-", and
// the identity in lower case with what a name cannot hold replaced by
// "-", cut to 253 characters.
func leaseName(ring, identity string) string {
	b := []byte(strings.ToLower(identity))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '.' {
			b[i] = '-'
		}
	}
	n := ring + "-" + strings.Trim(string(b), "-.")
	if len(n) > 253 {
		n = strings.TrimRight(n[:253], "-.")
	}
	return n
}

package informer

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// The applied version never moves back to a version the Source orders
// before it, but to a list's (sets after a list: "rv@lists", the count of
// completed lists); versions it cannot order follow the reflector.
func TestAppliedMonotonicByTheSourcesOrder(t *testing.T) {
	cases := []struct {
		name  string
		order versionOrder
		sets  []string
		want  string
	}{
		{"numeric order: stays at the newer", CompareNumericVersions, []string{"3", "2"}, "3"},
		{"numeric order: moves on", CompareNumericVersions, []string{"3", "4"}, "4"},
		{"numeric order: unorderable follows", CompareNumericVersions, []string{"3", "etag-a"}, "etag-a"},
		{"numeric order: back to a relist's version", CompareNumericVersions, []string{"30@1", "2@2"}, "2"},
		{"numeric order: no relist, stays", CompareNumericVersions, []string{"30@1", "31@1", "2@1"}, "31"},
		{"no order: follows", nil, []string{"3", "2"}, "2"},
		{"empty ignored", nil, []string{"3", ""}, "3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := applied{order: tc.order}
			for _, set := range tc.sets {
				rv, lists, _ := strings.Cut(set, "@")
				n, _ := strconv.ParseUint(lists, 10, 64)
				a.set(rv, n)
			}
			if got, _ := a.get(); got != tc.want {
				t.Errorf("applied %q, want %q", got, tc.want)
			}
		})
	}
}

// One rule orders versions, for the reflector (an event older than the
// stream's version is out of order) and for the applied version
// (WaitForResourceVersion): the Source's VersionComparer, and without one,
// none (numbers are not taken for ordered). A change at the very version
// the stream reached is never out of order.
func TestOneVersionRule(t *testing.T) {
	opaque := func(a, b string) (int, bool) { return 0, false }
	pairs := [][2]string{{"3", "5"}, {"5", "5"}, {"5", "3"}, {"10", "9"}, {"a", "b"}, {"3", ""}}
	for _, tc := range []struct {
		name  string
		order versionOrder
		older map[[2]string]bool // the pairs where the first is older
	}{
		{"no comparer", nil, nil},
		{"numeric", CompareNumericVersions, map[[2]string]bool{{"3", "5"}: true}},
		{"opaque comparer", opaque, nil},
	} {
		r := &Reflector[*bobj]{order: tc.order}
		for _, p := range pairs {
			want := tc.older[p]
			if got := r.older(newVersion(p[0]), newVersion(p[1])); got != want {
				t.Errorf("%s: reflector: %q older than %q = %t, want %t", tc.name, p[0], p[1], got, want)
			}
			if got := tc.order.older(p[0], p[1]); got != want {
				t.Errorf("%s: versionOrder: %q older than %q = %t, want %t", tc.name, p[0], p[1], got, want)
			}
			// WaitForResourceVersion: applied p[1] reaches p[0] when it is
			// the same, or ordered after it.
			if p[1] != "" {
				if got, want := tc.order.reached(p[1], p[0]), p[0] == p[1] || want; got != want {
					t.Errorf("%s: applied %q reached %q = %t, want %t", tc.name, p[1], p[0], got, want)
				}
			}
		}
	}
}

// A completed list publishes its version and the count of lists in one
// step, before the sink's Progress: a reader never sees the list's version
// with the count before it. (The process loop, reading the version without
// the count, took the list as applied but not as a list; waits then
// blocked while the informer seemed to relist: TestWaitForResourceVersionAfterQuietList.)
func TestListedPublishesVersionAndCountTogether(t *testing.T) {
	var p published
	var seen []string
	p.onProgress = func() {
		rv, lists := p.progress()
		seen = append(seen, rv+"@"+strconv.FormatUint(lists, 10))
	}
	p.setLastRV("5")
	p.listed("7")
	p.listed("7")
	if got, want := strings.Join(seen, " "), "5@0 7@1 7@2"; got != want {
		t.Fatalf("Progress saw %s, want %s", got, want)
	}
}

// The process loop, about to wait with the queue found empty, goes round
// again when the reflector counted a list since the loop read its progress,
// even at the same version (a relist that found nothing changed): its
// Progress may have come while the loop was busy, and nothing else would
// wake it to see the relist applied.
func TestWaitForWorkAfterAListAtTheSameVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf := New[*bobj](noSource{}, Options[*bobj]{})
		inf.isSynced = true
		inf.refl.pub.listed("5")
		rs := newResyncer[*bobj]()
		defer rs.stop()
		returned := make(chan bool, 1)
		go func() { returned <- inf.waitForWork(t.Context(), rs, "5", 0) }()
		synctest.Wait()
		select {
		case ok := <-returned:
			if !ok {
				t.Fatal("waitForWork returned false")
			}
		default:
			t.Fatal("waitForWork waits although a list was counted since progress was read")
		}
	})
}

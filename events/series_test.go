package events_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/events"
)

// TestWhatMakesTheSameEvent: an event is the same as an earlier one, and
// counted in its series, when its regarding and related objects, type,
// reason and action are the same; the note and the objects'
// resourceVersions do not count. An event that differs in any of the
// five is an Event of its own.
func TestWhatMakesTheSameEvent(t *testing.T) {
	src1, src2 := cm("src1"), cm("src2")
	newer := cm("a")
	newer.ResourceVersion = "2"
	type ev struct {
		regarding           events.ObjectReference
		related             *events.ObjectReference
		typ, reason, action string
		note                string
	}
	first := ev{cm("a"), &src1, events.Normal, "Mirrored", "Update", "first"}
	for _, tc := range []struct {
		name string
		then ev
		same bool
	}{
		{"the same", first, true},
		{"another note", ev{cm("a"), &src1, events.Normal, "Mirrored", "Update", "second"}, true},
		{"another version of the object", ev{newer, &src1, events.Normal, "Mirrored", "Update", "first"}, true},
		{"another regarding object", ev{cm("b"), &src1, events.Normal, "Mirrored", "Update", "first"}, false},
		{"another related object", ev{cm("a"), &src2, events.Normal, "Mirrored", "Update", "first"}, false},
		{"no related object", ev{cm("a"), nil, events.Normal, "Mirrored", "Update", "first"}, false},
		{"another type", ev{cm("a"), &src1, events.Warning, "Mirrored", "Update", "first"}, false},
		{"another reason", ev{cm("a"), &src1, events.Normal, "Copied", "Update", "first"}, false},
		{"another action", ev{cm("a"), &src1, events.Normal, "Mirrored", "Create", "first"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newStore()
				rec, stop := running(t, s, events.Options{})
				for _, e := range []ev{first, tc.then} {
					rec.Eventf(e.regarding, e.related, e.typ, e.reason, e.action, e.note)
					synctest.Wait()
				}
				want, wantSt := 2, events.Stats{Recorded: 2}
				if tc.same {
					want, wantSt = 1, events.Stats{Recorded: 1, Counted: 1}
				}
				if n := len(s.all()); n != want {
					t.Errorf("%d Events, want %d", n, want)
				}
				if st := rec.Stats(); st != wantSt {
					t.Errorf("stats %+v, want %+v", st, wantSt)
				}
				_ = stop()
			})
		})
	}
}

// TestSeriesExpiresBeforeTheSweep: an event seen again SeriesExpiry after
// its last occurrence is a new Event even before a sweep has forgotten its
// series.
func TestSeriesExpiresBeforeTheSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{SeriesExpiry: 7 * time.Second}) // sweeps every 5 s
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		time.Sleep(7500 * time.Millisecond) // expired; the sweep at 10 s would forget it
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		synctest.Wait()
		if st := rec.Stats(); st.Recorded != 2 || st.Counted != 0 {
			t.Errorf("stats %+v; want Recorded 2, Counted 0", st)
		}
		_ = stop()
	})
}

// TestShutdownWritesPendingCounts: a count not yet written (a third
// occurrence, waiting for SeriesInterval) is written when Run stops.
func TestShutdownWritesPendingCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		for range 3 {
			rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
			synctest.Wait()
		}
		if evs := s.all(); len(evs) != 1 || evs[0].Series == nil || evs[0].Series.Count != 2 {
			t.Fatalf("events %+v before the stop; want one, count 2 (the third waits)", evs)
		}
		_ = stop()
		if evs := s.all(); len(evs) != 1 || evs[0].Series == nil || evs[0].Series.Count != 3 {
			t.Errorf("events %+v after the stop; want one, count 3", evs)
		}
	})
}

// TestCacheSizeBoundsSeries: with CacheSize 2, a third event makes the
// recorder forget the least recently observed one; its next occurrence
// is a new Event, while a repeat of one still remembered is counted. The
// default (4096) remembers them all.
func TestCacheSizeBoundsSeries(t *testing.T) {
	reasons := []string{
		"One", "Two",
		"One",   // counted; Two is now the least recently observed
		"Three", // with CacheSize 2, Two is forgotten
		"One",   // still remembered: counted
		"Two",   // with CacheSize 2, forgotten: a new Event
	}
	for _, tc := range []struct {
		size     int
		byReason string
		stats    events.Stats
	}{
		{2, "map[One:1 Three:1 Two:2]", events.Stats{Recorded: 4, Counted: 2}},
		{0, "map[One:1 Three:1 Two:1]", events.Stats{Recorded: 3, Counted: 3}},
	} {
		t.Run(fmt.Sprint("CacheSize=", tc.size), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newStore()
				rec, stop := running(t, s, events.Options{CacheSize: tc.size})
				for _, reason := range reasons {
					rec.Eventf(cm("a"), nil, events.Normal, reason, "Update", "")
					synctest.Wait()
				}
				got := map[string]int{}
				for _, ev := range s.all() {
					got[ev.Reason]++
				}
				if fmt.Sprint(got) != tc.byReason {
					t.Errorf("Events by reason %v, want %s", got, tc.byReason)
				}
				if st := rec.Stats(); st != tc.stats {
					t.Errorf("stats %+v; want %+v", st, tc.stats)
				}
				_ = stop()
			})
		})
	}
}

// TestNameTakenIsRetried: a create answered 409 AlreadyExists (another
// writer has an Event of that name) is tried again, after the backoff,
// under a new name: the event is recorded, not lost.
func TestNameTakenIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		s.take.Store(1)
		rec, stop := running(t, s, events.Options{})
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		time.Sleep(time.Second)
		var ours, theirs []string
		for _, ev := range s.all() {
			if ev.ReportingController == "example.com/test" {
				ours = append(ours, ev.Name)
			} else {
				theirs = append(theirs, ev.Name)
			}
		}
		if len(ours) != 1 || len(theirs) != 1 || ours[0] == theirs[0] {
			t.Errorf("our events %q, the other writer's %q; want ours recorded under another name", ours, theirs)
		}
		if st := rec.Stats(); st.Recorded != 1 || st.Failed != 0 {
			t.Errorf("stats %+v; want Recorded 1, Failed 0", st)
		}
		_ = stop()
	})
}

// TestSeriesWrittenEverySeriesInterval: an event that repeats every second
// has its count written at once on the first repeat, then at most once per
// SeriesInterval (30 s), not on every sweep; the last count is written.
func TestSeriesWrittenEverySeriesInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		const n = 91
		for i := range n {
			if i > 0 {
				time.Sleep(time.Second)
			}
			rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		}
		time.Sleep(events.DefaultSeriesInterval + 5*time.Second)
		evs := s.all()
		if len(evs) != 1 || evs[0].Series == nil || evs[0].Series.Count != n {
			t.Fatalf("events %+v; want one with series count %d", evs, n)
		}
		// The count of 2 at once, then one write per 30 s of repeats (at 35,
		// 65 and 95 s, on the sweeps every 5 s).
		if c, p := s.counts(); c != 1 || p < 3 || p > 5 {
			t.Errorf("%d creates, %d patches in %d s of repeats; want 1 create and 4 patches or so, one per SeriesInterval", c, p, n)
		}
		_ = stop()
	})
}

// TestRepeatsTakeNoTokens: repeats of an event are counted in its series
// and take no token of the spam filter: after 30 of one event, 24 other
// events about the object still pass (25 in all), the 25th other does not.
func TestRepeatsTakeNoTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		for range 30 {
			rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		}
		for i := range 25 {
			rec.Eventf(cm("a"), nil, events.Normal, fmt.Sprint("Other", i), "Update", "")
		}
		synctest.Wait()
		if st := rec.Stats(); st.Recorded != 25 || st.Counted != 29 || st.Filtered != 1 {
			t.Errorf("stats %+v; want Recorded 25, Counted 29, Filtered 1", st)
		}
		_ = stop()
	})
}

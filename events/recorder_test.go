package events_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/events"
)

var quiet = slog.New(slog.DiscardHandler)

func cm(name string) events.ObjectReference {
	return events.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "dst", Name: name, UID: "uid-" + "name"}
}

// running starts a Recorder on s in the bubble; stop ends Run and returns
// its error.
func running(t *testing.T, s *eventStore, opts events.Options) (*events.Recorder, func() error) {
	t.Helper()
	if opts.ReportingController == "" {
		opts.ReportingController = "example.com/test"
	}
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	rec, err := events.NewRecorder(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Run(ctx) }()
	return rec, func() error { cancel(); return <-done }
}

// TestRepeatsAreCounted: the same event ten times is one Event whose
// series counts 10: created once, the count of 2 patched at once, the
// rest at the next SeriesInterval. A different reason is another event.
func TestRepeatsAreCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		for i := range 10 {
			rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "copy %d", i)
			synctest.Wait()
		}
		if c, p := s.counts(); c != 1 || p != 1 {
			t.Fatalf("%d creates, %d patches right away; want 1 and 1 (the count of 2)", c, p)
		}
		time.Sleep(events.DefaultSeriesInterval + 5*time.Second)
		evs := s.all()
		if len(evs) != 1 || evs[0].Series == nil || evs[0].Series.Count != 10 || evs[0].Note != "copy 0" {
			t.Fatalf("events %+v; want one, series count 10, the first note", evs)
		}
		if c, p := s.counts(); c != 1 || p != 2 {
			t.Errorf("%d creates, %d patches; want 1 and 2", c, p)
		}
		rec.Eventf(cm("a"), nil, events.Warning, "MirrorFailed", "Update", "no")
		synctest.Wait()
		if n := len(s.all()); n != 2 {
			t.Errorf("%d events after another reason, want 2", n)
		}
		if err := stop(); !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v", err)
		}
		st := rec.Stats()
		if st.Recorded != 2 || st.Counted != 9 {
			t.Errorf("stats %+v; want Recorded 2, Counted 9", st)
		}
	})
}

// TestSeriesExpiry: an event not seen again for SeriesExpiry starts a new
// Event; one whose Event expired on the server is written anew with its
// count.
func TestSeriesExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "x")
		synctest.Wait()
		time.Sleep(events.DefaultSeriesExpiry + time.Second)
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "x")
		synctest.Wait()
		if c, _ := s.counts(); c != 2 {
			t.Errorf("%d creates after the series expired, want 2", c)
		}
		s.expire()
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "x") // count 2: a patch, 404
		synctest.Wait()
		evs := s.all()
		if len(evs) != 1 || evs[0].Series == nil || evs[0].Series.Count != 2 {
			t.Errorf("after the server lost the event: %+v; want it anew with count 2", evs)
		}
		if st := rec.Stats(); st.Recorded != 2 || st.Counted != 1 {
			t.Errorf("stats %+v; want Recorded 2 (the one written anew is not a new event), Counted 1", st)
		}
		_ = stop()
	})
}

// TestSpamFilter: new events about one object pass a bucket of 25, one
// more every RefillInterval (the sweeps forget a bucket only once it is
// full again); other objects have their own bucket.
func TestSpamFilter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		for i := range 30 {
			rec.Eventf(cm("a"), nil, events.Normal, fmt.Sprintf("Reason%d", i), "Update", "")
		}
		rec.Eventf(cm("b"), nil, events.Normal, "Reason0", "Update", "")
		synctest.Wait()
		if st := rec.Stats(); st.Recorded != 26 || st.Filtered != 5 {
			t.Errorf("stats %+v; want 26 recorded (25 of a, 1 of b), 5 filtered", st)
		}
		time.Sleep(events.DefaultRefillInterval + 10*time.Second) // a few sweeps after the refill
		rec.Eventf(cm("a"), nil, events.Normal, "Later1", "Update", "")
		rec.Eventf(cm("a"), nil, events.Normal, "Later2", "Update", "")
		synctest.Wait()
		if st := rec.Stats(); st.Recorded != 27 || st.Filtered != 6 {
			t.Errorf("after one RefillInterval: %+v; want one more recorded, one more filtered", st)
		}
		_ = stop()
	})
}

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestHungServerNeverBlocks: with every write hanging, Eventf returns at
// once; the queue holds QueueSize events and the rest are dropped,
// counted and logged. When the server answers again the queued ones are
// written.
func TestHungServerNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		s.set(hang)
		var logs syncBuffer
		rec, stop := running(t, s, events.Options{QueueSize: 10, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		start := time.Now()
		for i := range 100 {
			rec.Eventf(cm(fmt.Sprint("o", i)), nil, events.Normal, "Mirrored", "Update", "")
			if i == 0 {
				synctest.Wait() // Run takes the first, and hangs writing it
			}
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("Eventf took %s of (fake) time", d)
		}
		synctest.Wait()
		// One is being written (hung); 10 wait in the queue.
		if st := rec.Stats(); st.Dropped != 89 {
			t.Errorf("stats %+v; want 89 dropped", st)
		}
		if !strings.Contains(logs.String(), "queue full, dropping events") {
			t.Errorf("the first drop was not logged at once: %s", logs.String())
		}
		s.set(up)
		time.Sleep(time.Minute)
		if !strings.Contains(logs.String(), "dropped=89") {
			t.Errorf("the drops were not counted in the log: %s", logs.String())
		}
		if n := len(s.all()); n != 11 {
			t.Errorf("%d events written once the server answered, want 11", n)
		}
		_ = stop()
	})
}

// TestFailingServerGivesUp: writes failing with 500 are tried MaxAttempts
// times, then counted as failed and logged; a later occurrence tries
// anew.
func TestFailingServerGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		s.set(fail)
		rec, stop := running(t, s, events.Options{})
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		time.Sleep(12 * time.Second)
		if st := rec.Stats(); st.Failed != 0 {
			t.Errorf("stats %+v; gave up before 12.5 s", st)
		}
		time.Sleep(time.Second)
		if st := rec.Stats(); st.Failed != 1 || st.Recorded != 0 {
			t.Errorf("stats %+v; want 1 failed", st)
		}
		s.set(up)
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		synctest.Wait()
		if st := rec.Stats(); st.Recorded != 1 {
			t.Errorf("stats %+v; want the next occurrence recorded", st)
		}
		_ = stop()
	})
}

// TestShutdownFlushes: what is queued, and counts not yet written, are
// written when Run's context ends.
func TestShutdownFlushes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, err := events.NewRecorder(s, events.Options{ReportingController: "example.com/test", Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		for range 3 {
			rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "")
		}
		rec.Eventf(cm("b"), nil, events.Normal, "Mirrored", "Update", "")
		cancel() // before Run: everything is written by the flush
		if err := rec.Run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v", err)
		}
		evs := s.all()
		if len(evs) != 2 {
			t.Fatalf("%d events, want 2", len(evs))
		}
		for _, e := range evs {
			if e.Regarding.Name == "a" && (e.Series == nil || e.Series.Count != 3) {
				t.Errorf("a's event %+v, want count 3", e)
			}
		}
	})
}

// TestInvalidEvents: a bad type, an empty reason or action, or no object
// are refused, counted and not sent; a long note is cut to 1 KiB on a
// rune boundary.
func TestInvalidEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		rec.Eventf(cm("a"), nil, "Info", "R", "A", "")
		rec.Eventf(cm("a"), nil, events.Normal, "", "A", "")
		rec.Eventf(cm("a"), nil, events.Normal, "R", "", "")
		rec.Eventf(events.ObjectReference{Kind: "ConfigMap"}, nil, events.Normal, "R", "A", "")
		rec.Eventf(cm("a"), nil, events.Normal, "R", "A", strings.Repeat("é", 600))
		synctest.Wait()
		if st := rec.Stats(); st.Invalid != 4 || st.Recorded != 1 {
			t.Errorf("stats %+v; want 4 invalid, 1 recorded", st)
		}
		evs := s.all()
		if len(evs) != 1 || len(evs[0].Note) != 1024 || !strings.HasSuffix(evs[0].Note, "é") {
			t.Errorf("note of %d bytes, want 1024 ending in a whole rune", len(evs[0].Note))
		}
		_ = stop()
	})
}

func TestNewRecorderOptions(t *testing.T) {
	if _, err := events.NewRecorder(newStore(), events.Options{}); !errors.Is(err, events.ErrInvalidOptions) {
		t.Errorf("no ReportingController: %v", err)
	}
	if _, err := events.NewRecorder(nil, events.Options{ReportingController: "x"}); !errors.Is(err, events.ErrInvalidOptions) {
		t.Errorf("nil client: %v", err)
	}
	synctest.Test(t, func(t *testing.T) {
		rec, stop := running(t, newStore(), events.Options{})
		synctest.Wait()
		if err := rec.Run(context.Background()); !errors.Is(err, events.ErrRunning) {
			t.Errorf("second Run = %v", err)
		}
		_ = stop()
	})
}

// TestRelatedIsCopied: the related reference is the caller's again once
// Eventf returns; changing it afterwards changes nothing recorded.
func TestRelatedIsCopied(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, err := events.NewRecorder(s, events.Options{ReportingController: "example.com/test", Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		src := cm("src")
		rec.Eventf(cm("a"), &src, events.Normal, "Mirrored", "Update", "")
		src.Name = "changed"
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = rec.Run(ctx) // writes what is queued
		if evs := s.all(); len(evs) != 1 || evs[0].Related == nil || evs[0].Related.Name != "src" {
			t.Errorf("related %+v, want src", evs[0].Related)
		}
	})
}

// TestReplicasDoNotShareNames: two replicas, each with its Recorder, that
// report the same event about one object at the same moment create two
// Events at once, under different names. (Both named it object.<time>:
// one got 409 Conflict and was written only after a backoff.)
func TestReplicasDoNotShareNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		a, stopA := running(t, s, events.Options{ReportingInstance: "ctl-a"})
		b, stopB := running(t, s, events.Options{ReportingInstance: "ctl-b"})
		a.Eventf(cm("x"), nil, events.Normal, "Mirrored", "Update", "copied")
		b.Eventf(cm("x"), nil, events.Normal, "Mirrored", "Update", "copied")
		synctest.Wait() // no time passes
		evs := s.all()
		if c, _ := s.counts(); c != 2 || len(evs) != 2 || evs[0].Name == evs[1].Name {
			t.Errorf("%d creates, events %d, right away; want 2 events under 2 names", c, len(evs))
		}
		for _, ev := range evs {
			if !strings.HasPrefix(ev.Name, "x.") {
				t.Errorf("event name %q, want x.<time and tag>", ev.Name)
			}
		}
		stopA()
		stopB()
	})
}

// TestLongObjectNames: an event about an object whose name is as long as
// a name may be (253) is named within 253 characters, its object part cut
// to end on a letter or digit, since the server refuses a longer name
// (422, not retried: the event was lost).
func TestLongObjectNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		rec, stop := running(t, s, events.Options{})
		long := strings.Repeat("a", 213) + strings.Repeat(".b-c", 10) // 253
		rec.Eventf(cm(long), nil, events.Normal, "Mirrored", "Update", "copied")
		synctest.Wait()
		evs := s.all()
		if len(evs) != 1 {
			t.Fatalf("%d events, want 1", len(evs))
		}
		name := evs[0].Name
		obj := name[:strings.LastIndexByte(name, '.')]
		if len(name) > 253 || !strings.HasPrefix(long, obj) || strings.HasSuffix(obj, "-") || strings.HasSuffix(obj, ".") {
			t.Errorf("event name %q (%d bytes), want at most 253, the object's name cut to end on a letter or digit", name, len(name))
		}
		stop()
	})
}

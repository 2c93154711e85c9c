package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// Fewer unreadable events than the bound that ends a stream at once
// (8): each may have carried a change, and the cache must not keep their
// loss (issue 20's follow-up: 3 garbled deletes left deleted objects in
// the cache for good, with Health healthy and LastError nil).

// garbleSource sends some events of its watches unreadable, as a source
// does for an event whose data is cut or garbled: garble, given the
// watch's number (from 1) and the event, says which.
type garbleSource struct {
	*memory.Source[*item]
	watches atomic.Int32
	garble  func(watch int32, ev informer.Event[*item]) bool
}

func (s *garbleSource) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	w, err := s.Source.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &garbleWatcher{Watcher: w, watch: s.watches.Add(1), garble: s.garble}, nil
}

type garbleWatcher struct {
	informer.Watcher[*item]
	watch  int32
	n      int
	garble func(watch int32, ev informer.Event[*item]) bool
}

func (w *garbleWatcher) Next() (informer.Event[*item], error) {
	ev, err := w.Watcher.Next()
	w.n++
	if err == nil && ev.Object != nil && w.garble(w.watch, ev) {
		return informer.Event[*item]{}, fmt.Errorf("event %d of the stream: the data ends early: %w", w.n, informer.ErrBadEvent)
	}
	return ev, err
}

// deletesOfWatch garbles the deletions of watch number n.
func deletesOfWatch(n int32) func(int32, informer.Event[*item]) bool {
	return func(watch int32, ev informer.Event[*item]) bool {
		return watch == n && ev.Type == informer.EventDeleted
	}
}

// A few skipped changes are visible at once (Health, LastError), and
// repaired by one relist, repairDelay (1 s) after the first, which tells
// the handlers only what changed.
func TestFewUnreadableEventsRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 5)
		src := &garbleSource{Source: mem, garble: deletesOfWatch(1)}
		var errs errList
		inf := informer.New[*item](src, quiet[*item](t, &errs))
		rec := &recorder{}
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		runInformer(t, inf)
		synctest.Wait()
		mustDo(t, mem.Delete("ns/k1"))
		mustDo(t, mem.Delete("ns/k3"))
		mustDo(t, mem.Update(newItem("ns", "k0", "v2")))
		mustDo(t, mem.Delete("ns/k4"))
		synctest.Wait()

		// Skipped, not repaired yet: a program can see it.
		h := inf.Health()
		var se *informer.SourceError
		if h.SkippedEvents != 3 || h.Healthy() || !errors.Is(h.LastError, informer.ErrSkippedEvents) ||
			!errors.Is(h.LastError, informer.ErrBadEvent) || !errors.As(h.LastError, &se) || se.Op != "watch" {
			t.Errorf("after 3 skipped changes, Health says %s (skipped %d, LastError %v): want 3 skipped, unhealthy, LastError wrapping ErrSkippedEvents and the source's error", h, h.SkippedEvents, h.LastError)
		}
		if err := inf.LastError(); !errors.Is(err, informer.ErrSkippedEvents) {
			t.Errorf("LastError %v, want ErrSkippedEvents", err)
		}
		if n := mem.ListCalls(); n != 1 {
			t.Errorf("%d lists before the repair delay, want 1: the skips are batched", n)
		}

		time.Sleep(time.Second)
		synctest.Wait()
		if got, want := cacheState(inf), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("cache %v, source %v: the skipped changes are still lost", got, want)
		}
		if got, want := rec.state(), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("handler state %v, source %v", got, want)
		}
		if n := mem.ListCalls(); n != 2 {
			t.Errorf("%d lists, want 2: one relist repairs the 3 skipped changes", n)
		}
		if h := inf.Health(); !h.Healthy() || h.SkippedEvents != 0 || h.LastError != nil {
			t.Errorf("after the relist, Health says %s (LastError %v): want healthy, nothing skipped", h, h.LastError)
		}
		// The relist tells the handler the deletions it missed, and
		// nothing else: no update that changes nothing.
		var deletes int
		for _, r := range rec.all() {
			if r.Kind == "update" && r.RV == r.OldRV {
				t.Errorf("a spurious update after the relist: %v", r)
			}
			if r.Kind == "delete" {
				deletes++
			}
		}
		if deletes != 3 {
			t.Errorf("%d deletions told, want 3: %v", deletes, rec.all())
		}
		checkOrder(t, rec.all())
	})
}

// A version read after a skipped change is not reached until the relist
// repairs the cache: WaitForResourceVersion for it does not return while
// the cache lacks the change before it.
func TestWaitForVersionAfterASkippedChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		src := &garbleSource{Source: mem, garble: deletesOfWatch(1)}
		inf := informer.New[*item](src, quiet[*item](t, nil))
		runInformer(t, inf)
		synctest.Wait()
		before := inf.AppliedResourceVersion()
		mustDo(t, mem.Delete("ns/k1"))
		mustDo(t, mem.Update(newItem("ns", "k0", "v2")))
		want := mem.ResourceVersion()
		done := make(chan error, 1)
		go func() { done <- inf.WaitForResourceVersion(t.Context(), want) }()
		synctest.Wait()
		select {
		case err := <-done:
			_, has := inf.Lister().Get("ns/k1")
			t.Fatalf("WaitForResourceVersion(%s) returned %v before the repair; the cache has deleted ns/k1: %v", want, err, has)
		default:
		}
		if got := inf.AppliedResourceVersion(); got != before {
			t.Errorf("applied version %q after a skipped change, want it held at %q", got, before)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("WaitForResourceVersion(%s) still waits after the repair (applied %q)", want, inf.AppliedResourceVersion())
		}
		if _, has := inf.Lister().Get("ns/k1"); has {
			t.Error("the cache still has deleted ns/k1")
		}
	})
}

// A stream that ends after a skipped change (the server closes it, a
// reset) is repaired at once, without waiting for the repair delay: a
// watch resumed from its version would never bring the change back.
func TestStreamEndingAfterASkipRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		src := &garbleSource{Source: mem, garble: deletesOfWatch(1)}
		inf := informer.New[*item](src, quiet[*item](t, nil))
		runInformer(t, inf)
		synctest.Wait()
		mustDo(t, mem.Delete("ns/k2"))
		synctest.Wait()
		mem.DropWatches(nil)
		synctest.Wait() // no time passes
		if n := mem.ListCalls(); n != 2 {
			t.Errorf("%d lists after the stream with a skipped change ended, want a relist at once", n)
		}
		if got, want := cacheState(inf), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("cache %v, source %v", got, want)
		}
	})
}

// A source that garbles some event of every watch is relisted after a
// backoff that grows, not once a second: each relist repairs the cache,
// but a large one is costly to list.
func TestRepairsBackOffWhenEveryStreamSkips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		src := &garbleSource{Source: mem, garble: func(_ int32, ev informer.Event[*item]) bool { return ev.Type == informer.EventDeleted }}
		inf := informer.New[*item](src, quiet[*item](t, nil))
		runInformer(t, inf)
		synctest.Wait()
		for i := range 60 {
			mustDo(t, mem.Create(newItem("ns", fmt.Sprint("t", i), "v1")))
			mustDo(t, mem.Delete(fmt.Sprintf("ns/t%d", i)))
			time.Sleep(time.Second)
		}
		synctest.Wait()
		if n := mem.ListCalls(); n > 15 {
			t.Errorf("%d lists in 60 s with a skipped change every second, want a growing backoff between repairs (at most 15)", n)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if got, want := cacheState(inf), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("cache %v, source %v: not repaired", got, want)
		}
		if h := inf.Health(); h.SkippedEvents != 0 {
			t.Errorf("Health %s: want the skips repaired", h)
		}
	})
}

// A duplicate key that a poll reports (ErrBadEvent and ErrDuplicateKey:
// the later object is kept, as a list keeps it) is no skipped change: it
// is reported, and neither relists nor makes Health unhealthy.
func TestDuplicateKeyIsNoSkippedChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		src := &hookSource{Source: mem, next: func(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error) {
			if n == 1 {
				return informer.Event[*item]{}, fmt.Errorf("%w: poll: key %q twice: %w", informer.ErrBadEvent, "ns/k1", informer.ErrDuplicateKey)
			}
			return w.Next()
		}}
		var errs errList
		inf := informer.New[*item](src, quiet[*item](t, &errs))
		runInformer(t, inf)
		synctest.Wait()
		if h := inf.Health(); !h.Healthy() || h.SkippedEvents != 0 {
			t.Errorf("Health %s after a duplicate key, want healthy", h)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if n := mem.ListCalls(); n != 1 {
			t.Errorf("%d lists, want no relist for a duplicate key", n)
		}
		var reported bool
		for _, err := range errs.all() {
			reported = reported || errors.Is(err, informer.ErrDuplicateKey)
		}
		if !reported {
			t.Errorf("the duplicate key was not reported: %v", errs.all())
		}
	})
}

// While the relist that would repair a skipped change fails, Health stays
// unhealthy with the skip counted, and LastError is the list's failure,
// which says why the cache is not repaired yet.
func TestSkippedChangeWhileTheRelistFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		src := &garbleSource{Source: mem, garble: deletesOfWatch(1)}
		inf := informer.New[*item](src, quiet[*item](t, nil))
		runInformer(t, inf)
		synctest.Wait()
		mem.FailLists(1000, errors.New("503 the server is restarting"))
		mustDo(t, mem.Delete("ns/k1"))
		time.Sleep(3 * time.Second)
		synctest.Wait()
		h := inf.Health()
		if h.Healthy() || h.SkippedEvents != 1 || h.LastError == nil || !strings.Contains(h.LastError.Error(), "503") {
			t.Errorf("relists failing after a skipped change: Health %s; want unhealthy, 1 skipped, LastError the list's 503", h)
		}
		mem.FailLists(0, nil)
		time.Sleep(time.Minute)
		synctest.Wait()
		if h := inf.Health(); !h.Healthy() || h.SkippedEvents != 0 {
			t.Errorf("after the lists work again: Health %s, want healthy", h)
		}
		if _, has := inf.Lister().Get("ns/k1"); has {
			t.Error("the cache still has deleted ns/k1")
		}
	})
}

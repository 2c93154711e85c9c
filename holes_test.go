package informer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// Adds after the initial list are not in the initial list.
func TestAddsAfterTheListAreNotInitial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		src.Create(newItem("ns", "first", "v1"))
		inf := informer.New(src, informer.Options[*item]{Logger: slog.New(slog.DiscardHandler)})
		h := &recorder{}
		reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
		stop := runInformer(t, inf)
		defer stop()
		if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
			t.Fatal(err)
		}
		src.Create(newItem("ns", "later", "v1"))
		synctest.Wait()
		recs := h.all()
		if len(recs) != 2 || !recs[0].Initial || recs[1].Initial {
			t.Errorf("calls %v: want the listed add initial and the later one not", recs)
		}
	})
}

// A relist after an expired version asks for the most recent state (""),
// even when the first list accepted a cached one ("0").
func TestRelistAfterExpiryAsksForTheLatest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		src := spy(mem)
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{ListResourceVersion: "0"})
		runReflector(t, r)
		synctest.Wait()
		mem.FailWatches(1, errors.New("down"))
		mem.DropWatches(nil)
		synctest.Wait()
		mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
		mem.Compact()
		time.Sleep(time.Minute)
		synctest.Wait()
		lists := src.listCalls()
		if len(lists) != 2 || lists[0].opts.ResourceVersion != "0" || lists[1].opts.ResourceVersion != "" {
			t.Fatalf("lists %+v: want the first at \"0\" and the relist at \"\"", lists)
		}
	})
}

// A Transform that fails on a delete does not keep the object: the
// deletion is applied with the last cached state; and a delete of a key
// the cache never admitted reaches no handler.
func TestTransformFailingOnDeleteStillDeletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		src.Create(newItem("ns", "kept", "v1"))
		src.Create(newItem("ns", "rejected", "v1"))
		inf := informer.New(src, informer.Options[*item]{
			Logger:  slog.New(slog.DiscardHandler),
			OnError: func(error) {},
			Transform: func(it *item) (*item, error) {
				if it.Name == "rejected" || it.Data == "fail" {
					return nil, errors.New("no")
				}
				return it, nil
			},
		})
		h := &recorder{}
		reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
		stop := runInformer(t, inf)
		defer stop()
		if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
			t.Fatal(err)
		}
		mustDo(t, src.Update(newItem("ns", "kept", "fail"))) // rejected: the cache keeps v1
		mustDo(t, src.Delete("ns/kept"))                     // its transform fails too: still deleted
		mustDo(t, src.Delete("ns/rejected"))                 // never admitted: no handler hears of it
		synctest.Wait()
		if _, ok := inf.Lister().Get("ns/kept"); ok {
			t.Error("a deletion whose transform failed left the object in the cache")
		}
		var kinds []string
		for _, r := range h.all() {
			kinds = append(kinds, r.Kind+" "+r.Key+" "+r.Data)
		}
		if len(kinds) != 2 || kinds[0] != "add ns/kept v1" || kinds[1] != "delete ns/kept v1" {
			t.Errorf("handler calls %v: want the add and the delete of kept (with its last cached state) only", kinds)
		}
	})
}

// WaitForSync (informer and registration) wakes at the instant the sync
// happens, not at the next tick of a poll.
func TestWaitForSyncWakesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		src.Create(newItem("ns", "a", "v1"))
		src.FailLists(1, errors.New("not yet"))
		const retry = 1234567 * time.Microsecond // an odd instant no poll would hit
		inf := informer.New(src, informer.Options[*item]{
			Logger:    slog.New(slog.DiscardHandler),
			OnError:   func(error) {},
			Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: retry, Jitter: -1}},
		})
		reg, _ := inf.AddHandler(&recorder{}, informer.HandlerOptions{})
		start := time.Now()
		stop := runInformer(t, inf)
		defer stop()
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != retry {
			t.Errorf("informer synced after %v, want exactly the retry's %v", d, retry)
		}
		if err := reg.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != retry {
			t.Errorf("registration synced after %v, want %v", d, retry)
		}
	})
}

// A handler added while the informer is shutting down has its Done closed
// once Run returns, and is never called.
func TestHandlerAddedWhileShuttingDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, inf, _, cancel, done := runSyncedOne(t)
		cancel() // Run is shutting down; the handler comes in meanwhile
		h := &recorder{}
		reg, err := inf.AddHandler(h, informer.HandlerOptions{})
		<-done
		if err != nil {
			if !errors.Is(err, informer.ErrStopped) {
				t.Fatal(err)
			}
			return // too late even to be registered: also fine
		}
		select {
		case <-reg.Done():
		default:
			t.Fatal("Done of a handler added during the shutdown is not closed after Run returned")
		}
		if n := len(h.all()); n != 0 {
			t.Errorf("%d calls after the shutdown began", n)
		}
	})
}

// A watch event older than one the watch already delivered (though newer
// than where the watch started) is out of order: the reflector lists again
// instead of writing an older state over a newer one.
func TestStaleEventInsideAWatchRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2) // versions 1 and 2
		src := spy(mem)
		var errs errList
		sink := newSinkRec()
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		synctest.Wait()
		mustDo(t, mem.Update(newItem("ns", "k0", "v2"))) // version 3
		mustDo(t, mem.Update(newItem("ns", "k1", "v2"))) // version 4
		synctest.Wait()
		stale := newItem("ns", "k0", "stale")
		stale.ResourceVersion = "3"
		mem.InjectEvent(informer.Event[*item]{Type: informer.EventModified, Object: stale, ResourceVersion: "3"})
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(src.listCalls()); n != 2 {
			t.Errorf("%d lists: want a relist after the out-of-order event", n)
		}
		if len(sourceErrs(errs.all(), "", informer.ErrOutOfOrder)) == 0 {
			t.Errorf("errors %v: want one matching ErrOutOfOrder", errs.all())
		}
		if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("sink %v, source %v", got, want)
		}
	})
}

// When every watch expires at once (the history is compacted as fast as
// the reflector lists), relists back off instead of looping: the lists
// that follow an expiry without progress do not reset the backoff, so
// the delays keep doubling (0.1s, 0.2s ... up to 30s) until a watch
// delivers something.
func TestRepeatedExpiryWithoutProgressBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		src := spy(mem)
		n := 0
		src.afterList = func(call int, p page, err error) (page, error) {
			n++
			mustDo(t, mem.Update(newItem("ns", "k0", fmt.Sprint("v", n))))
			mem.Compact() // the list's version is gone before the watch starts
			return p, err
		}
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		lists := src.listCalls()
		if len(lists) < 3 || len(lists) > 12 {
			t.Fatalf("%d lists in a minute of expiring watches: want a few, backing off", len(lists))
		}
		for i := 3; i < len(lists); i++ {
			gap, prev := lists[i].at.Sub(lists[i-1].at), lists[i-1].at.Sub(lists[i-2].at)
			if gap < 100*time.Millisecond || gap < prev {
				t.Errorf("list %d came %v after the previous, which came %v after its own: the backoff does not grow", i+1, gap, prev)
			}
		}
	})
}

// A later page of a paged list that fails (a cut connection, a truncated
// body) is asked for again with the same continue token, after a short
// delay, instead of the list starting over; after pageRetries more
// failures of that page the list starts over after a backoff.
func TestFailedPageIsAskedAgain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failures int // of the second page
		restarts bool
	}{
		{"once", 1, false},
		{"four times", 4, false},
		{"five times", 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 9)
				src := spy(mem)
				left := tc.failures
				src.afterList = func(call int, p page, err error) (page, error) {
					if call > 0 && left > 0 && err == nil {
						left--
						return page{}, io.ErrUnexpectedEOF
					}
					return p, err
				}
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{PageSize: 4})
				runReflector(t, r)
				time.Sleep(time.Minute)
				synctest.Wait()
				lists := src.listCalls()
				restarted := 0
				for _, c := range lists[1:] {
					if c.opts.Continue == "" {
						restarted++
					}
				}
				if (restarted > 0) != tc.restarts {
					t.Errorf("%d restarts of the list, want restarts: %v (calls %+v)", restarted, tc.restarts, lists)
				}
				if !tc.restarts {
					for i := 2; i <= tc.failures+1; i++ {
						if lists[i].opts.Continue != lists[1].opts.Continue {
							t.Errorf("call %d asked for %q, want the failed page %q again", i, lists[i].opts.Continue, lists[1].opts.Continue)
						}
					}
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
			})
		})
	}
}

// The DeltaFIFO's queue is a ring of positions that grows by copying. With
// keys backing up faster than they are popped (a large relist, a slow
// consumer), it grows while wrapped around: its head is past the start of
// its array and the newest keys sit before it. Every key must still come
// out exactly once, in the order it was first queued, with all its deltas.
func TestDeltaFIFORingGrowsWhileWrapped(t *testing.T) {
	f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[*item]{})
	var order []string              // queued keys, oldest first
	deltas := map[string][]string{} // queued key → its deltas as "Type data"
	queue := func(key string, t informer.DeltaType, data string) {
		if _, ok := deltas[key]; !ok {
			order = append(order, key)
		}
		deltas[key] = append(deltas[key], t.String()+" "+data)
	}
	pop := func() {
		t.Helper()
		want := order[0]
		order = order[1:]
		err := f.Pop(t.Context(), func(key string, ds []informer.Delta[*item]) error {
			var got []string
			for _, d := range ds {
				got = append(got, d.Type.String()+" "+d.Object.Data)
			}
			if key != want || fmt.Sprint(got) != fmt.Sprint(deltas[want]) {
				t.Fatalf("popped %s %v, want %s %v", key, got, want, deltas[want])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		delete(deltas, want)
	}
	// Per step, one new key and every third step a pop: the backlog grows
	// by two keys every three steps while the head keeps moving, so each
	// time the ring is full (16, 32 ... 512) its head is well past the
	// start (a quarter of the way round).
	// Every fourth step updates a key in the middle of the backlog, which
	// may sit in the wrapped part.
	for i := range 800 {
		key := fmt.Sprint("k", i)
		mustDo(t, f.Add(newItem("ns", key, "v1")))
		queue("ns/"+key, informer.DeltaAdded, "v1")
		if i%4 == 3 {
			mid := order[len(order)/2]
			data := fmt.Sprint("v", i)
			mustDo(t, f.Update(newItem("ns", strings.TrimPrefix(mid, "ns/"), data)))
			queue(mid, informer.DeltaUpdated, data)
		}
		if i%3 == 2 {
			pop()
		}
		if f.Len() != len(order) {
			t.Fatalf("step %d: Len %d, want %d", i, f.Len(), len(order))
		}
	}
	for len(order) > 0 {
		pop()
	}
	if f.Len() != 0 {
		t.Fatalf("Len %d after popping every key", f.Len())
	}
}

// gate blocks a handler at chosen calls (counted from 1) until the test
// releases it, or gives up.
type gate struct {
	at      map[int]bool
	calls   atomic.Int32
	blocked chan int
	release chan struct{}
	giveUp  chan struct{} // closed when the test stops releasing
}

func newGate(at ...int) *gate {
	g := &gate{at: map[int]bool{}, blocked: make(chan int), release: make(chan struct{}), giveUp: make(chan struct{})}
	for _, n := range at {
		g.at[n] = true
	}
	return g
}

func (g *gate) hook(rec) {
	if n := int(g.calls.Add(1)); g.at[n] {
		select {
		case g.blocked <- n:
		case <-g.giveUp:
			return
		}
		select {
		case <-g.release:
		case <-g.giveUp:
		}
	}
}

// checkBlockedUnsynced waits until the handler blocks at each of g's
// calls in turn and checks that reg is not synced meanwhile, though inf
// is: HasSynced is false and WaitForSync gives up with its context; then
// it lets the handler go on.
func checkBlockedUnsynced(t *testing.T, g *gate, inf *informer.Informer[*item], reg *informer.Registration[*item], calls []int) {
	t.Helper()
	defer close(g.giveUp) // a failed check must not leave the handler blocked
	for _, want := range calls {
		if n := <-g.blocked; n != want {
			t.Fatalf("blocked at call %d, want %d", n, want)
		}
		synctest.Wait() // all else is done
		if !inf.HasSynced() {
			t.Fatalf("informer not synced while the handler is blocked in call %d", want)
		}
		if reg.HasSynced() {
			t.Fatalf("registration synced while its handler is blocked in call %d", want)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err := reg.WaitForSync(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForSync while the handler is blocked in call %d = %v, want the context's deadline", want, err)
		}
		g.release <- struct{}{}
	}
}

// checkInitialAdds checks that recs are one initial add of each of n
// objects named k0, k1 ...
func checkInitialAdds(t *testing.T, recs []rec, n int) {
	t.Helper()
	if len(recs) != n {
		t.Fatalf("%d calls, want %d", len(recs), n)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Kind != "add" || !r.Initial || seen[r.Key] {
			t.Fatalf("call %v: want one initial add per object", r)
		}
		seen[r.Key] = true
	}
	for i := range n {
		if key := fmt.Sprint("ns/k", i); !seen[key] {
			t.Fatalf("no add of %s", key)
		}
	}
}

// A registration's initial list spans many listener batches (of 128): it
// reports synced only once its handler has returned from the last of
// them, not after the first batch nor when the last one is taken.
func TestRegistrationSyncedAfterEveryBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 1000
		src := memory.New[*item](memory.Options{})
		seedItems(t, src, "ns", n)
		inf := informer.New(src, quiet[*item](t, nil))
		g := newGate(1, 128, 129, 500, n-1, n)
		h := &recorder{hook: g.hook}
		reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
		runInformer(t, inf)
		checkBlockedUnsynced(t, g, inf, reg, []int{1, 128, 129, 500, n - 1, n})
		if err := reg.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		checkInitialAdds(t, h.all(), n)
	})
}

// A handler added after the informer synced gets the cache replayed as
// initial adds, and its registration reports synced only once that replay
// has been delivered, not when it was queued.
func TestLateHandlerSyncedAfterItsReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 2000
		src := memory.New[*item](memory.Options{})
		seedItems(t, src, "ns", n)
		inf := informer.New(src, quiet[*item](t, nil))
		runInformer(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		g := newGate(1, n)
		h := &recorder{hook: g.hook}
		reg, err := inf.AddHandler(h, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkBlockedUnsynced(t, g, inf, reg, []int{1, n})
		if err := reg.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		checkInitialAdds(t, h.all(), n)
	})
}

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// TestGuarantee1PerKeyOrder: per key, handlers see states in the source's
// order, across updates, watch drops, resumes and relists.
func TestGuarantee1PerKeyOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		for i := range 20 {
			src.Create(newItem("ns", fmt.Sprint("k", i), "0"))
		}
		inf := informer.New(src, quiet[*item](t, nil))
		plain := &recorder{}
		inf.AddHandler(plain, informer.HandlerOptions{})
		slowGate := make(chan struct{})
		slow := &recorder{hook: func(rec) { <-slowGate }}
		inf.AddHandler(slow, informer.HandlerOptions{CoalesceAbove: 5})
		runInformer(t, inf)
		rng := rand.New(rand.NewPCG(1, 2))
		for step := range 2000 {
			k := fmt.Sprint("k", rng.IntN(20))
			switch rng.IntN(10) {
			case 0:
				src.Delete("ns/" + k)
			case 1:
				src.DropWatches(nil)
			case 2:
				if step%50 == 0 {
					src.DropWatches(errors.New("boom"))
					src.Compact() // the resume fails: relist
				}
				time.Sleep(time.Minute) // fake time: backoffs pass
			default:
				src.Upsert(newItem("ns", k, fmt.Sprint(step)))
			}
			if step%100 == 0 {
				synctest.Wait()
			}
		}
		time.Sleep(time.Hour)
		if src.ListCalls() < 5 {
			t.Fatalf("only %d lists: the faults did not force relists", src.ListCalls())
		}
		close(slowGate)
		synctest.Wait()
		for name, h := range map[string]*recorder{"plain": plain, "coalescing": slow} {
			checkOrder(t, h.all())
			if got, want := h.state(), sourceState(src); !equalMaps(got, want) {
				t.Errorf("%s handler state differs from source:\n got %v\nwant %v", name, got, want)
			}
		}
		if got, want := cacheState(inf), sourceState(src); !equalMaps(got, want) {
			t.Errorf("cache differs from source:\n got %v\nwant %v", got, want)
		}
	})
}

// TestGuarantee2CacheBeforeNotification: when a handler is called, the
// cache already holds at least the notified state.
func TestGuarantee2CacheBeforeNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		inf := informer.New(src, quiet[*item](t, nil))
		type seen struct {
			r      rec
			cached string // the cached object's rv, "" if absent
		}
		var mu sync.Mutex
		var log []seen
		h := &recorder{}
		h.hook = func(r rec) {
			obj, ok := inf.Lister().Get(r.Key)
			s := seen{r: r}
			if ok {
				s.cached = obj.ResourceVersion
			}
			mu.Lock()
			log = append(log, s)
			mu.Unlock()
		}
		inf.AddHandler(h, informer.HandlerOptions{})
		runInformer(t, inf)
		synctest.Wait()
		for i := range 500 {
			k := fmt.Sprint("k", i%37)
			if i%7 == 0 {
				src.Delete("ns/" + k)
			} else {
				src.Upsert(newItem("ns", k, fmt.Sprint(i)))
			}
		}
		synctest.Wait()
		if len(log) != 494 { // 500 writes, less 6 deletes of keys not created yet
			t.Fatalf("only %d notifications", len(log))
		}
		for i, s := range log {
			switch {
			case s.r.Kind == "delete" && s.cached != "" && rvNum(s.cached) <= rvNum(s.r.RV):
				t.Fatalf("%v: cache still holds rv %s", s.r, s.cached)
			case s.r.Kind != "delete" && s.cached != "" && rvNum(s.cached) < rvNum(s.r.RV):
				t.Fatalf("%v: cache holds older rv %s", s.r, s.cached)
			case s.r.Kind != "delete" && s.cached == "":
				// Only a later deletion may explain an absent object.
				later := false
				for _, n := range log[i+1:] {
					if n.r.Key == s.r.Key && n.r.Kind == "delete" {
						later = true
						break
					}
				}
				if !later {
					t.Fatalf("%v: object absent from the cache", s.r)
				}
			}
		}
	})
}

func rvNum(rv string) uint64 { n, _ := strconv.ParseUint(rv, 10, 64); return n }

// TestGuarantee3VanishedObjectsDeleted: objects deleted while the watch was
// down are deleted from the cache and reported as deletions whose final
// state is unknown, with the last known state.
func TestGuarantee3VanishedObjectsDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		for i := range 10 {
			src.Create(newItem("ns", fmt.Sprint("k", i), "v1"))
		}
		inf := informer.New(src, quiet[*item](t, nil))
		h := &recorder{}
		inf.AddHandler(h, informer.HandlerOptions{})
		runInformer(t, inf)
		synctest.Wait()

		// The watch goes down and cannot resume; meanwhile objects vanish.
		src.FailWatches(1000, errors.New("network down"))
		src.DropWatches(errors.New("connection reset"))
		src.Update(newItem("ns", "k1", "v2")) // changed, then deleted: unseen
		src.Delete("ns/k1")
		src.Delete("ns/k2")
		src.Compact() // the missed events are gone: a resume must relist
		src.FailWatches(0, nil)
		time.Sleep(time.Hour) // fake time: let the backoff pass
		synctest.Wait()

		if _, ok := inf.Lister().Get("ns/k1"); ok {
			t.Error("ns/k1 still cached")
		}
		if _, ok := inf.Lister().Get("ns/k2"); ok {
			t.Error("ns/k2 still cached")
		}
		var dels []rec
		for _, r := range h.all() {
			if r.Kind == "delete" {
				dels = append(dels, r)
			}
		}
		if len(dels) != 2 {
			t.Fatalf("deletes = %v, want 2", dels)
		}
		for _, d := range dels {
			if !d.Unknown || d.Data != "v1" {
				t.Errorf("delete %v: want FinalStateUnknown with the last known state v1", d)
			}
		}
		if got, want := cacheState(inf), sourceState(src); !equalMaps(got, want) {
			t.Errorf("cache %v, source %v", got, want)
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestGuarantee4HasSynced: the informer is synced when the first list is in
// the cache; a registration when its handler has also processed every
// initial add; waiting is event-driven.
func TestGuarantee4HasSynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{MaxPageSize: 3})
		for i := range 10 {
			src.Create(newItem("ns", fmt.Sprint("k", i), "v"))
		}
		src.FailLists(2, errors.New("unavailable"))
		inf := informer.New(src, quiet[*item](t, nil))
		gate := make(chan struct{})
		var initial atomic.Int32
		slow := informer.HandlerFuncs[*item]{AddFunc: func(o *item, isInitial bool) {
			<-gate
			if isInitial {
				initial.Add(1)
			}
		}}
		reg, _ := inf.AddHandler(slow, informer.HandlerOptions{})
		if inf.HasSynced() || reg.HasSynced() {
			t.Fatal("synced before Run")
		}
		runInformer(t, inf)
		synctest.Wait()
		if inf.HasSynced() {
			t.Fatal("synced while lists fail")
		}
		ctx := t.Context()
		if err := inf.WaitForSync(ctx); err != nil { // waits through the backoff, no polling
			t.Fatal(err)
		}
		if inf.Lister().Len() != 10 {
			t.Fatalf("synced with %d objects cached, want 10", inf.Lister().Len())
		}
		synctest.Wait()
		if reg.HasSynced() {
			t.Fatal("registration synced while its handler is blocked on the initial list")
		}
		waited := make(chan error, 1)
		go func() { waited <- informer.WaitForCacheSync(ctx, inf, reg) }()
		synctest.Wait()
		select {
		case err := <-waited:
			t.Fatalf("WaitForCacheSync returned %v early", err)
		default:
		}
		close(gate)
		if err := <-waited; err != nil {
			t.Fatal(err)
		}
		if !reg.HasSynced() || initial.Load() != 10 {
			t.Fatalf("reg synced=%v, initial adds=%d", reg.HasSynced(), initial.Load())
		}

		// A handler added after sync syncs once it has the replayed cache.
		late := &recorder{}
		reg2, err := inf.AddHandler(late, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := reg2.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		if n := len(late.all()); n != 10 {
			t.Fatalf("late handler got %d adds at sync, want 10", n)
		}
		for _, r := range late.all() {
			if r.Kind != "add" || !r.Initial {
				t.Fatalf("late handler got %v, want initial adds", r)
			}
		}
	})
}

// TestGuarantee5SlowHandler: a blocked handler holds up neither the cache,
// nor other handlers, nor the watch; its memory follows its policy.
func TestGuarantee5SlowHandler(t *testing.T) {
	for _, tc := range []struct {
		name        string
		coalesce    int
		wantPending func(p int) bool
	}{
		{"unbounded", 0, func(p int) bool { return p == 5000+100-1 }},
		{"bounded", 50, func(p int) bool { return p <= 50+100 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*item](memory.Options{})
				for i := range 100 {
					src.Create(newItem("ns", fmt.Sprint("k", i), "0"))
				}
				inf := informer.New(src, quiet[*item](t, nil))
				block := make(chan struct{})
				var stuck sync.Once
				blocked := &recorder{hook: func(rec) { stuck.Do(func() { <-block }) }}
				reg, _ := inf.AddHandler(blocked, informer.HandlerOptions{CoalesceAbove: tc.coalesce})
				fast := &recorder{}
				inf.AddHandler(fast, informer.HandlerOptions{})
				runInformer(t, inf)
				synctest.Wait()
				for i := range 5000 {
					src.Update(newItem("ns", fmt.Sprint("k", i%100), fmt.Sprint(i+1)))
				}
				synctest.Wait()
				if got := len(fast.all()); got != 5100 {
					t.Errorf("fast handler got %d calls, want 5100", got)
				}
				if got, want := cacheState(inf), sourceState(src); !equalMaps(got, want) {
					t.Error("cache is behind the source")
				}
				if p := reg.Pending(); !tc.wantPending(p) {
					t.Errorf("blocked handler has %d pending", p)
				}
				close(block)
				synctest.Wait()
				checkOrder(t, blocked.all())
				if got, want := blocked.state(), sourceState(src); !equalMaps(got, want) {
					t.Errorf("blocked handler ends at %v, want %v", got, want)
				}
			})
		})
	}
}

// TestGuarantee6Shutdown: after cancel, Run returns only once handler calls
// in progress have returned, leaves no goroutine, and no handler is called
// again.
func TestGuarantee6Shutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		src.Create(newItem("ns", "a", "1"))
		inf := informer.New(src, quiet[*item](t, nil))
		inCall := make(chan struct{})
		release := make(chan struct{})
		var calls atomic.Int32
		var returned atomic.Bool
		inf.AddHandler(informer.HandlerFuncs[*item]{
			AddFunc: func(*item, bool) {
				calls.Add(1)
				close(inCall)
				<-release
				returned.Store(true)
			},
			UpdateFunc: func(_, _ *item) { calls.Add(1) },
		}, informer.HandlerOptions{})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		<-inCall
		src.Update(newItem("ns", "a", "2"))
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Run returned while a handler call was in progress")
		default:
		}
		close(release)
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v", err)
		}
		if !returned.Load() {
			t.Fatal("Run returned before the handler")
		}
		synctest.Wait()
		checkNoLeaks(t)
		n := calls.Load()
		src.Update(newItem("ns", "a", "3"))
		synctest.Wait()
		if calls.Load() != n {
			t.Fatal("handler called after Run returned")
		}
		if n != 1 {
			t.Fatalf("handler calls = %d, want 1 (the update queued at cancel must not be delivered)", n)
		}
		if err := inf.Run(t.Context()); !errors.Is(err, informer.ErrAlreadyStarted) {
			t.Fatalf("second Run = %v", err)
		}
		if _, err := inf.AddHandler(&recorder{}, informer.HandlerOptions{}); !errors.Is(err, informer.ErrStopped) {
			t.Fatalf("AddHandler after stop = %v", err)
		}
	})
}

// TestGuarantee7PanicContained: a panicking handler is reported, keeps
// receiving later notifications, and does not disturb the others.
func TestGuarantee7PanicContained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		var errs errList
		inf := informer.New(src, quiet[*item](t, &errs))
		var after atomic.Int32
		inf.AddHandler(informer.HandlerFuncs[*item]{
			AddFunc: func(o *item, _ bool) {
				if o.Name == "bomb" {
					panic("kaboom")
				}
				after.Add(1)
			},
		}, informer.HandlerOptions{Name: "fragile"})
		other := &recorder{}
		inf.AddHandler(other, informer.HandlerOptions{})
		runInformer(t, inf)
		src.Create(newItem("ns", "bomb", "1"))
		src.Create(newItem("ns", "fine", "1"))
		src.Create(newItem("ns", "fine2", "1"))
		synctest.Wait()
		if after.Load() != 2 {
			t.Fatalf("panicking handler got %d later calls, want 2", after.Load())
		}
		if len(other.all()) != 3 {
			t.Fatalf("other handler got %d calls, want 3", len(other.all()))
		}
		var pe *informer.HandlerPanicError
		found := false
		for _, err := range errs.all() {
			if errors.As(err, &pe) && errors.Is(err, informer.ErrHandlerPanic) {
				found = pe.Handler == "fragile" && pe.Value == "kaboom" && len(pe.Stack) > 0
			}
		}
		if !found {
			t.Fatalf("no HandlerPanicError reported: %v", errs.all())
		}
	})
}

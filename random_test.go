package informer_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// TestRandomFaults applies thousands of random writes to a source,
// interleaved with random faults (dropped, failed, stalled and expired
// watches, failed lists, compactions, bookmarks, continue tokens expiring
// between pages) and with fake time passing. Once the faults stop, the cache
// and every handler's replayed state equal the source, and every handler
// saw each key's versions in order, with nothing missed or repeated.
func TestRandomFaults(t *testing.T) {
	for _, tc := range []struct {
		seed         uint64
		watchList    bool
		historyLimit int
	}{
		{1, false, 0},
		{2, true, 0},
		{3, false, 300},
		{4, true, 300},
	} {
		t.Run(fmt.Sprintf("seed%d watchList=%v history=%d", tc.seed, tc.watchList, tc.historyLimit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				randomFaults(t, tc.seed, tc.watchList, tc.historyLimit, 3000)
			})
		})
	}
}

func randomFaults(t *testing.T, seed uint64, watchList bool, historyLimit, steps int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	mem := memory.New[*item](memory.Options{WatchList: watchList, MaxPageSize: 7, HistoryLimit: historyLimit})
	const keys = 50
	key := func(i int) (ns, name string) { return fmt.Sprint("ns", i%3), fmt.Sprint("k", i) }
	for i := range keys / 2 {
		ns, name := key(i)
		mustDo(t, mem.Create(newItem(ns, name, "0")))
	}

	// Continue tokens expire between pages while expireTokens is on.
	var expireTokens atomic.Bool
	var tokMu sync.Mutex
	tokRNG := rand.New(rand.NewPCG(seed, 1))
	src := spy(mem)
	src.afterList = func(_ int, p page, err error) (page, error) {
		if err == nil && p.Continue != "" && expireTokens.Load() {
			tokMu.Lock()
			expire := tokRNG.IntN(3) == 0
			tokMu.Unlock()
			if expire {
				mem.ExpireContinueTokens()
			}
		}
		return p, err
	}

	var errs atomic.Int64
	opts := quiet[*item](t, nil)
	opts.OnError = func(error) { errs.Add(1) }
	opts.Reflector = informer.ReflectorOptions{WatchList: informer.WatchListOff, PageSize: 10, MinWatchTimeout: time.Minute}
	if watchList {
		opts.Reflector.WatchList = informer.WatchListOn
	}
	inf := informer.New[*item](src, opts)
	plain := &recorder{}
	inf.AddHandler(plain, informer.HandlerOptions{Name: "plain"})
	// The coalescing handler takes a fake millisecond per call, so that a
	// burst of writes builds a backlog to fold.
	coalescing := &recorder{hook: func(rec) { time.Sleep(time.Millisecond) }}
	inf.AddHandler(coalescing, informer.HandlerOptions{Name: "coalescing", CoalesceAbove: 3})
	late := &recorder{}
	runInformer(t, inf)

	stalled := false
	for step := range steps {
		if step == steps/2 {
			if _, err := inf.AddHandler(late, informer.HandlerOptions{Name: "late"}); err != nil {
				t.Fatal(err)
			}
		}
		ns, name := key(rng.IntN(keys))
		switch r := rng.IntN(100); {
		case r < 60:
			mustDo(t, mem.Upsert(newItem(ns, name, fmt.Sprint(step))))
		case r < 75:
			if _, ok := mem.Get(ns + "/" + name); ok {
				mustDo(t, mem.Delete(ns+"/"+name))
			}
		case r == 75:
			mem.DropWatches(nil)
		case r == 76:
			mem.DropWatches(errReset)
		case r == 77:
			mem.Compact()
		case r == 78:
			mem.FailLists(1+rng.IntN(3), nil)
		case r == 79:
			mem.FailWatches(1+rng.IntN(3), nil)
		case r == 80:
			if stalled {
				mem.ResumeWatches()
			} else {
				mem.StallWatches()
			}
			stalled = !stalled
		case r == 81:
			mem.Bookmark()
		case r == 82:
			expireTokens.Store(!expireTokens.Load())
			mem.ExpireContinueTokens()
		case r < 87:
			time.Sleep(time.Duration(rng.IntN(120_000)) * time.Millisecond)
		case r == 87:
			synctest.Wait()
		default:
			mustDo(t, mem.Upsert(newItem(ns, name, fmt.Sprint(step))))
		}
	}

	// The faults stop.
	mem.ResumeWatches()
	mem.FailLists(0, nil)
	mem.FailWatches(0, nil)
	expireTokens.Store(false)
	time.Sleep(10 * time.Minute)
	synctest.Wait()

	relists := 0 // lists (or streaming lists) started from scratch
	for _, c := range src.listCalls() {
		if c.opts.Continue == "" {
			relists++
		}
	}
	for _, c := range src.watchCalls() {
		if c.opts.SendInitialEvents {
			relists++
		}
	}
	if relists < 10 || errs.Load() < 50 {
		t.Errorf("%d lists, %d errors: the faults did not bite", relists, errs.Load())
	}
	want := sourceState(mem)
	if got := cacheState(inf); !equalMaps(got, want) {
		t.Errorf("cache differs from the source:\n got %v\nwant %v", got, want)
	}
	for _, h := range []struct {
		name       string
		r          *recorder
		coalescing bool
	}{
		{"plain", plain, false},
		{"coalescing", coalescing, true},
		{"late", late, false},
	} {
		recs := h.r.all()
		checkOrder(t, recs)
		checkHandlerLog(t, h.name, recs, h.coalescing)
		if got := h.r.state(); !equalMaps(got, want) {
			t.Errorf("%s handler's state differs from the source:\n got %v\nwant %v", h.name, got, want)
		}
	}
	if p, c := len(plain.all()), len(coalescing.all()); c >= p {
		t.Errorf("coalescing handler got %d calls, the plain one %d: nothing was folded", c, p)
	}
	if len(late.all()) == 0 || !late.all()[0].Initial {
		t.Error("the late handler did not start with the cache's contents")
	}
}

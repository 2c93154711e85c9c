package informer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// End-to-end checks of the reflector's rules that issue 20 added to its
// state machine (each is also a row of TestStep).

// A watch that keeps ending at once without delivering anything (a source
// that says "expired" in a way the reflector cannot read, then closes) leads
// to a relist, with backoff, instead of watching from the same version for
// ever.
func TestWatchesEndingEmptyRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		src := &hookSource{Source: mem, next: func(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error) {
			return informer.Event[*item]{}, io.EOF
		}}
		var errs errList
		inf := informer.New[*item](src, quiet[*item](t, &errs))
		runInformer(t, inf)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if n := mem.ListCalls(); n < 2 {
			t.Errorf("%d lists after %d watches that each ended at once: want a relist", n, mem.WatchCalls())
		}
		if n := mem.WatchCalls(); n > 40 {
			t.Errorf("%d watches in 30s: want a backoff between them", n)
		}
	})
}

// A run of unreadable events is a run of lost changes: after a bounded
// number on one stream the reflector lists again, which brings them back;
// and the warnings are summarised (1, 2, 4, 8...) instead of one each.
func TestUnreadableEventsRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		var watches atomic.Int32
		src := &hookSource{Source: mem, next: func(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error) {
			if n == 1 {
				watches.Add(1)
			}
			ev, err := w.Next()
			if err == nil && watches.Load() == 1 && ev.Type != informer.EventBookmark {
				// The first watch cannot read any of its events.
				return informer.Event[*item]{}, fmt.Errorf("decoding %s: %w", ev.Object.Name, informer.ErrBadEvent)
			}
			return ev, err
		}}
		var logs strings.Builder
		inf := informer.New[*item](src, informer.Options[*item]{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		runInformer(t, inf)
		synctest.Wait()
		for i := range 20 {
			mustDo(t, mem.Create(newItem("ns", fmt.Sprint("k", i), "v1")))
			synctest.Wait()
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got, want := cacheState(inf), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("cache %v, source %v: the skipped changes are lost", got, want)
		}
		if mem.ListCalls() < 2 {
			t.Errorf("%d lists, want a relist after the unreadable events", mem.ListCalls())
		}
		if n := strings.Count(logs.String(), "bad watch event"); n > 5 {
			t.Errorf("%d log records of unreadable events, want them summarised:\n%s", n, logs.String())
		}
	})
}

// A deletion without an event version (NDJSON's default, SSE without id)
// carries the object's last state, older than the stream's position: it is
// applied, and is not "out of order" (which forced a relist with backoff).
func TestDeleteWithoutVersionIsNotOutOfOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 1)
		src := spy(mem)
		src.event = func(ev informer.Event[*item]) (informer.Event[*item], bool) {
			if ev.Type == informer.EventDeleted {
				ev.ResourceVersion = ""
			}
			return ev, true
		}
		var errs errList
		inf := informer.New[*item](src, quiet[*item](t, &errs))
		runInformer(t, inf)
		synctest.Wait()
		mustDo(t, mem.Create(newItem("ns", "a", "v1")))
		mustDo(t, mem.Create(newItem("ns", "b", "v1")))
		mustDo(t, mem.Delete("ns/a"))
		mustDo(t, mem.Create(newItem("ns", "c", "v1")))
		synctest.Wait()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got, want := cacheState(inf), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("cache %v, source %v", got, want)
		}
		for _, err := range errs.all() {
			t.Errorf("error %v, want none", err)
		}
		if n := mem.ListCalls(); n != 1 {
			t.Errorf("%d lists, want no relist", n)
		}
	})
}

// A quiet stream whose source reports heartbeats (SSE comments, pings) is
// alive: past its deadline it ends like a timeout, not as "stalled" with an
// error and a backoff.
func TestHeartbeatsAreLiveness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 1)
		src := spy(mem)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		src.beforeWatch = func(o informer.WatchOptions) informer.WatchOptions {
			beat := o.Heartbeat
			wg.Add(1)
			go func() { // a ping every 15s while the test runs
				defer wg.Done()
				tick := time.NewTicker(15 * time.Second)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						beat()
					}
				}
			}()
			o.Timeout = 0 // the source ignores the timeout
			return o
		}
		var errs errList
		inf := informer.New[*item](src, informer.Options[*item]{Logger: discardLogger(), OnError: errs.add,
			Reflector: informer.ReflectorOptions{MinWatchTimeout: time.Minute}})
		stopInf := runInformer(t, inf)
		synctest.Wait()
		time.Sleep(4 * time.Minute) // past the first watch's deadline (at most 3m)
		synctest.Wait()
		h := inf.Health()
		if len(src.watchCalls()) < 2 {
			t.Errorf("%d watches, want the first ended past its deadline", len(src.watchCalls()))
		}
		for _, err := range errs.all() {
			t.Errorf("error %v: a quiet stream with heartbeats is not stalled", err)
		}
		if !h.Healthy() || h.SinceActivity > 15*time.Second || h.LastActivity.IsZero() {
			t.Errorf("health %v, want healthy with a heartbeat in the last 15s", h)
		}
		close(stop)
		stopInf()
		wg.Wait()
	})
}

// A watch that fails behind good lists (its events unreadable, so the
// reflector relists, and the list succeeds) is visible to a program:
// LastError and Health keep the watch's error.
func TestWatchFailingBehindGoodListsIsVisible(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 1)
		src := &hookSource{Source: mem, next: func(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error) {
			if n <= 10 { // each watch begins with an HTML page
				return informer.Event[*item]{}, fmt.Errorf("line %d: <html>: %w", n, informer.ErrBadEvent)
			}
			return w.Next()
		}}
		inf := informer.New[*item](src, informer.Options[*item]{Logger: discardLogger()})
		runInformer(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			time.Sleep(10 * time.Second)
			synctest.Wait()
			err := inf.LastError()
			var se *informer.SourceError
			if !errors.As(err, &se) || se.Op != "watch" || !errors.Is(err, informer.ErrBadEvent) {
				t.Fatalf("LastError %v (after %d lists), want the watch's error", err, mem.ListCalls())
			}
			if h := inf.Health(); h.LastError == nil || !h.Synced {
				t.Fatalf("health %v, want the watch's error", h)
			}
		}
	})
}

// Health follows the reflector: listing, watching, backing off until a
// time, failures counted, healthy again once the source answers.
func TestHealth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 1)
		inf := informer.New[*item](mem, informer.Options[*item]{Logger: discardLogger()})
		if h := inf.Health(); h.State != informer.StateStarting || h.Healthy() {
			t.Errorf("before Run: %v", h)
		}
		mem.FailLists(2, errors.New("connection refused"))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		synctest.Wait()
		h := inf.Health()
		if h.State != informer.StateBackingOff || !h.BackoffUntil.After(time.Now()) || h.ConsecutiveFailures != 1 || h.LastError == nil || h.Synced || h.Healthy() {
			t.Errorf("after a failed list: %v", h)
		}
		if err := inf.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		h = inf.Health()
		if h.State != informer.StateWatching || h.ConsecutiveFailures != 0 || h.LastError != nil || !h.Healthy() {
			t.Errorf("watching: %v", h)
		}
		mem.FailWatches(100, errors.New("503 Service Unavailable"))
		mem.DropWatches(errors.New("connection reset"))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		h = inf.Health()
		if h.ConsecutiveFailures < 3 || h.Healthy() || h.LastError == nil {
			t.Errorf("watches failing: %v", h)
		}
		mem.FailWatches(0, nil)
		time.Sleep(time.Minute)
		synctest.Wait()
		if h = inf.Health(); !h.Healthy() || h.State != informer.StateWatching {
			t.Errorf("recovered: %v", h)
		}
		cancel()
		<-done
		if h = inf.Health(); h.State != informer.StateStopped || h.Healthy() {
			t.Errorf("after Run: %v", h)
		}
	})
}

// A burst of errors on a later page of a List delays the list (the page is
// asked again), so that its version can be gone by the time its watch
// starts. The relist that follows must not back off, growing, each time:
// under bursts that hit list after list, that left a cache seconds behind
// (4.5 s in one chaos run). One unpaged List, at once, gets a fresh version.
func TestExpiredAfterARetriedPageRelistsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 10)
		src := spy(mem)
		lists, failed := 0, 0
		src.afterList = func(call int, p page, err error) (page, error) {
			if src.listCalls()[call].opts.Continue == "" {
				lists++
				return p, err
			}
			if failed >= lists || lists > 6 {
				return p, err
			}
			// In each of the first 6 lists, the first answer for a later
			// page is a 500, and the list's version will be gone when its
			// watch starts.
			failed = lists
			mem.FailWatches(1, fmt.Errorf("410 Gone: %w", informer.ErrExpired))
			return page{}, errors.New("500 Internal Server Error")
		}
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{PageSize: 4})
		start := time.Now()
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		var opened time.Time
		for _, w := range src.watchCalls() {
			if w.err == nil {
				opened = w.at
				break
			}
		}
		if d := opened.Sub(start); opened.IsZero() || d > time.Second {
			t.Errorf("the first watch that opened did %v after the start (lists %d, watches %d): want well under a second", d, len(src.listCalls()), len(src.watchCalls()))
		}
	})
}

// A burst of failures right after a healthy run (a server restarting, a
// burst of 500s) is retried at the initial delay a few times before the
// backoff grows: with a growing backoff, short bursts that the reconnects
// happened to hit one after another left a cache seconds behind after the
// last of them (4 s in the chaos suite's "500 bursts during paged lists").
func TestFailuresAfterAHealthyRunRetryQuickly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		src := spy(mem)
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		time.Sleep(10 * time.Second) // a healthy watch
		synctest.Wait()
		mem.FailWatches(5, errors.New("500 Internal Server Error"))
		mem.DropWatches(errReset)
		time.Sleep(time.Minute)
		synctest.Wait()
		w := src.watchCalls()
		if len(w) != 7 {
			t.Fatalf("%d watches, want the first, 5 failures and the one after", len(w))
		}
		ms := time.Millisecond
		want := [][2]time.Duration{{0, 1}, {100 * ms, 200 * ms}, {100 * ms, 200 * ms}, {100 * ms, 200 * ms}, {100 * ms, 200 * ms}, {200 * ms, 400 * ms}}
		for i, g := range want {
			if i == 0 {
				continue // the cut watch: resumed at once
			}
			if gap := w[i+1].at.Sub(w[i].at); gap < g[0] || gap >= g[1] {
				t.Errorf("watch %d came %v after the failure, want [%v, %v)", i+2, gap, g[0], g[1])
			}
		}
	})
}

// A streaming list goes on as a watch once its initial events end: Health
// says watching from then on, not listing.
func TestHealthAfterAStreamingList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{WatchList: true})
		seedItems(t, mem, "ns", 3)
		var errs errList
		r := newTestReflector(mem, newSinkRec(), &errs, informer.ReflectorOptions{WatchList: informer.WatchListOn})
		runReflector(t, r)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if h := r.Health(); h.State != informer.StateWatching || !h.Synced || mem.ListCalls() != 0 {
			t.Errorf("health %v after a streaming list (%d lists), want synced and watching", h, mem.ListCalls())
		}
	})
}

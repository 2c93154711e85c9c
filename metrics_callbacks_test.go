package informer_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// metricLog records every metrics callback as a line.
type metricLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *metricLog) add(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *metricLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

func (l *metricLog) metrics() informer.Metrics {
	return informer.Metrics{
		List:         func(streaming bool, reason string) { l.add("list streaming=%v %s", streaming, reason) },
		ListItems:    func(n int) { l.add("items %d", n) },
		WatchRestart: func(reason string) { l.add("restart %s", reason) },
	}
}

// Lists are reported with why they started, pages with their objects,
// and watches that start again with how the last one ended.
func TestMetricsListsAndRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log metricLog
		src := memory.New[*item](memory.Options{})
		for _, n := range []string{"a", "b", "c"} {
			src.Create(newItem("ns", n, "v1"))
		}
		opts := quiet[*item](t, nil)
		opts.Metrics = log.metrics()
		inf := informer.New(src, opts)
		runInformer(t, inf)
		synctest.Wait()
		check := func(what string, want ...string) {
			t.Helper()
			if got := log.take(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: callbacks %q, want %q", what, got, want)
			}
		}
		check("start", "list streaming=false initial", "items 3")

		src.Update(newItem("ns", "a", "v2")) // the watch delivers...
		synctest.Wait()
		src.DropWatches(nil) // ...and ends cleanly: resumed at once
		synctest.Wait()
		check("clean end", "restart closed")

		src.Update(newItem("ns", "b", "v2"))
		synctest.Wait()
		src.DropWatches(errReset) // a cut after delivering: resumed at once
		synctest.Wait()
		check("a cut", "restart error")

		src.DropWatches(nil) // a watch that delivered nothing: after a backoff
		time.Sleep(time.Minute)
		synctest.Wait()
		check("an empty watch", "restart stalled")

		src.Update(newItem("ns", "c", "v2"))
		synctest.Wait()
		cutOff(src, func() { src.Create(newItem("ns", "d", "v1")); src.Compact() })
		time.Sleep(time.Minute)
		synctest.Wait()
		check("compacted", "restart error", "list streaming=false expired", "items 4")
	})
}

// Each event is reported by type, an unreadable one as skipped, one
// notification in HandlerSample of each handler with its latency, and
// each panic of a handler.
func TestMetricsEventsAndHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		events := map[string]int{}
		var timed, panics []string
		count := func(k string) { mu.Lock(); events[k]++; mu.Unlock() }
		src := memory.New[*item](memory.Options{})
		opts := quiet[*item](t, nil)
		opts.Metrics = informer.Metrics{
			Event:   func(et informer.EventType) { count(et.String()) },
			Skipped: func() { count("skipped") },
			HandlerLatency: func(h string, d time.Duration) {
				mu.Lock()
				timed = append(timed, fmt.Sprintf("%s %s", h, d))
				mu.Unlock()
			},
			HandlerPanic: func(h string) { mu.Lock(); panics = append(panics, h); mu.Unlock() },
		}
		inf := informer.New(src, opts)
		slow := informer.HandlerFuncs[*item]{AddFunc: func(o *item, _ bool) {
			time.Sleep(time.Millisecond)
			if o.Name == "panic" {
				panic("boom")
			}
		}}
		if _, err := inf.AddHandler(slow, informer.HandlerOptions{Name: "slow"}); err != nil {
			t.Fatal(err)
		}
		runInformer(t, inf)
		synctest.Wait()
		for i := range 31 {
			src.Create(newItem("ns", fmt.Sprint(i), "v1"))
		}
		src.Create(newItem("ns", "panic", "v1"))
		src.Update(newItem("ns", "0", "v2"))
		src.Delete("ns/1")
		src.Bookmark()
		synctest.Wait()
		src.InjectEvent(informer.Event[*item]{Type: informer.EventModified}) // no object: unreadable
		time.Sleep(time.Minute)                                              // its repair: a relist
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		want := map[string]int{"ADDED": 32, "MODIFIED": 2, "DELETED": 1, "BOOKMARK": 1, "skipped": 1}
		if fmt.Sprint(events) != fmt.Sprint(want) {
			t.Errorf("events %v, want %v", events, want)
		}
		// 32 adds: the 16th and the 32nd are timed, each took 1 ms.
		if w := []string{"slow 1ms", "slow 1ms"}; fmt.Sprint(timed) != fmt.Sprint(w) {
			t.Errorf("timed %q, want %q", timed, w)
		}
		if fmt.Sprint(panics) != "[slow]" {
			t.Errorf("panics %q, want [slow]", panics)
		}
	})
}

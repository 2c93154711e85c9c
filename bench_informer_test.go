package informer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// benchSource is a Source that lists prebuilt objects and then streams
// prebuilt events, so benchmarks measure the informer, not a backend.
type benchSource struct {
	items  []*item
	rv     string
	events []informer.Event[*item]
}

func (s *benchSource) List(ctx context.Context, _ informer.ListOptions) (informer.Page[*item], error) {
	return informer.Page[*item]{Items: s.items, ResourceVersion: s.rv}, nil
}

func (s *benchSource) Watch(ctx context.Context, _ informer.WatchOptions) (informer.Watcher[*item], error) {
	return &benchWatcher{ctx: ctx, events: s.events, closed: make(chan struct{})}, nil
}

type benchWatcher struct {
	ctx    context.Context
	events []informer.Event[*item]
	i      int
	once   sync.Once
	closed chan struct{}
}

func (w *benchWatcher) Next() (informer.Event[*item], error) {
	if w.i < len(w.events) {
		w.i++
		return w.events[w.i-1], nil
	}
	select {
	case <-w.ctx.Done():
		return informer.Event[*item]{}, w.ctx.Err()
	case <-w.closed:
		return informer.Event[*item]{}, io.EOF
	}
}

func (w *benchWatcher) Close() error { w.once.Do(func() { close(w.closed) }); return nil }

// counter is a handler that counts calls and closes done at target.
type counter struct {
	n      atomic.Int64
	target int64
	done   chan struct{}
}

func newCounter(target int) *counter {
	return &counter{target: int64(target), done: make(chan struct{})}
}

func (c *counter) hit() {
	if c.n.Add(1) == c.target {
		close(c.done)
	}
}
func (c *counter) OnAdd(*item, bool)                { c.hit() }
func (c *counter) OnUpdate(_, _ *item)              { c.hit() }
func (c *counter) OnDelete(informer.Deleted[*item]) { c.hit() }

// benchItems returns n small ConfigMap-like objects over 100 namespaces.
func benchItems(n int) []*item {
	items := make([]*item, n)
	for i := range items {
		o := newItem(fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("obj-%d", i), "data")
		o.ResourceVersion = strconv.Itoa(i + 1)
		items[i] = o
	}
	return items
}

// measure runs fn b.N times with the timer and the allocation count
// limited to what fn marks with start/stop, and reports them per unit.
func measure(b *testing.B, units int, unit string, fn func(start func())) {
	var ns, allocs, bytes float64
	var m0, m1 runtime.MemStats
	for range b.N {
		b.StopTimer()
		var t0 int64
		started := false
		fn(func() {
			runtime.ReadMemStats(&m0)
			b.StartTimer()
			started = true
			t0 = nowNano()
		})
		if started {
			ns += float64(nowNano() - t0)
			b.StopTimer()
			runtime.ReadMemStats(&m1)
			allocs += float64(m1.Mallocs - m0.Mallocs)
			bytes += float64(m1.TotalAlloc - m0.TotalAlloc)
		}
	}
	total := float64(b.N * units)
	b.ReportMetric(ns/total, "ns/"+unit)
	b.ReportMetric(allocs/total, "allocs/"+unit)
	b.ReportMetric(bytes/total, "B/"+unit)
	b.ReportMetric(total*1e9/ns, unit+"s/s")
}

func quietOpts() informer.Options[*item] {
	o := informer.Options[*item]{Logger: discardLogger()}
	if os.Getenv("INFORMER_BENCH_METRICS") == "1" {
		o.Metrics = benchMetrics()
	}
	return o
}

// benchMetrics sets every callback of Metrics to an atomic count, as a
// metrics adapter's counter would be: INFORMER_BENCH_METRICS=1 measures
// what they cost (issue 31: at most 5% over none).
func benchMetrics() informer.Metrics {
	var n atomic.Int64
	return informer.Metrics{
		Event:          func(informer.EventType) { n.Add(1) },
		Skipped:        func() { n.Add(1) },
		List:           func(bool, string) { n.Add(1) },
		ListItems:      func(k int) { n.Add(int64(k)) },
		WatchRestart:   func(string) { n.Add(1) },
		HandlerLatency: func(_ string, d time.Duration) { n.Add(int64(d)) },
		HandlerPanic:   func(string) { n.Add(1) },
	}
}

// BenchmarkInformerInitialSync lists N objects into a fresh informer with H
// counting handlers, until every handler has seen every object.
func BenchmarkInformerInitialSync(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		items := benchItems(n)
		for _, h := range []int{1, 10} {
			b.Run(fmt.Sprintf("N=%d/H=%d", n, h), func(b *testing.B) {
				measure(b, n, "obj", func(start func()) {
					src := &benchSource{items: items, rv: strconv.Itoa(n)}
					inf := informer.New[*item](src, quietOpts())
					counters := make([]*counter, h)
					for i := range counters {
						counters[i] = newCounter(n)
						inf.AddHandler(counters[i], informer.HandlerOptions{})
					}
					ctx, cancel := context.WithCancel(context.Background())
					done := make(chan struct{})
					start()
					go func() { inf.Run(ctx); close(done) }()
					for _, c := range counters {
						<-c.done
					}
					cancel()
					<-done
				})
			})
		}
	}
}

// BenchmarkInformerSteadyState streams E MODIFIED events over 10k cached
// objects to H counting handlers.
func BenchmarkInformerSteadyState(b *testing.B) {
	const n, e = 10_000, 100_000
	items := benchItems(n)
	events := make([]informer.Event[*item], e)
	for i := range events {
		o := *items[i%n]
		o.ResourceVersion = strconv.Itoa(n + i + 1)
		events[i] = informer.Event[*item]{Type: informer.EventModified, Object: &o}
	}
	for _, h := range []int{1, 10} {
		b.Run(fmt.Sprintf("H=%d", h), func(b *testing.B) {
			measure(b, e, "event", func(start func()) {
				gate := make(chan struct{})
				src := &gatedSource{benchSource: benchSource{items: items, rv: strconv.Itoa(n), events: events}, gate: gate}
				inf := informer.New[*item](src, quietOpts())
				counters := make([]*counter, h)
				for i := range counters {
					counters[i] = newCounter(n + e)
					inf.AddHandler(counters[i], informer.HandlerOptions{})
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { inf.Run(ctx); close(done) }()
				inf.WaitForSync(ctx)
				for _, c := range counters {
					for c.n.Load() < int64(n) {
						runtime.Gosched()
					}
				}
				start()
				close(gate)
				for _, c := range counters {
					<-c.done
				}
				cancel()
				<-done
			})
		})
	}
}

// gatedSource holds its watch's events until gate closes.
type gatedSource struct {
	benchSource
	gate chan struct{}
}

func (s *gatedSource) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	select {
	case <-s.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.benchSource.Watch(ctx, opts)
}

// BenchmarkInformerBlockedHandler streams 1M events while one handler never
// returns, and reports the live heap held per pending notification.
func BenchmarkInformerBlockedHandler(b *testing.B) {
	const keys, e = 1000, 1_000_000
	items := benchItems(keys)
	events := make([]informer.Event[*item], e)
	for i := range events {
		// Objects are shared, so the heap measured is the queue's.
		events[i] = informer.Event[*item]{Type: informer.EventModified, Object: items[i%keys], ResourceVersion: strconv.Itoa(keys + i + 1)}
	}
	for _, pol := range []struct {
		name     string
		coalesce int
	}{{"unbounded", 0}, {"bounded", 1000}} {
		b.Run(pol.name, func(b *testing.B) {
			var perEvent, pending float64
			for range b.N {
				gate := make(chan struct{})
				src := &gatedSource{benchSource: benchSource{items: items, rv: strconv.Itoa(keys), events: events}, gate: gate}
				inf := informer.New[*item](src, quietOpts())
				block := make(chan struct{})
				entered := make(chan struct{})
				var once sync.Once
				reg, _ := inf.AddHandler(informer.HandlerFuncs[*item]{AddFunc: func(*item, bool) {
					once.Do(func() { close(entered) })
					<-block
				}}, informer.HandlerOptions{CoalesceAbove: pol.coalesce})
				fast := newCounter(keys + e)
				inf.AddHandler(fast, informer.HandlerOptions{})
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { inf.Run(ctx); close(done) }()
				<-entered
				for fast.n.Load() < keys {
					runtime.Gosched()
				}
				before := liveHeap()
				close(gate)
				<-fast.done
				after := liveHeap()
				p := reg.Pending()
				perEvent += float64(after-before) / float64(e)
				pending += float64(p)
				close(block)
				cancel()
				<-done
				runtime.KeepAlive(events)
			}
			b.ReportMetric(perEvent/float64(b.N), "B/event")
			b.ReportMetric(pending/float64(b.N), "pending")
		})
	}
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkInformerRelistPeakHeap syncs 100k objects from the memory source,
// then forces a relist (the watch drops and its resourceVersion is
// compacted) and reports the peak heap during the relist against the steady
// heap before it.
func BenchmarkInformerRelistPeakHeap(b *testing.B) {
	const n = 100_000
	var ratio float64
	for range b.N {
		src := memory.New[*item](memory.Options{})
		for _, o := range benchItems(n) {
			o.ResourceVersion = ""
			src.Create(o)
		}
		inf := informer.New[*item](src, quietOpts())
		relisted := make(chan struct{})
		var replaced atomic.Int64
		inf.AddHandler(informer.HandlerFuncs[*item]{UpdateFunc: func(_, _ *item) {
			if replaced.Add(1) == n {
				close(relisted)
			}
		}}, informer.HandlerOptions{RelistUnchanged: true}) // told of every relisted object, so it knows when the relist is through
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { inf.Run(ctx); close(done) }()
		inf.WaitForSync(ctx)
		steady := liveHeap()

		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		src.DropWatches(errors.New("connection reset"))
		src.Create(newItem("ns-0", "new", "data")) // missed by the watch,
		src.Compact()                              // and gone from history: relist
		<-relisted
		close(stop)
		<-sampled
		ratio += float64(peak.Load()) / float64(steady)
		cancel()
		<-done
	}
	b.ReportMetric(ratio/float64(b.N), "peak/steady")
}

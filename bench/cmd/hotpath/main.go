// Command hotpath runs one in-memory workload of bench/informer once, in
// its own process, for instruction counts (valgrind --tool=callgrind),
// which are repeatable on a busy machine where times are not: the same
// workload at two sizes, subtracted, gives the instructions per event or
// per object, setup and process start excluded.
//
//	hotpath -workload steady -events 100000 -stream 50000 -handlers 1
//	hotpath -workload initial -objects 100000 -list 50000 -handlers 1
//	hotpath -workload fifo -objects 10000 -rounds 10
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	corev1 "k8s.io/api/core/v1"
)

type cm = *corev1.ConfigMap

func main() {
	wl := flag.String("workload", "steady", "steady, initial or fifo")
	objects := flag.Int("objects", workload.SteadyObjects, "objects listed (steady: cached before the events)")
	events := flag.Int("events", workload.SteadyEvents, "steady: MODIFIED events built")
	stream := flag.Int("stream", -1, "steady: how many of the events built are streamed; -1: all")
	list := flag.Int("list", -1, "initial: how many of the objects built are listed; -1: all")
	handlers := flag.Int("handlers", 1, "counting handlers")
	rounds := flag.Int("rounds", 1, "fifo: add-then-pop rounds of all objects")
	flag.BoolVar(&withMetrics, "metrics", false, "steady, initial: set every informer.Metrics callback (atomic counts)")
	flag.Parse()
	switch *wl {
	case "steady":
		if *stream < 0 || *stream > *events {
			*stream = *events
		}
		steady(workload.Objects(*objects), *events, *stream, *handlers)
	case "initial":
		items := workload.Objects(*objects)
		if *list >= 0 && *list < len(items) {
			items = items[:*list]
		}
		steady(items, 0, 0, *handlers)
	case "fifo":
		fifo(*objects, *rounds)
	default:
		fmt.Fprintln(os.Stderr, "unknown workload", *wl)
		os.Exit(2)
	}
}

// steady lists items (n objects) into an informer with h counting handlers, then
// streams the first s of e MODIFIED events built, and returns when every
// handler has seen all. (Building the same events for two values of s
// leaves only the informer's work in the difference.)
func steady(items []cm, e, s, h int) {
	n := len(items)
	evs := make([]informer.Event[cm], e)
	for i, o := range workload.Modified(items, e, n+1) {
		evs[i] = informer.Event[cm]{Type: informer.EventModified, Object: o, ResourceVersion: o.ResourceVersion}
	}
	src := &source{items: items, rv: workload.RV(n), events: evs[:s]}
	opts := informer.Options[cm]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if withMetrics {
		opts.Metrics = allMetrics()
	}
	inf := informer.New[cm](src, opts)
	counters := workload.Counters(h, n+s)
	for _, c := range counters {
		inf.AddHandler(informer.HandlerFuncs[cm]{
			AddFunc:    func(cm, bool) { c.Hit() },
			UpdateFunc: func(_, _ cm) { c.Hit() },
		}, informer.HandlerOptions{})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	workload.WaitAll(counters)
	cancel()
	<-done
}

// withMetrics sets every callback of informer.Metrics (-metrics).
var withMetrics bool

// allMetrics counts every callback atomically, as a metrics adapter's
// counter would.
func allMetrics() informer.Metrics {
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

// fifo adds n distinct keys to a DeltaFIFO whose known objects are an
// empty Indexer, then pops them one by one, rounds times.
func fifo(n, rounds int) {
	objs := workload.Objects(n)
	known := informer.NewIndexer(informer.IndexerOptions[cm]{NamespaceIndex: true})
	f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[cm]{KnownObjects: known})
	noop := func(string, []informer.Delta[cm]) error { return nil }
	for range rounds {
		for _, o := range objs {
			if err := f.Add(o); err != nil {
				panic(err)
			}
		}
		for range n {
			if err := f.Pop(context.Background(), noop); err != nil {
				panic(err)
			}
		}
	}
}

// source lists prebuilt objects, then streams prebuilt events, then
// blocks until its watch is closed.
type source struct {
	items  []cm
	rv     string
	events []informer.Event[cm]
}

func (s *source) List(context.Context, informer.ListOptions) (informer.Page[cm], error) {
	return informer.Page[cm]{Items: s.items, ResourceVersion: s.rv}, nil
}

func (s *source) Watch(ctx context.Context, _ informer.WatchOptions) (informer.Watcher[cm], error) {
	return &watcher{ctx: ctx, events: s.events, closed: make(chan struct{})}, nil
}

type watcher struct {
	ctx    context.Context
	events []informer.Event[cm]
	i      int
	closed chan struct{}
	once   bool
}

func (w *watcher) Next() (informer.Event[cm], error) {
	if w.i < len(w.events) {
		w.i++
		return w.events[w.i-1], nil
	}
	select {
	case <-w.ctx.Done():
		return informer.Event[cm]{}, w.ctx.Err()
	case <-w.closed:
		return informer.Event[cm]{}, io.EOF
	}
}

func (w *watcher) Close() error {
	if !w.once {
		w.once = true
		close(w.closed)
	}
	return nil
}

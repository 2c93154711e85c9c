// Command hotpath runs one in-memory workload of the informer once, in its
// own process, and prints the time it took per unit (object, event or
// add-and-pop): elapsed and CPU time of the whole process (every goroutine
// and the GC). It uses only the informer's public API and client-go's
// types, so bench/guard.sh builds the same program against an older
// commit of the library and compares the two.
//
// It also serves instruction counts (valgrind --tool=callgrind), which
// are repeatable on a busy machine where times are not: the same workload
// at two sizes, subtracted, gives the instructions per event or per
// object, setup and process start excluded.
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/informer-go/informer"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type cm = *corev1.ConfigMap

func main() {
	wl := flag.String("workload", "steady", "steady, initial or fifo")
	objects := flag.Int("objects", 10_000, "objects built (steady: cached before the events)")
	list := flag.Int("list", -1, "initial: how many of the objects built are listed; -1: all")
	events := flag.Int("events", 100_000, "steady: MODIFIED events built")
	stream := flag.Int("stream", -1, "steady: how many of the events built are streamed; -1: all")
	handlers := flag.Int("handlers", 1, "counting handlers")
	rounds := flag.Int("rounds", 1, "fifo: add-then-pop rounds of all objects")
	sorted := flag.Bool("sorted", false, "initial: list the objects in namespace order, as a Kubernetes server does (else they take the 100 namespaces in turn)")
	flag.IntVar(&yieldEvery, "yield", 0, "steady: the watch yields the processor (runtime.Gosched) after every this many events; 0: never. With GOMAXPROCS=1 (callgrind) this fixes the batches the process loop takes, which otherwise follow the scheduler's timing and move the instructions per event by ±15%")
	flag.Parse()
	items := configMaps(*objects, 1)
	var units int
	var t timer
	switch *wl {
	case "steady":
		if *stream < 0 || *stream > *events {
			*stream = *events
		}
		// All events are built, whatever is streamed, so that the
		// instructions of two runs that stream different numbers differ
		// by the informer's work only.
		evs := make([]informer.Event[cm], *events)
		for i := range evs {
			o := *items[i%len(items)]
			o.ResourceVersion = strconv.Itoa(len(items) + 1 + i)
			evs[i] = informer.Event[cm]{Type: informer.EventModified, Object: &o, ResourceVersion: o.ResourceVersion}
		}
		evs = evs[:*stream]
		units = len(evs)
		t = steady(items, evs, *handlers)
	case "initial":
		if *sorted {
			slices.SortStableFunc(items, func(a, b cm) int { return strings.Compare(a.Namespace, b.Namespace) })
		}
		if *list >= 0 && *list < len(items) {
			items = items[:*list]
		}
		units = len(items)
		t = steady(items, nil, *handlers)
	case "fifo":
		units = len(items) * *rounds
		t = fifo(items, *rounds)
	default:
		fmt.Fprintln(os.Stderr, "unknown workload", *wl)
		os.Exit(2)
	}
	if units > 0 {
		fmt.Printf("%s ns/unit %.1f cpu-ns/unit %.1f\n", *wl, float64(t.wall)/float64(units), float64(t.cpu)/float64(units))
	}
}

// configMaps returns n small ConfigMaps over 100 namespaces, object i at
// resourceVersion first+i.
func configMaps(n, first int) []cm {
	objs := make([]cm, n)
	for i := range objs {
		objs[i] = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:       "ns-" + strconv.Itoa(i%100),
				Name:            "cm-" + strconv.Itoa(i),
				ResourceVersion: strconv.Itoa(first + i),
				Labels:          map[string]string{"app": "app-" + strconv.Itoa(i%10), "tier": "backend"},
			},
			Data: map[string]string{"config.yaml": "key: value\n"},
		}
	}
	return objs
}

// timer is what a timed section took: elapsed and process CPU time.
type timer struct{ wall, cpu time.Duration }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure times fn.
func measure(fn func()) timer {
	c0, t0 := cpuTime(), time.Now()
	fn()
	return timer{wall: time.Since(t0), cpu: cpuTime() - c0}
}

// optionHooks, added by the program's other files (metrics.go), adjust
// the informer's options. guard.sh builds main.go alone against older
// commits, whose API may lack what those files use.
var optionHooks []func(*informer.Options[cm])

// counter counts handler calls and closes done at target.
type counter struct {
	n      atomic.Int64
	target int64
	done   chan struct{}
}

func (c *counter) hit() {
	if c.n.Add(1) == c.target {
		close(c.done)
	}
}

// steady lists items into an informer with h counting handlers; with
// events, it then streams them and times only that, else it times the
// list (from Run until every handler has seen every object).
func steady(items []cm, evs []informer.Event[cm], h int) timer {
	gate := make(chan struct{})
	if len(evs) == 0 {
		close(gate)
	}
	src := &source{items: items, rv: strconv.Itoa(len(items)), events: evs, gate: gate}
	opts := informer.Options[cm]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, hook := range optionHooks {
		hook(&opts)
	}
	inf := informer.New[cm](src, opts)
	counters := make([]*counter, h)
	for i := range counters {
		c := &counter{target: int64(len(items) + len(evs)), done: make(chan struct{})}
		counters[i] = c
		inf.AddHandler(informer.HandlerFuncs[cm]{
			AddFunc:    func(cm, bool) { c.hit() },
			UpdateFunc: func(_, _ cm) { c.hit() },
		}, informer.HandlerOptions{})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	wait := func() {
		for _, c := range counters {
			<-c.done
		}
	}
	var t timer
	if len(evs) == 0 {
		t = measure(func() {
			go func() { inf.Run(ctx); close(done) }()
			wait()
		})
	} else {
		go func() { inf.Run(ctx); close(done) }()
		for _, c := range counters {
			for c.n.Load() < int64(len(items)) {
				time.Sleep(time.Millisecond)
			}
		}
		t = measure(func() {
			close(gate)
			wait()
		})
	}
	cancel()
	<-done
	return t
}

// fifo adds the objects to a DeltaFIFO whose known objects are an empty
// Indexer, then pops them one by one, rounds times.
func fifo(objs []cm, rounds int) timer {
	known := informer.NewIndexer(informer.IndexerOptions[cm]{NamespaceIndex: true})
	f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[cm]{KnownObjects: known})
	noop := func(string, []informer.Delta[cm]) error { return nil }
	return measure(func() {
		for range rounds {
			for _, o := range objs {
				if err := f.Add(o); err != nil {
					panic(err)
				}
			}
			for range objs {
				if err := f.Pop(context.Background(), noop); err != nil {
					panic(err)
				}
			}
		}
	})
}

// source lists prebuilt objects, then, once gate is closed, streams
// prebuilt events, then blocks until its watch is closed.
type source struct {
	items  []cm
	rv     string
	events []informer.Event[cm]
	gate   chan struct{}
}

func (s *source) List(context.Context, informer.ListOptions) (informer.Page[cm], error) {
	return informer.Page[cm]{Items: s.items, ResourceVersion: s.rv}, nil
}

func (s *source) Watch(ctx context.Context, _ informer.WatchOptions) (informer.Watcher[cm], error) {
	select {
	case <-s.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &watcher{ctx: ctx, events: s.events, closed: make(chan struct{})}, nil
}

// yieldEvery: see the -yield flag.
var yieldEvery int

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
		if yieldEvery > 0 && w.i%yieldEvery == 0 {
			runtime.Gosched()
		}
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

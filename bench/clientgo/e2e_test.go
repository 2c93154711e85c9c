package clientgobench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/informer-go/informer/bench/workload"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

func newInformer(lw cache.ListerWatcher) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}

func countingHandler(c *workload.Counter) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.Hit() },
		UpdateFunc: func(_, _ any) { c.Hit() },
		DeleteFunc: func(any) { c.Hit() },
	}
}

func addHandler(b *testing.B, inf cache.SharedIndexInformer, h cache.ResourceEventHandler) cache.ResourceEventHandlerRegistration {
	reg, err := inf.AddEventHandler(h)
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

// run starts inf and returns a function that stops it and waits for Run to
// return.
func run(inf cache.SharedIndexInformer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.RunWithContext(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func BenchmarkInitialSync(b *testing.B) {
	for _, n := range workload.InitialSyncSizes {
		l := list(workload.SharedObjects(n), workload.RV(n))
		for _, h := range workload.HandlerCounts {
			b.Run(fmt.Sprintf("N=%d/H=%d", n, h), func(b *testing.B) {
				workload.Measure(b, n, "obj", func(span *workload.Span) {
					inf := newInformer(newListWatch(l, nil, nil))
					counters := workload.Counters(h, n)
					for _, c := range counters {
						addHandler(b, inf, countingHandler(c))
					}
					span.Start()
					stop := run(inf)
					workload.WaitAll(counters)
					span.Stop()
					stop()
				})
			})
		}
	}
}

// steady starts an informer over the listed objects whose watch streams
// events once gate closes, with the given handlers, and waits until every
// counter has seen the initial adds.
func steady(b *testing.B, l *corev1.ConfigMapList, events []watch.Event, gate chan struct{}, counters []*workload.Counter, extra ...cache.ResourceEventHandler) (stop func()) {
	inf := newInformer(newListWatch(l, events, gate))
	for _, c := range counters {
		addHandler(b, inf, countingHandler(c))
	}
	for _, h := range extra {
		addHandler(b, inf, h)
	}
	stop = run(inf)
	for _, c := range counters {
		c.WaitAtLeast(len(l.Items))
	}
	return stop
}

func BenchmarkSteadyState(b *testing.B) {
	items := workload.SharedObjects(workload.SteadyObjects)
	l := list(items, workload.RV(len(items)))
	events := modified(workload.Modified(items, workload.SteadyEvents, workload.SteadyObjects+1))
	for _, h := range workload.HandlerCounts {
		b.Run(fmt.Sprintf("H=%d", h), func(b *testing.B) {
			workload.Measure(b, len(events), "event", func(span *workload.Span) {
				gate := make(chan struct{})
				counters := workload.Counters(h, len(items)+len(events))
				stop := steady(b, l, events, gate, counters)
				span.Start()
				close(gate)
				workload.WaitAll(counters)
				span.Stop()
				stop()
			})
		})
	}
}

func BenchmarkFanOut(b *testing.B) {
	items := workload.SharedObjects(workload.SteadyObjects)
	l := list(items, workload.RV(len(items)))
	events := modified(workload.Modified(items, workload.FanOutEvents, workload.SteadyObjects+1))
	workload.MeasureMillis(b, func(span *workload.Span) {
		gate := make(chan struct{})
		counters := workload.Counters(workload.FanOutFast, len(items)+len(events))
		slow := &workload.Slow{}
		slowH := cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { slow.Call() },
			UpdateFunc: func(_, _ any) { slow.Call() },
		}
		stop := steady(b, l, events, gate, counters, slowH)
		span.Start()
		close(gate)
		workload.WaitAll(counters)
		span.Stop()
		slow.Release()
		stop()
	})
}

func BenchmarkBlockedHandler(b *testing.B) {
	items := workload.SharedObjects(workload.BlockedKeys)
	l := list(items, workload.RV(len(items)))
	// client-go reads the watch's resourceVersion from each event's object,
	// so every event needs its own object to carry an increasing one: these
	// are shallow copies (shared label and data maps), all built before the
	// heap is measured and kept alive to the end, so the heap that grows is
	// the queue's.
	events := modified(workload.Modified(items, workload.BlockedEvents, len(items)+1))
	b.Run("unbounded", func(b *testing.B) {
		var perEvent float64
		b.StopTimer() // timed: only taking in the events
		for range b.N {
			gate := make(chan struct{})
			inf := newInformer(newListWatch(l, events, gate))
			block := make(chan struct{})
			entered := make(chan struct{})
			var once sync.Once
			wait := func() {
				once.Do(func() { close(entered) })
				<-block
			}
			addHandler(b, inf, cache.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { wait() },
				UpdateFunc: func(_, _ any) { wait() },
			})
			fast := workload.NewCounter(len(items) + len(events))
			addHandler(b, inf, countingHandler(fast))
			stop := run(inf)
			<-entered
			fast.WaitAtLeast(len(items))
			before := workload.LiveHeap()
			b.StartTimer()
			close(gate)
			<-fast.Done()
			b.StopTimer()
			after := workload.LiveHeap()
			perEvent += (float64(after) - float64(before)) / float64(len(events))
			close(block)
			stop()
		}
		runtime.KeepAlive(events)
		b.ReportMetric(perEvent/float64(b.N), "B/event")
	})
}

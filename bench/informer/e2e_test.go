package informerbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
)

func opts() informer.Options[cm] {
	return informer.Options[cm]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func countingHandler(c *workload.Counter) informer.Handler[cm] {
	return informer.HandlerFuncs[cm]{
		AddFunc:    func(cm, bool) { c.Hit() },
		UpdateFunc: func(_, _ cm) { c.Hit() },
		DeleteFunc: func(informer.Deleted[cm]) { c.Hit() },
	}
}

// run starts inf and returns a function that stops it and waits for Run to
// return.
func run(inf *informer.Informer[cm]) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func BenchmarkInitialSync(b *testing.B) {
	for _, n := range workload.InitialSyncSizes {
		items := workload.SharedObjects(n)
		for _, h := range workload.HandlerCounts {
			b.Run(fmt.Sprintf("N=%d/H=%d", n, h), func(b *testing.B) {
				workload.Measure(b, n, "obj", func(span *workload.Span) {
					inf := informer.New[cm](&source{items: items, rv: workload.RV(n)}, opts())
					counters := workload.Counters(h, n)
					for _, c := range counters {
						inf.AddHandler(countingHandler(c), informer.HandlerOptions{})
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

// steady starts an informer over n cached objects whose watch streams
// events once gate closes, with the given handlers, and waits until every
// counter has seen the n initial adds.
func steady(items []cm, events []informer.Event[cm], gate chan struct{}, counters []*workload.Counter, extra ...informer.Handler[cm]) (stop func()) {
	src := &source{items: items, rv: workload.RV(len(items)), events: events, gate: gate}
	inf := informer.New[cm](src, opts())
	for _, c := range counters {
		inf.AddHandler(countingHandler(c), informer.HandlerOptions{})
	}
	for _, h := range extra {
		inf.AddHandler(h, informer.HandlerOptions{})
	}
	stop = run(inf)
	for _, c := range counters {
		c.WaitAtLeast(len(items))
	}
	return stop
}

func BenchmarkSteadyState(b *testing.B) {
	items := workload.SharedObjects(workload.SteadyObjects)
	events := modified(workload.Modified(items, workload.SteadyEvents, workload.SteadyObjects+1))
	for _, h := range workload.HandlerCounts {
		b.Run(fmt.Sprintf("H=%d", h), func(b *testing.B) {
			workload.Measure(b, len(events), "event", func(span *workload.Span) {
				gate := make(chan struct{})
				counters := workload.Counters(h, len(items)+len(events))
				stop := steady(items, events, gate, counters)
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
	events := modified(workload.Modified(items, workload.FanOutEvents, workload.SteadyObjects+1))
	workload.MeasureMillis(b, func(span *workload.Span) {
		gate := make(chan struct{})
		counters := workload.Counters(workload.FanOutFast, len(items)+len(events))
		slow := &workload.Slow{}
		slowH := informer.HandlerFuncs[cm]{
			AddFunc:    func(cm, bool) { slow.Call() },
			UpdateFunc: func(_, _ cm) { slow.Call() },
		}
		stop := steady(items, events, gate, counters, slowH)
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
	// Events share the cached objects and carry their own resourceVersion,
	// so the heap that grows is the queue's.
	events := make([]informer.Event[cm], workload.BlockedEvents)
	for i := range events {
		events[i] = informer.Event[cm]{Type: informer.EventModified, Object: items[i%len(items)], ResourceVersion: workload.RV(len(items) + 1 + i)}
	}
	for _, pol := range []struct {
		name     string
		coalesce int
	}{{"unbounded", 0}, {"bounded", workload.CoalesceAbove}} {
		b.Run(pol.name, func(b *testing.B) {
			var perEvent, pending float64
			b.StopTimer() // timed: only taking in the events
			for range b.N {
				gate := make(chan struct{})
				src := &source{items: items, rv: workload.RV(len(items)), events: events, gate: gate}
				inf := informer.New[cm](src, opts())
				block := make(chan struct{})
				entered := make(chan struct{})
				var once sync.Once
				wait := func() {
					once.Do(func() { close(entered) })
					<-block
				}
				reg, _ := inf.AddHandler(informer.HandlerFuncs[cm]{
					AddFunc:    func(cm, bool) { wait() },
					UpdateFunc: func(_, _ cm) { wait() },
				}, informer.HandlerOptions{CoalesceAbove: pol.coalesce})
				fast := workload.NewCounter(len(items) + len(events))
				inf.AddHandler(countingHandler(fast), informer.HandlerOptions{})
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
				pending += float64(reg.Pending())
				close(block)
				stop()
			}
			runtime.KeepAlive(events)
			b.ReportMetric(perEvent/float64(b.N), "B/event")
			b.ReportMetric(pending/float64(b.N), "pending")
		})
	}
}

package informerbench

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/workqueue"
)

func newQueue() *workqueue.Queue[string] {
	return workqueue.New(workqueue.Options[string]{})
}

func BenchmarkWorkqueue(b *testing.B) {
	keys := workload.Keys(workload.DelayPending * 2)
	ctx := context.Background()

	b.Run("AddGetDone/workers=1", func(b *testing.B) {
		q := newQueue()
		defer q.ShutDown()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q.Add(keys[i%workload.QueueKeys])
			k, _ := q.Get(ctx)
			q.Done(k)
			i++
		}
	})

	b.Run("AddGetDone/workers=8", func(b *testing.B) {
		q := newQueue()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for {
					k, err := q.Get(ctx)
					if err != nil {
						return
					}
					q.Done(k)
				}
			})
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q.Add(keys[i%workload.QueueKeys])
			i++
		}
		q.ShutDownWithDrain(ctx)
		wg.Wait()
	})

	b.Run(fmt.Sprintf("AddAfter/pending=%d", workload.DelayPending), func(b *testing.B) {
		q := newQueue()
		defer q.ShutDown()
		for _, k := range keys[:workload.DelayPending] {
			q.AddAfter(k, 2*time.Hour)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			// Half new keys, half earlier due times for waiting ones.
			q.AddAfter(keys[i%len(keys)], time.Hour+time.Duration(len(keys)-i%len(keys))*time.Millisecond)
			i++
		}
	})

	b.Run("InformerToWorker/SteadyState", func(b *testing.B) {
		items := workload.SharedObjects(workload.SteadyObjects)
		events := modified(workload.Modified(items, workload.SteadyEvents, workload.SteadyObjects+1))
		workload.Measure(b, len(events), "event", func(span *workload.Span) {
			gate := make(chan struct{})
			src := &source{items: items, rv: workload.RV(len(items)), events: events, gate: gate}
			inf := informer.New[cm](src, opts())
			q := newQueue()
			enqueued := workload.NewCounter(len(items) + len(events))
			reconciled := workload.NewCounter(len(items))
			workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[cm]{
				Filter: func(cm) bool { enqueued.Hit(); return true },
			})
			lister := inf.Lister()
			var wg sync.WaitGroup
			for range workload.QueueWorkers {
				wg.Go(func() {
					for {
						k, err := q.Get(ctx)
						if err != nil {
							return
						}
						lister.Get(k)
						reconciled.Hit()
						q.Done(k)
					}
				})
			}
			stop := run(inf)
			reconciled.WaitAtLeast(len(items))
			span.Start()
			close(gate)
			enqueued.WaitAtLeast(len(items) + len(events))
			q.ShutDownWithDrain(ctx)
			span.Stop()
			wg.Wait()
			stop()
		})
	})
}

package clientgobench

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/bench/workload"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// newQueue is what a controller uses: client-go's typed rate-limiting
// queue with the default controller rate limiter.
func newQueue() workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
}

func BenchmarkWorkqueue(b *testing.B) {
	keys := workload.Keys(workload.DelayPending * 2)

	b.Run("AddGetDone/workers=1", func(b *testing.B) {
		q := newQueue()
		defer q.ShutDown()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q.Add(keys[i%workload.QueueKeys])
			k, _ := q.Get()
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
					k, shutdown := q.Get()
					if shutdown {
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
		q.ShutDownWithDrain()
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
			q.AddAfter(keys[i%len(keys)], time.Hour+time.Duration(len(keys)-i%len(keys))*time.Millisecond)
			i++
		}
	})

	b.Run("InformerToWorker/SteadyState", func(b *testing.B) {
		items := workload.SharedObjects(workload.SteadyObjects)
		l := list(items, workload.RV(len(items)))
		events := modified(workload.Modified(items, workload.SteadyEvents, workload.SteadyObjects+1))
		workload.Measure(b, len(events), "event", func(span *workload.Span) {
			gate := make(chan struct{})
			inf := newInformer(newListWatch(l, events, gate))
			q := newQueue()
			enqueued := workload.NewCounter(len(items) + len(events))
			reconciled := workload.NewCounter(len(items))
			enqueue := func(obj any) {
				enqueued.Hit()
				if k, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
					q.Add(k)
				}
			}
			addHandler(b, inf, cache.ResourceEventHandlerFuncs{
				AddFunc:    enqueue,
				UpdateFunc: func(_, obj any) { enqueue(obj) },
				DeleteFunc: func(obj any) {
					if k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
						enqueued.Hit()
						q.Add(k)
					}
				},
			})
			indexer := inf.GetIndexer()
			var wg sync.WaitGroup
			for range workload.QueueWorkers {
				wg.Go(func() {
					for {
						k, shutdown := q.Get()
						if shutdown {
							return
						}
						if obj, ok, _ := indexer.GetByKey(k); ok {
							_ = obj.(*corev1.ConfigMap)
						}
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
			q.ShutDownWithDrain()
			span.Stop()
			wg.Wait()
			stop()
		})
	})
}

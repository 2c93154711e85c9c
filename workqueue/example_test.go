package workqueue_test

import (
	"context"
	"fmt"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	"github.com/informer-go/informer/workqueue"
)

// A controller: an informer puts the keys of changed objects on a queue,
// and workers reconcile them, retried with backoff on error.
func Example() {
	src := memory.New[*widget](memory.Options{})
	src.Create(newWidget("a", "", nil))
	src.Create(newWidget("b", "", nil))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inf := informer.New(src, informer.Options[*widget]{})
	q := workqueue.New(workqueue.Options[string]{Name: "widgets"})
	reg, _ := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[*widget]{})
	go inf.Run(ctx)
	informer.WaitForCacheSync(ctx, inf, reg)

	lister := inf.Lister()
	done := make(chan struct{}, 2)
	go q.Run(ctx, 2, func(ctx context.Context, key string) error {
		w, ok := lister.Get(key) // reconcile from the cache, by key
		if !ok {
			return nil // deleted meanwhile: nothing to do
		}
		fmt.Println("reconciled", w.Name)
		done <- struct{}{}
		return nil
	})
	<-done
	<-done
	// Unordered output:
	// reconciled a
	// reconciled b
}

func ExampleQueue() {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("ns/a")
	q.Add("ns/b")
	q.Add("ns/a") // coalesces with the pending one
	for q.Len() > 0 {
		key, _ := q.Get(context.Background())
		fmt.Println(key)
		q.Done(key)
	}
	// Output:
	// ns/a
	// ns/b
}

func ExampleQueue_AddRateLimited() {
	q := workqueue.New(workqueue.Options[string]{
		RateLimiter: workqueue.ExponentialBackoff[string](5*time.Millisecond, time.Minute),
	})
	for range 3 {
		q.AddRateLimited("ns/flaky") // after a failed attempt
	}
	fmt.Println(q.NumRequeues("ns/flaky"))
	q.Forget("ns/flaky") // after a successful one
	fmt.Println(q.NumRequeues("ns/flaky"))
	q.ShutDown()
	// Output:
	// 3
	// 0
}

// A reconcile that is done for now but wants to look again later returns
// RequeueAfter: the key comes back after the delay, and it is not a
// failure (no backoff, no log, no OnError).
func ExampleRequeueAfter() {
	q := workqueue.New(workqueue.Options[string]{Name: "certificates"})
	reconcile := func(ctx context.Context, key string) error {
		// ... renew the certificate if it expires within a week ...
		return workqueue.RequeueAfter(24 * time.Hour) // check again tomorrow
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // (a program runs until it stops)
	_ = q.Run(ctx, 1, reconcile)
}

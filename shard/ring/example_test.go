package ring_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/shard/ring"
	"github.com/informer-go/informer/workqueue"
)

// Two members of a ring share the hash space: each runs its work over
// half of it. (A real program uses ring.NewLeaseClient(cfg, ...) instead
// of this in-memory lease store, and runs an informer, a queue and its
// workers in the work function.)
func Example() {
	leases := newStore()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	working := map[string]string{}
	members := map[string]*ring.Member{}
	for _, id := range []string{"replica-a", "replica-b"} {
		m, _ := ring.New(&client{s: leases}, ring.Options{
			Namespace: "default", Name: "my-controller", Identity: id,
			LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		members[id] = m
		wg.Go(func() {
			_ = m.Run(ctx, func(ctx context.Context, a ring.Assignment) {
				mu.Lock()
				working[a.Identity] = fmt.Sprintf("%.2f of the space", a.Ranges.Fraction())
				mu.Unlock()
				a.Synced()
				<-ctx.Done() // the informers and workers run until the ranges move
			})
		})
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		a, b := members["replica-a"].Health(), members["replica-b"].Health()
		if a.Synced && b.Synced && a.Ranges.Fraction() == 0.5 && b.Ranges.Fraction() == 0.5 {
			break
		}
	}
	cancel()
	wg.Wait()
	fmt.Println("replica-a works", working["replica-a"])
	fmt.Println("replica-b works", working["replica-b"])
	// Output:
	// replica-a works 0.50 of the space
	// replica-b works 0.50 of the space
}

// A queue kept across assignments: PruneQueue drops the keys the new
// assignment does not own before its work starts. Here the work is
// called by hand with an assignment of the first half of the space; a
// program passes it to Member.Run.
func ExamplePruneQueue() {
	q := workqueue.New(workqueue.Options[string]{})
	for _, k := range []string{"default/web", "kube-system/dns", "shop/cart", "team-a/api", "team-b/ui"} {
		q.Add(k) // left from an earlier assignment
	}
	owns := func(a ring.Assignment, key string) bool { return a.Ranges.Contains(shard.Hash(key)) }
	work := ring.PruneQueue(q, owns, func(ctx context.Context, a ring.Assignment) {
		// Start the informers over a.Ranges (they enqueue into q), then
		// q.Run(ctx, workers, reconcile) until ctx ends.
		var left []string
		for q.Len() > 0 {
			k, _ := q.Get(ctx)
			left = append(left, k)
			q.Done(k)
		}
		fmt.Println("left in the queue:", left)
	})
	work(context.Background(), ring.Assignment{Identity: "replica-a", Epoch: 2, Ranges: shard.NewSet(shard.Split(2, 0))})
	// Output:
	// left in the queue: [kube-system/dns team-a/api team-b/ui]
}

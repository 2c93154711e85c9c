package ring_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/informer-go/informer/shard/ring"
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

package leaderelection_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/typed"
)

// Two replicas of a controller share a Lease: the first leads, and when
// it shuts down it releases the lease, so the second takes over at once.
// The API server is played by a loopback server; the durations are cut
// short so the example runs quickly (the defaults are client-go's: 15 s,
// 10 s, 2 s).
func Example() {
	server, _ := newLeaseAPI()
	defer server.Close()
	cfg := &kube.Config{Host: server.URL}
	leases, err := leaderelection.NewLeaseClient(cfg, kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	replica := func(id string) *leaderelection.Elector {
		el, err := leaderelection.New(leases, leaderelection.Options{
			Namespace: "default", Name: "mirror-controller", Identity: id,
			LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond,
			Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			log.Fatal(err)
		}
		return el
	}

	ctx := context.Background()
	first, second := replica("replica-1"), replica("replica-2")
	ctx1, stop1 := context.WithCancel(ctx)
	leading := make(chan struct{})
	done1 := make(chan error)
	go func() {
		done1 <- first.Run(ctx1, func(ctx context.Context) {
			fmt.Println("replica-1 leads")
			close(leading)
			<-ctx.Done() // reconcile until leadership ends
			fmt.Println("replica-1 stops:", context.Cause(ctx))
		})
	}()
	<-leading
	stop1() // replica-1 shuts down, and releases the lease
	fmt.Println("replica-1 Run:", <-done1)

	start := time.Now()
	_ = second.Run(ctx, func(ctx context.Context) {
		fmt.Println("replica-2 leads; took over within a second:", time.Since(start) < time.Second)
		// Returning while leading releases the lease and ends Run.
	})
	// Output:
	// replica-1 leads
	// replica-1 stops: leaderelection: stopped
	// replica-1 Run: context canceled
	// replica-2 leads; took over within a second: true
}

// A controller built on a typed.Factory elects its leader through the
// factory's connection pool. The lease keeps a rate limiter of its own
// (NewLeaseClient with the factory's HTTP client), so that a burst of the
// controller's writes never delays a renewal (do not use
// LeaseClientOf(typed.NewClient(f, leaderelection.Leases)), which would
// share the factory's).
func ExampleNewLeaseClient() {
	ctx := context.Background()
	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	hc, err := cfg.HTTPClient()
	if err != nil {
		log.Fatal(err)
	}
	f, _ := typed.NewFactory(cfg, typed.FactoryOptions{HTTPClient: hc})
	defer f.Shutdown()
	leases, _ := leaderelection.NewLeaseClient(cfg, kube.ClientOptions{HTTPClient: hc})
	el, _ := leaderelection.New(leases, leaderelection.Options{
		Namespace: "kube-system", Name: "my-controller",
		OnNewLeader: func(id string) { fmt.Println("leader:", id) },
	})
	err = el.Run(ctx, func(ctx context.Context) {
		f.Start(ctx)
		// ... reconcile until ctx ends (leadership lost, or shutdown)
	})
	fmt.Println(err)
}

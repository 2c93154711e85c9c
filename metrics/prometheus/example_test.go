package prometheus_test

import (
	"context"
	"log"
	"net/http"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
	infprom "github.com/informer-go/informer/metrics/prometheus"
	"github.com/informer-go/informer/workqueue"
	prom "github.com/prometheus/client_golang/prometheus"
)

// A controller's queue and elector record into one registry, served with
// the health checks on :8080 in one line.
func ExampleHandler() {
	reg := prom.NewRegistry()
	m, err := infprom.New(reg)
	if err != nil {
		log.Fatal(err)
	}
	q := workqueue.New(workqueue.Options[string]{Name: "widgets", Metrics: infprom.Workqueue[string](m, "widgets")})
	cfg, _ := kube.Default()
	leases, _ := leaderelection.NewLeaseClient(cfg, kube.ClientOptions{})
	el, _ := leaderelection.New(leases, leaderelection.Options{Namespace: "default", Name: "widgets", Metrics: m.LeaderElection("widgets")})

	go http.ListenAndServe(":8080", infprom.Handler(reg, infprom.Checks{
		Healthz: map[string]infprom.Check{"leader-election": infprom.HealthErr(func() error { return el.Health().Err() })},
		// Readyz: map[string]infprom.Check{"widgets": infprom.Synced(inf)},
	}))
	_ = el.Run(context.Background(), func(ctx context.Context) {
		_ = q.Run(ctx, 2, func(ctx context.Context, key string) error { return nil })
	})
}

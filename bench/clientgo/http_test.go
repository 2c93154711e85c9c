package clientgobench

import (
	"context"
	"testing"
	"time"

	"github.com/informer-go/informer/bench/workload"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// podRESTConfig is the rest.Config of the HTTPPods and Footprint workloads:
// JSON, or protobuf in the protobuf mode, set explicitly (as on our side);
// and the QPS and burst of our kube.Source's defaults (50, 100) instead of
// client-go's (5, 10), which would throttle the 40 pages of the list.
// client-go's feature gates keep their defaults: WatchListClient is on, so
// its reflector tries a streaming list first in every mode, and falls back
// to LIST where the server refuses it.
func podRESTConfig(host string, mode workload.PodMode) *rest.Config {
	ct := "application/json"
	if mode.Protobuf {
		ct = "application/vnd.kubernetes.protobuf"
	}
	return &rest.Config{Host: host, ContentConfig: rest.ContentConfig{ContentType: ct}, QPS: 50, Burst: 100}
}

func BenchmarkHTTPPods(b *testing.B) {
	workload.HTTPPods(b, func(host string, mode workload.PodMode, updates *workload.Counter) workload.PodClient {
		cs, err := kubernetes.NewForConfig(podRESTConfig(host, mode))
		if err != nil {
			b.Fatal(err)
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().Pods().Informer()
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, _ any) { updates.Hit() },
		}); err != nil {
			b.Fatal(err)
		}
		return workload.PodClient{
			Start: func(ctx context.Context) func() {
				ctx, cancel := context.WithCancel(ctx)
				factory.Start(ctx.Done())
				return func() { cancel(); factory.Shutdown() }
			},
			WaitSynced: func(ctx context.Context) error {
				for !inf.HasSynced() {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					time.Sleep(100 * time.Microsecond)
				}
				return nil
			},
			Len: func() int { return len(inf.GetStore().ListKeys()) },
		}
	})
}

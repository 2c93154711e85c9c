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
// JSON (the clientset's default content type for built-in types is
// protobuf, which the test server does not speak), and the QPS and burst
// of our kube.Source's defaults (50, 100) instead of client-go's (5, 10),
// which would throttle the 40 pages of the list.
func podRESTConfig(host string) *rest.Config {
	return &rest.Config{Host: host, ContentConfig: rest.ContentConfig{ContentType: "application/json"}, QPS: 50, Burst: 100}
}

func BenchmarkHTTPPods(b *testing.B) {
	workload.HTTPPods(b, func(host string, updates *workload.Counter) workload.PodClient {
		cs, err := kubernetes.NewForConfig(podRESTConfig(host))
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

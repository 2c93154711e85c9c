// Command footprint measures, in a process of its own, the live heap that
// holding n realistic pods (workload.PodJSON, 5.2 KiB of JSON each) costs
// one of:
//
//	-impl map        a plain map[string]*corev1.Pod by namespace/name, decoded
//	                 with encoding/json: the floor
//	-impl informer   this library's informer over kube.Source, synced from
//	                 the loopback workload.PodServer
//	-impl client-go  client-go's Pods informer from a SharedInformerFactory
//	                 over a clientset, synced from the same server
//
// It prints one line in Go benchmark format, BenchmarkFootprint/N=<n>, with
// B-held/pod (live heap after two GCs, holding the pods, minus the live
// heap before, per pod) and held-MiB. bench/run.sh runs it once per
// implementation per round, each in a new process.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func main() {
	impl := flag.String("impl", "", "map, informer or client-go")
	n := flag.Int("n", workload.FootprintPods, "pods")
	sharing := flag.String("sharing", "on", "informer: kube.Options.Sharing, on or off")
	flag.Parse()

	var srv *workload.PodServer
	if *impl != "map" {
		srv = workload.NewPodServer(*n, 0)
		defer srv.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var hold func() (count int, keep any)
	switch *impl {
	case "map":
		hold = func() (int, any) {
			m, err := workload.DecodePods(*n)
			check(err)
			return len(m), m
		}
	case "informer":
		src, err := kube.New[*corev1.Pod](&kube.Config{Host: srv.URL}, kube.Resource{Version: "v1", Resource: "pods"}, kube.Options{ContentType: kube.ContentTypeJSON, Sharing: sharingOption(*sharing)})
		check(err)
		inf := informer.New[*corev1.Pod](src, informer.Options[*corev1.Pod]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		hold = func() (int, any) {
			go inf.Run(ctx)
			check(inf.WaitForSync(ctx))
			return len(inf.Lister().List(nil)), inf
		}
	case "client-go":
		// As in bench/clientgo's HTTPPods (json mode): JSON, and our source's QPS and burst.
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}, QPS: 50, Burst: 100})
		check(err)
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().Pods().Informer()
		hold = func() (int, any) {
			factory.Start(ctx.Done())
			for !inf.HasSynced() {
				time.Sleep(time.Millisecond)
			}
			return len(inf.GetStore().ListKeys()), inf
		}
	default:
		fmt.Fprintln(os.Stderr, "footprint: -impl must be map, informer or client-go")
		os.Exit(2)
	}

	base := workload.LiveHeap()
	t0 := time.Now()
	count, keep := hold()
	took := time.Since(t0)
	held := float64(workload.LiveHeap()) - float64(base)
	runtime.KeepAlive(keep)
	if count != *n {
		check(fmt.Errorf("%s holds %d pods, want %d", *impl, count, *n))
	}
	fmt.Printf("BenchmarkFootprint/N=%d \t1\t%d ns/op\t%.0f B-held/pod\t%.1f held-MiB\n", *n, took.Nanoseconds(), held/float64(*n), held/(1<<20))
}

func sharingOption(s string) kube.Sharing {
	switch s {
	case "on":
		return kube.SharingOn
	case "off":
		return kube.SharingOff
	}
	check(fmt.Errorf("-sharing must be on or off, not %q", s))
	return 0
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(1)
	}
}

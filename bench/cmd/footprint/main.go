// Command footprint measures, in a process of its own, the live heap that
// holding n realistic pods (workload.PodJSON, 5.2 KiB of JSON each) costs
// one of:
//
//	-impl map        a plain map[string]*corev1.Pod by namespace/name, decoded
//	                 with encoding/json: the floor
//	-impl informer   this library's informer over kubesrc.Source, synced from
//	                 the loopback workload.PodServer
//	-impl client-go  client-go's Pods informer from a SharedInformerFactory
//	                 over a clientset, synced from the same server
//
// It prints one line in Go benchmark format, BenchmarkFootprint/N=<n>, with
// B-held/pod (live heap after two GCs, holding the pods, minus the live
// heap before, per pod) and held-MiB. bench/run.sh runs it once per
// implementation per round, each in a new process.
//
// With -scale, the pods are workload.ScalePods (n pods from n/100
// Deployments of 1 to 500 replicas in 300 namespaces, per-pod statuses),
// served in the -mode json, json-watchlist or protobuf, and the line,
// BenchmarkScale/N=<n>/mode=<mode>, also has sync-ms (for the map: the
// decoding), peak-RSS-MiB (the process's VmHWM, server included) and,
// with -relist (json and protobuf), relist-peak/steady: the largest live
// heap (runtime/metrics /gc/heap/live:bytes, GC cycles run back to back)
// while the client relists after a 410 Gone, over the live heap before,
// and relist-held/steady, the same without what each cycle counts only
// because it was allocated while the cycle ran (see heldGC).
// -pagesize sets our kubesrc.Options.PageSize (default 0: growing pages). It
// does not compare the relist peak with fixed pages: the first list is
// then paged too, and a 410 Gone on the watch after a paged list, with no
// event between, makes the reflector relist in one response (the version
// of the pages may have aged), so the relist measured is unpaged.
// -heapprofile writes a heap
// profile at the relist's peak (and one at the steady heap before it, with
// the suffix .steady, for go tool pprof -diff_base).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func main() {
	impl := flag.String("impl", "", "map, informer or client-go")
	n := flag.Int("n", workload.FootprintPods, "pods")
	sharing := flag.String("sharing", "on", "informer: kubesrc.Options.Sharing, on or off")
	scale := flag.Bool("scale", false, "serve workload.ScalePods (n/100 templates) instead of one template")
	modeName := flag.String("mode", "json", "with -scale: json, json-watchlist or protobuf")
	relist := flag.Bool("relist", false, "with -scale: measure the live heap during a relist")
	pageSize := flag.Int64("pagesize", 0, "informer: kubesrc.Options.PageSize (0: the default, growing pages)")
	flag.StringVar(&heapProfile, "heapprofile", "", "with -relist: write a heap profile to this file at the relist's peak")
	flag.Parse()

	mode := workload.PodMode{Name: "json"}
	for _, m := range workload.PodModes {
		if m.Name == *modeName {
			mode = m
		}
	}
	if mode.Name != *modeName {
		check(fmt.Errorf("-mode %q: json, json-watchlist or protobuf", *modeName))
	}
	var set *workload.ScalePods
	if *scale {
		set = workload.NewScalePods(*n)
	}
	var srv *workload.PodServer
	if *impl != "map" {
		if set != nil {
			srv = workload.NewPodServerSet(set, *n, 0, mode)
		} else {
			srv = workload.NewPodServer(*n, 0)
		}
		defer srv.Close()
	}
	ct, pb := "application/json", kubesrc.Options{ContentType: kube.ContentTypeJSON}
	if mode.Protobuf {
		ct, pb = "application/vnd.kubernetes.protobuf", kubesrc.Options{ContentType: kube.ContentTypeProtobuf, Protobuf: kube.Protobuf[*corev1.Pod]()}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var hold func() (count int, keep any)
	switch *impl {
	case "map":
		hold = func() (int, any) {
			var m map[string]*corev1.Pod
			var err error
			if set != nil {
				m, err = workload.DecodeSet(set, *n)
			} else {
				m, err = workload.DecodePods(*n)
			}
			check(err)
			return len(m), m
		}
	case "informer":
		ko := pb
		ko.Sharing = sharingOption(*sharing)
		ko.PageSize = *pageSize
		src, err := kubesrc.New[*corev1.Pod](&kube.Config{Host: srv.URL}, kube.Resource{Version: "v1", Resource: "pods"}, ko)
		check(err)
		o := informer.Options[*corev1.Pod]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		o.Reflector.WatchList = informer.WatchListOff
		if mode.WatchList {
			o.Reflector.WatchList = informer.WatchListOn
		}
		inf := informer.New[*corev1.Pod](src, o)
		hold = func() (int, any) {
			go inf.Run(ctx)
			check(inf.WaitForSync(ctx))
			return len(inf.Lister().List(nil)), inf
		}
	case "client-go":
		// As in bench/clientgo's HTTPPods (json mode): JSON, and our source's QPS and burst.
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: ct}, QPS: 50, Burst: 100})
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
	if set == nil {
		fmt.Printf("BenchmarkFootprint/N=%d \t1\t%d ns/op\t%.0f B-held/pod\t%.1f held-MiB\n", *n, took.Nanoseconds(), held/float64(*n), held/(1<<20))
		return
	}
	extra := ""
	if *relist && srv != nil && !mode.WatchList {
		steady := liveHeap()
		writeHeapProfile(".steady")
		peak, held := relistPeak(srv)
		extra = fmt.Sprintf("\t%.3f relist-peak/steady\t%.3f relist-held/steady", float64(peak)/float64(steady), float64(held)/float64(steady))
	}
	runtime.KeepAlive(keep)
	fmt.Printf("BenchmarkScale/N=%d/mode=%s \t1\t%d ns/op\t%.0f sync-ms\t%.0f B-held/pod\t%.1f held-MiB\t%.0f peak-RSS-MiB%s\n",
		*n, mode.Name, took.Nanoseconds(), float64(took.Milliseconds()), held/float64(*n), held/(1<<20), workload.PeakRSS(), extra)
}

// liveHeap is runtime/metrics' /gc/heap/live:bytes after a GC: the heap
// marked live by the last cycle.
func liveHeap() uint64 {
	runtime.GC()
	return readLive()
}

func readLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func readAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heldGC runs a GC cycle and returns the live heap it marked and an
// estimate of the heap reachable when it began: the live heap minus what
// was allocated during the call. A cycle marks everything allocated while
// it runs (allocate-black), garbage or not, so with cycles back to back
// the live heap also counts what the decoders and the in-process server
// threw away meanwhile: on 2 loaded cores, tens of MB for a heap of 160.
// The estimate is a little low (what was allocated while the call swept,
// after marking, is taken off too).
func heldGC() (live, held uint64) {
	a0 := readAllocs()
	runtime.GC()
	live = readLive()
	if during := readAllocs() - a0; during < live {
		held = live - during
	}
	return live, held
}

// relistPeak makes the server expire the client's watch, so that it
// relists, and returns the largest live heap seen from then until the
// client, its relist complete (in one page or several, as it asks),
// watches again, and a second more for the cache to take the last page.
// The live heap is what the last GC cycle marked (/gc/heap/live:bytes),
// so it runs GC cycles back to back meanwhile: otherwise a relist that
// ends before the next cycle would show no peak at all. The relist is
// slower for it, on both sides. held is the largest of heldGC's estimates
// of the heap reachable at the start of a cycle, which leaves out what a
// cycle counts only because it was allocated while the cycle ran.
func relistPeak(srv *workload.PodServer) (peak, held uint64) {
	lists, watches := srv.Lists.Load(), srv.Watches()
	done := make(chan struct{})
	go func() {
		srv.ExpireWatches()
		t0 := time.Now()
		for srv.Lists.Load() == lists || srv.Watches() == watches {
			if time.Since(t0) > 5*time.Minute {
				check(fmt.Errorf("no relist and watch within 5 minutes of the watch's expiry"))
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Second)
		close(done)
	}()
	for {
		live, h := heldGC()
		held = max(held, h)
		if live > peak {
			peak = live
			writeHeapProfile("")
		}
		select {
		case <-done:
			return peak, held
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// heapProfile is the file -heapprofile names.
var heapProfile string

// writeHeapProfile writes a heap profile to heapProfile+suffix, if
// heapProfile is set: at the steady heap (suffix ".steady", a base for
// pprof -diff_base) and at each new peak, so the file ends with the
// profile of the highest one.
func writeHeapProfile(suffix string) {
	if heapProfile == "" {
		return
	}
	f, err := os.Create(heapProfile + suffix)
	check(err)
	check(pprof.WriteHeapProfile(f))
	check(f.Close())
}

func sharingOption(s string) kubesrc.Sharing {
	switch s {
	case "on":
		return kubesrc.SharingOn
	case "off":
		return kubesrc.SharingOff
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

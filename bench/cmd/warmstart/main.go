// Command warmstart measures, in a process of its own, an informer's start
// over n pods of the scale workload (workload.ScalePods) served by the
// loopback workload.PodServer, in one of five cases:
//
//	-case write    sync cold, then write the snapshot to -snap: its time,
//	               its size per object, and the live heap per cached pod
//	-case cold     sync with a list (no snapshot); with -impl client-go,
//	               client-go's Pods informer (a SharedInformerFactory over
//	               a clientset, streaming lists off: paged lists of 500)
//	-case warm     restore -snap, then watch from its version: no list
//	-case expired  restore -snap; the server answers the watch 410 Gone, as
//	               when the snapshot is older than its watch cache: one list
//	-case relist   for comparison: sync cold, then the watch is answered 410
//	               and the informer relists beside its cache, as any
//	               informer does; its peak is measured over that relist
//
// It prints one line: the time from the start (the restore included) to
// synced, the list and watch requests and the bytes the client read from
// the server, the peak heap while starting over the steady heap once
// synced (both above the baseline before the informer), and the process's
// peak RSS (VmHWM, server included).
//
// The peak is, by default, the largest /memory/classes/heap/objects:bytes
// sampled every millisecond (garbage not yet collected included: an upper
// bound); with -gc, the largest live heap marked by GC cycles run back to
// back (/gc/heap/live:bytes, marked) and the same without what each cycle
// marked only because it was allocated while it ran (held), as
// cmd/footprint measures the relist peak. -heapprofile writes a heap
// profile at the -gc peak.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func main() {
	n := flag.Int("n", 20000, "pods")
	modeName := flag.String("mode", "json", "json or protobuf")
	which := flag.String("case", "cold", "write, cold, warm, expired or relist")
	impl := flag.String("impl", "informer", "informer, or client-go (-case cold only)")
	snap := flag.String("snap", "", "the snapshot file")
	gc := flag.Bool("gc", false, "measure the peak with GC cycles back to back (marked and held), as cmd/footprint's relist peak")
	flag.StringVar(&heapProfile, "heapprofile", "", "with -gc: write a heap profile to this file at the peak")
	flag.Parse()
	if *impl == "client-go" {
		// client-go reads its feature gates once, when first asked; the
		// loopback server has no streaming lists.
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	}
	mode := workload.PodMode{Name: *modeName, Protobuf: *modeName == "protobuf"}
	set := workload.NewScalePods(*n)
	srv := workload.NewPodServerSet(set, *n, 0, mode)
	defer srv.Close()
	rt := &counting{base: http.DefaultTransport.(*http.Transport).Clone()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	m := newMeasure(*gc)
	var start func() (synced func() (int, error), inf *informer.Informer[*corev1.Pod])
	switch *impl {
	case "informer":
		start = func() (func() (int, error), *informer.Informer[*corev1.Pod]) {
			inf := newInformer(srv, rt, mode)
			switch *which {
			case "warm", "expired":
				if *which == "expired" {
					srv.ExpireWatches()
				}
				_, err := inf.RestoreFile(*snap)
				check(err)
			case "cold", "write", "relist":
			default:
				check(fmt.Errorf("-case %q: write, cold, warm, expired or relist", *which))
			}
			go inf.Run(ctx)
			return func() (int, error) {
				err := inf.WaitForSync(ctx)
				return len(inf.Lister().List(nil)), err
			}, inf
		}
	case "client-go":
		if *which != "cold" {
			check(fmt.Errorf("-impl client-go: only -case cold (client-go has no warm start)"))
		}
		start = func() (func() (int, error), *informer.Informer[*corev1.Pod]) {
			return clientGo(ctx, srv, rt, mode), nil
		}
	default:
		check(fmt.Errorf("-impl %q: informer or client-go", *impl))
	}

	peak := m.start(ctx)
	began := time.Now()
	wait, inf := start()
	count, err := wait()
	check(err)
	synced := time.Since(began)
	p := peak.stop()
	steady := m.steady()
	name := fmt.Sprintf("BenchmarkWarmStart/mode=%s/case=%s/N=%d", *modeName, *which, *n)
	if *impl == "client-go" {
		name = fmt.Sprintf("BenchmarkWarmStart/mode=%s/case=cold-client-go/N=%d", *modeName, *n)
	}
	switch *which {
	case "write":
		writeCase(ctx, inf, name, *snap, *n, m.held(steady))
		return
	case "relist":
		relistCase(ctx, srv, rt, m, name)
		return
	}
	if count != *n {
		check(fmt.Errorf("%d pods cached, want %d", count, *n))
	}
	fmt.Printf("%s\t1\t%.0f sync-ms\t%d lists\t%d watches\t%d read-B\t%s\t%.0f peak-RSS-MiB\t%.0f held-B/pod\n", name,
		float64(synced.Microseconds())/1000, rt.lists.Load(), rt.watches.Load(), rt.bytes.Load(),
		m.ratios(p, steady), workload.PeakRSS(), float64(m.held(steady))/float64(*n))
}

// newInformer returns the informer measured, over srv through rt.
func newInformer(srv *workload.PodServer, rt http.RoundTripper, mode workload.PodMode) *informer.Informer[*corev1.Pod] {
	ko := kubesrc.Options{ContentType: kube.ContentTypeJSON, HTTPClient: &http.Client{Transport: rt}}
	if mode.Protobuf {
		ko.ContentType, ko.Protobuf = kube.ContentTypeProtobuf, kube.Protobuf[*corev1.Pod]()
	}
	src, err := kubesrc.New[*corev1.Pod](&kube.Config{Host: srv.URL}, kube.Resource{Version: "v1", Resource: "pods"}, ko)
	check(err)
	o := informer.Options[*corev1.Pod]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	o.Reflector.WatchList = informer.WatchListOff
	return informer.New(src, o)
}

// clientGo starts client-go's Pods informer over srv through rt (QPS and
// burst as our source's, as cmd/footprint) and returns what waits for it.
func clientGo(ctx context.Context, srv *workload.PodServer, rt http.RoundTripper, mode workload.PodMode) func() (int, error) {
	ct := "application/json"
	if mode.Protobuf {
		ct = "application/vnd.kubernetes.protobuf"
	}
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: ct}, QPS: 50, Burst: 100,
		WrapTransport: func(http.RoundTripper) http.RoundTripper { return rt }})
	check(err)
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().Pods().Informer()
	factory.Start(ctx.Done())
	return func() (int, error) {
		for !inf.HasSynced() {
			time.Sleep(time.Millisecond)
		}
		return len(inf.GetStore().ListKeys()), ctx.Err()
	}
}

// writeCase writes the synced cache's snapshot to path and prints its time
// and size.
func writeCase(ctx context.Context, inf *informer.Informer[*corev1.Pod], name, path string, n int, held uint64) {
	began := time.Now()
	info, err := inf.WriteSnapshotFile(ctx, path)
	check(err)
	took := time.Since(began)
	fmt.Printf("%s\t1\t%.0f write-ms\t%.1f write-ns/pod\t%.0f snapshot-B/pod\t%.0f held-B/pod\n", name,
		float64(took.Microseconds())/1000, float64(took.Nanoseconds())/float64(n), float64(info.Bytes)/float64(n), float64(held)/float64(n))
}

// relistCase expires the synced informer's watch and measures its relist.
func relistCase(ctx context.Context, srv *workload.PodServer, rt *counting, m *measure, name string) {
	peak := m.start(ctx)
	watches := srv.Watches()
	lists := rt.lists.Load()
	began := time.Now()
	srv.ExpireWatches()
	for srv.Watches() == watches || rt.lists.Load() == lists {
		time.Sleep(time.Millisecond)
	}
	took := time.Since(began)
	p := peak.stop()
	steady := m.steady()
	fmt.Printf("%s\t1\t%.0f relist-ms\t%d lists\t%s\t%.0f peak-RSS-MiB\n", name,
		float64(took.Microseconds())/1000, rt.lists.Load()-lists, m.ratios(p, steady), workload.PeakRSS())
}

// counting counts list requests (pages), watch requests and the bytes of
// their bodies.
type counting struct {
	base           http.RoundTripper
	lists, watches atomic.Int64
	bytes          atomic.Int64
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if w := r.URL.Query().Get("watch"); w != "" && w != "0" && w != "false" {
		c.watches.Add(1)
	} else {
		c.lists.Add(1)
	}
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		resp.Body = &kubefixture.CountingBody{ReadCloser: resp.Body, N: &c.bytes}
	}
	return resp, err
}

// measure takes the baseline before the informer and the peaks and
// steady heap after it, by one of two measures (see the command's doc).
type measure struct {
	gc   bool
	base uint64
}

func newMeasure(gc bool) *measure {
	m := &measure{gc: gc}
	m.base = m.steady()
	return m
}

// steady returns the heap after collections: live (gc) or objects.
func (m *measure) steady() uint64 {
	if m.gc {
		runtime.GC()
		return readMetric("/gc/heap/live:bytes")
	}
	return heapObjects(true)
}

// held returns steady above the baseline.
func (m *measure) held(steady uint64) uint64 { return steady - min(steady, m.base) }

// ratios formats the peak over the steady heap, both above the baseline.
func (m *measure) ratios(p peak, steady uint64) string {
	over := func(v uint64) float64 { return float64(v-min(v, m.base)) / float64(m.held(steady)) }
	if !m.gc {
		return fmt.Sprintf("%.3f peak/steady", over(p.marked))
	}
	return fmt.Sprintf("%.3f peak/steady\t%.3f held-peak/steady", over(p.marked), over(p.held))
}

// start starts sampling the peak until its stop.
func (m *measure) start(ctx context.Context) *sampler {
	s := &sampler{done: make(chan struct{}), gc: m.gc}
	go s.run(ctx)
	return s
}

// peak is a sampled peak: marked (or heap objects), and held (-gc).
type peak struct{ marked, held uint64 }

// sampler samples the heap until stopped: heap objects every millisecond,
// or GC cycles back to back.
type sampler struct {
	gc   bool
	p    peak
	done chan struct{}
	quit atomic.Bool
}

func (s *sampler) run(ctx context.Context) {
	defer close(s.done)
	for !s.quit.Load() && ctx.Err() == nil {
		if !s.gc {
			s.p.marked = max(s.p.marked, heapObjects(false))
			time.Sleep(time.Millisecond)
			continue
		}
		live, held := heldGC()
		s.p.held = max(s.p.held, held)
		if live > s.p.marked {
			s.p.marked = live
			writeHeapProfile()
		}
		time.Sleep(time.Millisecond)
	}
}

func (s *sampler) stop() peak {
	s.quit.Store(true)
	<-s.done
	return s.p
}

// heapObjects returns the bytes of heap objects (live or not yet
// collected), after two collections if gc.
func heapObjects(gc bool) uint64 {
	if gc {
		runtime.GC()
		runtime.GC()
	}
	return readMetric("/memory/classes/heap/objects:bytes")
}

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heldGC runs a GC cycle and returns the live heap it marked and an
// estimate of the heap reachable when it began: the live heap minus what
// was allocated during the cycle, which a cycle marks whether garbage or
// not (as cmd/footprint's heldGC).
func heldGC() (live, held uint64) {
	a0 := readMetric("/gc/heap/allocs:bytes")
	runtime.GC()
	live = readMetric("/gc/heap/live:bytes")
	if during := readMetric("/gc/heap/allocs:bytes") - a0; during < live {
		held = live - during
	}
	return live, held
}

// heapProfile is the file -heapprofile names.
var heapProfile string

// writeHeapProfile writes a heap profile to heapProfile, if set, at each
// new peak: the file ends with the highest one's.
func writeHeapProfile() {
	if heapProfile == "" {
		return
	}
	f, err := os.Create(heapProfile)
	check(err)
	check(pprof.WriteHeapProfile(f))
	check(f.Close())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "warmstart:", err)
		os.Exit(1)
	}
}

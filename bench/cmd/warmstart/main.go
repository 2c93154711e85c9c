// Command warmstart measures, in a process of its own, an informer's start
// over n pods of the scale workload (workload.ScalePods) served by the
// loopback workload.PodServer, in one of four cases:
//
//	-case write    sync cold, then write the snapshot to -snap: its time,
//	               its size per object, and the live heap per cached pod
//	-case cold     sync with a list (no snapshot)
//	-case warm     restore -snap, then watch from its version: no list
//	-case expired  restore -snap; the server answers the watch 410 Gone, as
//	               when the snapshot is older than its watch cache: one list
//	-case relist   for comparison: sync cold, then the watch is answered 410
//	               and the informer relists beside its cache, as any
//	               informer does; its peak is measured over that relist
//
// It prints one line: the time from the start (the restore included) to
// synced, the list and watch requests and the bytes the client read from
// the server, the peak of the heap's objects while starting over the
// steady heap once synced (both above the baseline before the informer),
// and the process's peak RSS (VmHWM, server included).
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
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
)

func main() {
	n := flag.Int("n", 20000, "pods")
	modeName := flag.String("mode", "json", "json or protobuf")
	which := flag.String("case", "cold", "write, cold, warm or expired")
	snap := flag.String("snap", "", "the snapshot file")
	flag.Parse()
	mode := workload.PodMode{Name: *modeName, Protobuf: *modeName == "protobuf"}
	set := workload.NewScalePods(*n)
	srv := workload.NewPodServerSet(set, *n, 0, mode)
	defer srv.Close()
	rt := &counting{base: http.DefaultTransport.(*http.Transport).Clone()}
	ko := kubesrc.Options{ContentType: kube.ContentTypeJSON, HTTPClient: &http.Client{Transport: rt}}
	if mode.Protobuf {
		ko.ContentType, ko.Protobuf = kube.ContentTypeProtobuf, kube.Protobuf[*corev1.Pod]()
	}
	src, err := kubesrc.New[*corev1.Pod](&kube.Config{Host: srv.URL}, kube.Resource{Version: "v1", Resource: "pods"}, ko)
	check(err)
	o := informer.Options[*corev1.Pod]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	o.Reflector.WatchList = informer.WatchListOff
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	base := heapObjects(true)
	peak := &peakSampler{}
	go peak.run(ctx)
	start := time.Now()
	inf := informer.New(src, o)
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
	check(inf.WaitForSync(ctx))
	synced := time.Since(start)
	p := peak.stop()
	steady := heapObjects(true)
	name := fmt.Sprintf("BenchmarkWarmStart/mode=%s/case=%s/N=%d", *modeName, *which, *n)
	if *which == "write" {
		began := time.Now()
		info, err := inf.WriteSnapshotFile(ctx, *snap)
		check(err)
		took := time.Since(began)
		fmt.Printf("%s\t1\t%.0f write-ms\t%.1f write-ns/pod\t%.0f snapshot-B/pod\t%.0f held-B/pod\n", name,
			float64(took.Microseconds())/1000, float64(took.Nanoseconds())/float64(*n), float64(info.Bytes)/float64(*n), float64(steady-base)/float64(*n))
		return
	}
	if *which == "relist" {
		peak = &peakSampler{}
		go peak.run(ctx)
		watches := srv.Watches()
		lists := rt.lists.Load()
		began := time.Now()
		srv.ExpireWatches()
		for srv.Watches() == watches || rt.lists.Load() == lists {
			time.Sleep(time.Millisecond)
		}
		synced = time.Since(began)
		p = peak.stop()
		steady = heapObjects(true)
		fmt.Printf("%s\t1\t%.0f relist-ms\t%d lists\t%.3f peak/steady\t%.0f peak-RSS-MiB\n", name,
			float64(synced.Microseconds())/1000, rt.lists.Load()-lists, float64(p-base)/float64(steady-base), peakRSS())
		return
	}
	if got := len(inf.Lister().List(nil)); got != *n {
		check(fmt.Errorf("%d pods cached, want %d", got, *n))
	}
	fmt.Printf("%s\t1\t%.0f sync-ms\t%d lists\t%d watches\t%d read-B\t%.3f peak/steady\t%.0f peak-RSS-MiB\n", name,
		float64(synced.Microseconds())/1000, rt.lists.Load(), rt.watches.Load(), rt.bytes.Load(),
		float64(p-base)/float64(steady-base), peakRSS())
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
		resp.Body = &countingBody{resp.Body, &c.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// heapObjects returns the bytes of heap objects (live or not yet
// collected), after two collections if gc.
func heapObjects(gc bool) uint64 {
	if gc {
		runtime.GC()
		runtime.GC()
	}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakSampler samples heapObjects every millisecond until stopped.
type peakSampler struct {
	peak atomic.Uint64
	done chan struct{}
	quit atomic.Bool
}

func (p *peakSampler) run(ctx context.Context) {
	p.done = make(chan struct{})
	defer close(p.done)
	for !p.quit.Load() && ctx.Err() == nil {
		if v := heapObjects(false); v > p.peak.Load() {
			p.peak.Store(v)
		}
		time.Sleep(time.Millisecond)
	}
}

func (p *peakSampler) stop() uint64 {
	p.quit.Store(true)
	for p.done == nil {
		time.Sleep(time.Millisecond)
	}
	<-p.done
	return p.peak.Load()
}

// peakRSS is the process's peak resident set (VmHWM), in MiB.
func peakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "warmstart:", err)
		os.Exit(1)
	}
}

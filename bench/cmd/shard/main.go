// Command shard measures sharding over replicas (packages shard and
// shard/ring) against real kube-apiservers from shared/kube-apiserver,
// one with the ShardedListAndWatch feature gate on and one with it off,
// each holding -n ConfigMaps of about 1 KiB:
//
//   - for N = 1, 2, 3, 5 members of equal ranges: the live heap one
//     member's informer holds (after two GCs, minus before; member 0
//     alone in the process), the time from start to synced and the
//     bytes received until then of each member when all N sync at once,
//     and the bytes each receives while every object is updated once;
//   - with shard/ring members (lease 4 s, renew deadline 3 s, retry
//     0.5 s): the time from a join, a graceful leave and a kill (Lease
//     left behind) until the live members' work covers the hash space
//     again, synced.
//
// It writes a Markdown report to -out (bench/shard/RESULTS.md).
//
//	go run ./cmd/shard -n 10000 -out shard/RESULTS.md
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/shard/ring"
	kubesrc "github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type configMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

var configMaps = kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}

const ns = "shardbench"

func main() {
	n := flag.Int("n", 10000, "ConfigMaps")
	out := flag.String("out", "", "report file (default stdout)")
	flag.Parse()
	var w io.Writer = os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		w = f
	}
	if err := run(w, *n); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "shard:", err)
	os.Exit(1)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// server starts a kube-apiserver with extra environment and returns its
// config and a stop function.
func server(extra ...string) (*kube.Config, func(), error) {
	env, stop, err := apiserver.Run(extra...)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: env["KUBECONFIG"]})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return cfg, stop, nil
}

// counter counts the response bytes read through it.
type counter struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		resp.Body = &kubefixture.CountingBody{ReadCloser: resp.Body, N: &c.n}
	}
	return resp, err
}

// seed creates the namespace and n ConfigMaps, 32 at a time.
func seed(ctx context.Context, cfg *kube.Config, n int) error {
	nsc, err := kube.NewClient[*configMap](cfg, kube.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}, kube.ClientOptions{QPS: -1})
	if err != nil {
		return err
	}
	nsObj := &configMap{}
	nsObj.Name = ns
	if _, err := nsc.Create(ctx, nsObj, kube.WriteOptions{}); err != nil && !errors.Is(err, kube.ErrAlreadyExists) {
		return err
	}
	return writeAll(ctx, cfg, n, "0", true)
}

func writeAll(ctx context.Context, cfg *kube.Config, n int, v string, create bool) error {
	c, err := kube.NewClient[*configMap](cfg, configMaps, kube.ClientOptions{QPS: -1})
	if err != nil {
		return err
	}
	defer c.Close()
	var wg sync.WaitGroup
	var first error
	var mu sync.Mutex
	sem := make(chan struct{}, 32)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cm := &configMap{Data: map[string]string{"v": v, "payload": payload(i)}}
			cm.Namespace, cm.Name = ns, fmt.Sprintf("cm-%05d", i)
			var err error
			if create {
				_, err = c.Create(ctx, cm, kube.WriteOptions{})
			} else {
				_, err = c.Patch(ctx, ns, cm.Name, "application/merge-patch+json", []byte(`{"data":{"v":"`+v+`"}}`), kube.PatchOptions{})
			}
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// payload is 1,000 hex digits that gzip cannot squeeze much.
func payload(i int) string {
	var b strings.Builder
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	for b.Len() < 1000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		fmt.Fprintf(&b, "%016x", x)
	}
	return b.String()[:1000]
}

// member is one sharded informer with its byte counter.
type member struct {
	inf    *informer.Informer[*configMap]
	bytes  *counter
	synced time.Duration
	done   chan struct{}
	cancel context.CancelFunc
	src    *kubesrc.Source[*configMap]
}

func startMember(cfg *kube.Config, set shard.Set) (*member, error) {
	hc, err := cfg.HTTPClient()
	if err != nil {
		return nil, err
	}
	cnt := &counter{base: hc.Transport}
	src, err := kubesrc.New[*configMap](cfg, configMaps, kubesrc.Options{Namespace: ns, Shard: set, HTTPClient: &http.Client{Transport: cnt}, QPS: -1})
	if err != nil {
		return nil, err
	}
	m := &member{bytes: cnt, done: make(chan struct{}), src: src}
	m.inf = informer.New(src, informer.Options[*configMap]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	start := time.Now()
	go func() { defer close(m.done); _ = m.inf.Run(ctx) }()
	if err := m.inf.WaitForSync(ctx); err != nil {
		return nil, err
	}
	m.synced = time.Since(start)
	return m, nil
}

func (m *member) stop() { m.cancel(); <-m.done; m.src.Close() }

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

type row struct {
	gate                   string
	n                      int
	heapPerMember          uint64
	held                   int
	syncMin, syncMax       time.Duration
	syncBytes, updateBytes int64
	serverFiltered         bool
}

// measure runs the N = 1, 2, 3, 5 rows on one server.
func measure(ctx context.Context, cfg *kube.Config, gate string, total int) ([]row, error) {
	var rows []row
	for round, n := range []int{1, 2, 3, 5} {
		var set shard.Set
		if n > 1 {
			set = shard.NewSet(shard.Split(n, 0))
		}
		// Memory: member 0 alone.
		before := heap()
		m, err := startMember(cfg, set)
		if err != nil {
			return nil, err
		}
		after := heap()
		r := row{gate: gate, n: n, heapPerMember: after - before, held: len(m.inf.Lister().List(nil))}
		m.stop()
		// Sync and bytes: all N at once.
		ms := make([]*member, n)
		var wg sync.WaitGroup
		var ferr error
		var mu sync.Mutex
		for i := range n {
			wg.Go(func() {
				s := shard.Set(nil)
				if n > 1 {
					s = shard.NewSet(shard.Split(n, i))
				}
				mm, err := startMember(cfg, s)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					ferr = err
					return
				}
				ms[i] = mm
			})
		}
		wg.Wait()
		if ferr != nil {
			return nil, ferr
		}
		r.syncMin, r.syncMax = time.Hour, 0
		var synced int64
		for _, mm := range ms {
			r.syncMin, r.syncMax = min(r.syncMin, mm.synced), max(r.syncMax, mm.synced)
			synced += mm.bytes.n.Load()
		}
		r.syncBytes = synced / int64(n)
		// Every object updated once.
		if err := writeAll(ctx, cfg, total, strconv.Itoa(round+1), false); err != nil {
			return nil, err
		}
		time.Sleep(3 * time.Second)
		var all int64
		for _, mm := range ms {
			all += mm.bytes.n.Load()
		}
		r.updateBytes = (all - synced) / int64(n)
		r.serverFiltered = ms[0].src.ShardStats().ServerFiltered
		for _, mm := range ms {
			mm.stop()
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "%s N=%d: %+v\n", gate, n, r)
	}
	return rows, nil
}

// rebalance measures join, leave and kill times with ring members.
func rebalance(cfg *kube.Config) (map[string]time.Duration, error) {
	type rm struct {
		m      *ring.Member
		cancel context.CancelFunc
		done   chan struct{}
		dead   *atomic.Bool
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	live := map[string]*rm{}
	start := func(id string) error {
		hc, err := cfg.HTTPClient()
		if err != nil {
			return err
		}
		dead := &atomic.Bool{}
		tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if dead.Load() {
				return nil, errors.New("killed")
			}
			return hc.Transport.RoundTrip(r)
		})
		lc, err := ring.NewLeaseClient(cfg, kube.ClientOptions{HTTPClient: &http.Client{Transport: tr}})
		if err != nil {
			return err
		}
		m, err := ring.New(lc, ring.Options{Namespace: ns, Name: "bench", Identity: id, LeaseDuration: 4 * time.Second,
			RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond, Logger: quiet})
		if err != nil {
			return err
		}
		ctx, cancel := context.WithCancel(context.Background())
		r := &rm{m: m, cancel: cancel, done: make(chan struct{}), dead: dead}
		go func() {
			defer close(r.done)
			_ = m.Run(ctx, func(ctx context.Context, a ring.Assignment) {
				src, err := kubesrc.New[*configMap](cfg, configMaps, kubesrc.Options{Namespace: ns, Shard: a.Ranges, QPS: -1})
				if err != nil {
					return
				}
				defer src.Close()
				inf := informer.New(src, informer.Options[*configMap]{Logger: quiet})
				done := make(chan struct{})
				go func() { defer close(done); _ = inf.Run(ctx) }()
				if inf.WaitForSync(ctx) == nil {
					a.Synced()
				}
				<-done
			})
		}()
		live[id] = r
		return nil
	}
	covered := func() bool {
		var all []shard.Range
		for _, r := range live {
			st := r.m.Health()
			if !st.Synced || len(st.Members) != len(live) {
				return false
			}
			all = append(all, st.Ranges...)
		}
		return shard.NewSet(all...).IsAll()
	}
	wait := func() (time.Duration, error) {
		t0 := time.Now()
		for !covered() {
			if time.Since(t0) > time.Minute {
				return 0, errors.New("not covered within a minute")
			}
			time.Sleep(20 * time.Millisecond)
		}
		return time.Since(t0), nil
	}
	out := map[string]time.Duration{}
	for _, id := range []string{"a", "b", "c"} {
		if err := start(id); err != nil {
			return nil, err
		}
	}
	var err error
	if out["start 3"], err = wait(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := start("d"); err != nil {
		return nil, err
	}
	if _, err = wait(); err != nil {
		return nil, err
	}
	out["join 3→4"] = time.Since(t0)
	t0 = time.Now()
	live["d"].cancel()
	<-live["d"].done
	delete(live, "d")
	if _, err = wait(); err != nil {
		return nil, err
	}
	out["leave 4→3"] = time.Since(t0)
	t0 = time.Now()
	live["b"].dead.Store(true)
	live["b"].cancel()
	<-live["b"].done
	delete(live, "b")
	if _, err = wait(); err != nil {
		return nil, err
	}
	out["kill 3→2"] = time.Since(t0)
	for _, r := range live {
		r.cancel()
		<-r.done
	}
	return out, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func run(w io.Writer, total int) error {
	ctx := context.Background()
	loadStart := loadavg()
	began := time.Now().UTC()
	var rows []row
	var reb map[string]time.Duration
	for _, gate := range []string{"on", "off"} {
		var extra []string
		if gate == "on" {
			extra = []string{"KUBE_APISERVER_EXTRA_ARGS=--feature-gates=ShardedListAndWatch=true"}
		}
		cfg, stop, err := server(extra...)
		if err != nil {
			return err
		}
		err = func() error {
			defer stop()
			if err := seed(ctx, cfg, total); err != nil {
				return err
			}
			r, err := measure(ctx, cfg, gate, total)
			if err != nil {
				return err
			}
			rows = append(rows, r...)
			if gate == "on" {
				reb, err = rebalance(cfg)
			}
			return err
		}()
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "Measured %s by `go run ./cmd/shard -n %d` (bench/), kube-apiserver v1.37.1 started twice on the same machine (feature gate ShardedListAndWatch on, then off), %s, %d cores; load average (1, 5, 15 min) %s at the start, %s at the end. %d ConfigMaps of about 1.1 KiB (JSON) in one namespace.\n\n",
		began.Format("2006-01-02 15:04 UTC"), total, runtime.Version(), runtime.NumCPU(), loadStart, loadavg(), total)
	fmt.Fprintf(w, "| gate | members | heap held by one member | objects held | ÷ unsharded | sync (fastest – slowest member, all at once) | bytes received per member (gzip): sync | every object updated once | server filtered |\n")
	fmt.Fprintf(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	base := map[string]uint64{}
	for _, r := range rows {
		if r.n == 1 {
			base[r.gate] = r.heapPerMember
		}
		fmt.Fprintf(w, "| %s | %d | %.2f MiB | %d | %.2f | %d – %d ms | %.0f KiB | %.0f KiB | %v |\n", r.gate, r.n,
			float64(r.heapPerMember)/(1<<20), r.held, float64(r.heapPerMember)/float64(base[r.gate]),
			r.syncMin.Milliseconds(), r.syncMax.Milliseconds(), float64(r.syncBytes)/(1<<10), float64(r.updateBytes)/(1<<10), r.n == 1 || r.serverFiltered)
	}
	fmt.Fprintf(w, "\nRebalancing with `shard/ring` (gate on; LeaseDuration 4 s, RenewDeadline 3 s, RetryPeriod 0.5 s; each member an informer over its ranges): time until the live members' work covers the hash space again, every member synced.\n\n| event | time |\n| --- | ---: |\n")
	keys := make([]string, 0, len(reb))
	for k := range reb {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return order(keys[i]) < order(keys[j]) })
	for _, k := range keys {
		fmt.Fprintf(w, "| %s | %d ms |\n", k, reb[k].Milliseconds())
	}
	return nil
}

func order(k string) int {
	for i, p := range []string{"start", "join", "leave", "kill"} {
		if strings.HasPrefix(k, p) {
			return i
		}
	}
	return 9
}

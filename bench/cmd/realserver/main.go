// Command realserver measures, in a process of its own, how long this
// library's informer and client-go's take to sync ConfigMaps from a real
// kube-apiserver (bench/realserver/measure.sh starts one from
// shared/kube-apiserver and runs this command against it). The server is
// found through the variables its start script prints:
// KUBE_APISERVER_URL, KUBE_TOKEN and KUBE_CA_FILE.
//
//	realserver -seed 20000                  create namespace realserver and
//	                                        20,000 ConfigMaps of ~1.6 KiB in it
//	realserver -impl informer -mode list -content protobuf -n 20000
//
// -pagesize and -listrv set kubesrc.Options.PageSize and
// ReflectorOptions.ListResourceVersion of ours, to compare them with the
// defaults.
//
// -impl informer is informer.New over kubesrc.New[*corev1.ConfigMap];
// -impl client-go is a SharedInformerFactory over a clientset. Both run at
// their defaults except for the two dimensions measured: -content sets the
// encoding asked for (kubesrc.Options.ContentType and Protobuf; rest.Config
// ContentType), and -mode list turns streaming lists off (ours:
// ReflectorOptions.WatchList = WatchListOff; client-go: its
// WatchListClient feature gate, KUBE_FEATURE_WatchListClient=false), as a
// server without them would. -mode watchlist leaves both at their default,
// the streaming list.
//
// It prints one line in Go benchmark format,
// BenchmarkRealServer/mode=<mode>/content=<content>, with sync-ms (from
// start until the informer has synced all n objects), B-held/obj (live heap
// after two GCs, holding the cache, minus before, per object) and
// list-requests (the list pages and streaming lists the client asked for
// until it had synced, counted at its transport).
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// namespace holds the benchmark's ConfigMaps.
const namespace = "realserver"

func main() {
	seed := flag.Int("seed", 0, "create the namespace and this many ConfigMaps, then exit")
	impl := flag.String("impl", "", "informer or client-go")
	mode := flag.String("mode", "watchlist", "watchlist (both clients' default) or list (streaming lists off)")
	content := flag.String("content", "json", "json or protobuf")
	n := flag.Int("n", 20000, "ConfigMaps expected in the namespace")
	pageSize := flag.Int64("pagesize", 0, "informer: kubesrc.Options.PageSize (0: the default, growing pages)")
	listRV := flag.String("listrv", "", "informer: ReflectorOptions.ListResourceVersion (\"\": the default, a consistent list)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the sync to this file")
	flag.Parse()

	srv := server{url: os.Getenv("KUBE_APISERVER_URL"), token: os.Getenv("KUBE_TOKEN"), ca: os.Getenv("KUBE_CA_FILE")}
	if srv.url == "" || srv.token == "" || srv.ca == "" {
		check(fmt.Errorf("KUBE_APISERVER_URL, KUBE_TOKEN and KUBE_CA_FILE must be set (shared/kube-apiserver/start prints them)"))
	}
	if *seed > 0 {
		check(srv.seed(*seed))
		return
	}
	if *mode != "watchlist" && *mode != "list" {
		check(fmt.Errorf("-mode %q: watchlist or list", *mode))
	}
	if *content != "json" && *content != "protobuf" {
		check(fmt.Errorf("-content %q: json or protobuf", *content))
	}
	if *mode == "list" {
		// client-go reads its feature gates from the environment once,
		// when first asked: before any informer exists.
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var requests atomic.Int64
	var hold func() (int, any)
	switch *impl {
	case "informer":
		hold = srv.informer(ctx, *mode, *content, *pageSize, *listRV, &requests)
	case "client-go":
		hold = srv.clientGo(ctx, *content, &requests)
	default:
		check(fmt.Errorf("-impl %q: informer or client-go", *impl))
	}

	base := workload.LiveHeap()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		check(err)
		check(pprof.StartCPUProfile(f))
	}
	t0 := time.Now()
	count, keep := hold()
	took := time.Since(t0)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	reqs := requests.Load()
	held := float64(workload.LiveHeap()) - float64(base)
	runtime.KeepAlive(keep)
	if count != *n {
		check(fmt.Errorf("%s holds %d ConfigMaps, want %d", *impl, count, *n))
	}
	fmt.Printf("BenchmarkRealServer/mode=%s/content=%s \t1\t%d ns/op\t%.1f sync-ms\t%.0f B-held/obj\t%d list-requests\n",
		*mode, *content, took.Nanoseconds(), float64(took.Microseconds())/1000, held/float64(*n), reqs)
}

// server is the kube-apiserver measured.
type server struct{ url, token, ca string }

// informer returns what syncs this library's informer.
func (s server) informer(ctx context.Context, mode, content string, pageSize int64, listRV string, requests *atomic.Int64) func() (int, any) {
	ko := kubesrc.Options{Namespace: namespace, ContentType: kube.ContentTypeJSON}
	if content == "protobuf" {
		ko = kubesrc.Options{Namespace: namespace, ContentType: kube.ContentTypeProtobuf, Protobuf: kube.Protobuf[*corev1.ConfigMap]()}
	}
	cfg := &kube.Config{Host: s.url, BearerToken: s.token, TLS: kube.TLSConfig{CAFile: s.ca}}
	hc, err := cfg.HTTPClient()
	check(err)
	hc.Transport = counting{hc.Transport, requests}
	ko.HTTPClient = hc
	ko.PageSize = pageSize
	src, err := kubesrc.New[*corev1.ConfigMap](cfg, kube.Resource{Version: "v1", Resource: "configmaps"}, ko)
	check(err)
	o := informer.Options[*corev1.ConfigMap]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mode == "list" {
		o.Reflector.WatchList = informer.WatchListOff
	}
	o.Reflector.ListResourceVersion = listRV
	inf := informer.New[*corev1.ConfigMap](src, o)
	return func() (int, any) {
		go inf.Run(ctx)
		check(inf.WaitForSync(ctx))
		return len(inf.Lister().List(nil)), inf
	}
}

// clientGo returns what syncs client-go's informer.
func (s server) clientGo(ctx context.Context, content string, requests *atomic.Int64) func() (int, any) {
	ct := "application/json"
	if content == "protobuf" {
		ct = "application/vnd.kubernetes.protobuf"
	}
	cfg := &rest.Config{
		Host:            s.url,
		BearerToken:     s.token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: s.ca},
		ContentConfig:   rest.ContentConfig{ContentType: ct},
		WrapTransport:   func(rt http.RoundTripper) http.RoundTripper { return counting{rt, requests} },
	}
	cs, err := kubernetes.NewForConfig(cfg)
	check(err)
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(namespace))
	inf := factory.Core().V1().ConfigMaps().Informer()
	return func() (int, any) {
		factory.Start(ctx.Done())
		for !inf.HasSynced() {
			time.Sleep(time.Millisecond)
		}
		return len(inf.GetStore().ListKeys()), inf
	}
}

// counting counts the list requests that pass through it: lists and
// streaming lists, not watches.
type counting struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (c counting) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	if strings.HasSuffix(req.URL.Path, "/configmaps") && (q.Get("watch") == "" || q.Get("sendInitialEvents") == "true") {
		c.n.Add(1)
	}
	return c.rt.RoundTrip(req)
}

// seed creates the namespace and n ConfigMaps of about 1.6 KiB of JSON
// each (labels, annotations, eight data keys), 16 at a time.
func (s server) seed(n int) error {
	pem, err := os.ReadFile(s.ca)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 16}}
	defer hc.CloseIdleConnections()
	post := func(path string, body any) error {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, s.url+path, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+s.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusConflict {
			return fmt.Errorf("POST %s: %s: %s", path, resp.Status, msg)
		}
		return nil
	}
	if err := post("/api/v1/namespaces", corev1.Namespace{TypeMeta: typeMeta("Namespace"), ObjectMeta: objectMeta(namespace, "")}); err != nil {
		return err
	}
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first error
		mu    sync.Mutex
	)
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := post("/api/v1/namespaces/"+namespace+"/configmaps", configMap(i)); err != nil {
					mu.Lock()
					first = cmp(first, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// configMap is the i-th ConfigMap: about 1.6 KiB of JSON as the server
// stores it (managed fields included).
func configMap(i int) corev1.ConfigMap {
	cm := corev1.ConfigMap{TypeMeta: typeMeta("ConfigMap"), ObjectMeta: objectMeta(fmt.Sprintf("cm-%06d", i), namespace)}
	cm.Labels = map[string]string{"app": fmt.Sprintf("app-%d", i%50), "tier": "backend", "bench": "realserver"}
	cm.Annotations = map[string]string{"owner": "team-" + fmt.Sprint(i%7)}
	cm.Data = map[string]string{}
	for k := range 8 {
		cm.Data[fmt.Sprintf("key-%d", k)] = strings.Repeat(string(rune('a'+(i+k)%26)), 90)
	}
	return cm
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: "v1", Kind: kind}
}

func objectMeta(name, ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "realserver:", err)
		os.Exit(1)
	}
}

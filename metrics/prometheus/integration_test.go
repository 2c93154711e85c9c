//go:build unix

package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	infprom "github.com/informer-go/informer/metrics/prometheus"
	kubesrc "github.com/informer-go/informer/source/kube"
	prom "github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// ConfigMap is the part of a ConfigMap the test reads.
type ConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

// Against kube-apiserver: the informer's metrics show its first list,
// the events of writes, the lag growing while the server is frozen
// (SIGSTOP) and falling once it answers again, and, after etcd is
// compacted and the server restarted, the watch restart and the relist
// with reason "expired".
func TestIntegrationInformerMetrics(t *testing.T) {
	env := kubetest.Need(t)
	cfg := kubetest.Config(t)
	rest := kubetest.NewREST(t, cfg)
	const ns = "metrics-live"
	rest.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]string{"name": ns}})
	put := func(name, v string) { // create, or merge-patch
		obj := map[string]any{"metadata": map[string]string{"name": name}, "data": map[string]string{"v": v}}
		code, body := rest.Do("POST", "/api/v1/namespaces/"+ns+"/configmaps", "", obj)
		if code == http.StatusConflict {
			code, body = rest.Do("PATCH", "/api/v1/namespaces/"+ns+"/configmaps/"+name, "application/merge-patch+json", obj)
		}
		if code != 200 && code != 201 {
			t.Fatalf("writing %s: %d %s", name, code, body)
		}
	}
	rest.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", map[string]any{"metadata": map[string]string{"name": "a"}})

	reg := prom.NewRegistry()
	m, err := infprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := kubesrc.New[*ConfigMap](cfg, kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, kubesrc.Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	inf := informer.New(src, informer.Options[*ConfigMap]{Logger: quiet, Metrics: m.Informer("cms")})
	defer infprom.WatchInformer(m, "cms", inf)()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(infprom.Handler(reg, infprom.Checks{}))
	defer srv.Close()
	metric := func(name, labels string) float64 {
		fams := scrape(t, srv)
		if fams[name] == nil {
			return -1
		}
		return valueOr(fams, name, labels, -1)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s:\n%s", what, dump(t, srv))
			}
		}
	}
	either := func(name, a, b string) float64 { return max(0, metric(name, a)) + max(0, metric(name, b)) }
	if n := either("informer_lists_total", "name=cms,reason=initial,streaming=true", "name=cms,reason=initial,streaming=false"); n != 1 {
		t.Errorf("initial lists: %v, want 1:\n%s", n, dump(t, srv))
	}
	put("b", "1")
	waitFor("the ADDED event of b", func() bool { return metric("informer_events_total", "name=cms,type=ADDED") >= 1 })

	// Frozen: nothing confirms the cache, the lag grows.
	pid := readPID(t, env, "kube-apiserver")
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	frozen := true
	defer func() {
		if frozen {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	time.Sleep(3 * time.Second)
	if lag := metric("informer_lag_seconds", "name=cms"); lag < 2.5 {
		t.Errorf("lag after 3 s frozen: %v, want at least 2.5", lag)
	}
	syscall.Kill(pid, syscall.SIGCONT)
	frozen = false
	put("b", "2") // an event confirms the cache current again
	waitFor("the lag to fall", func() bool { return metric("informer_lag_seconds", "name=cms") < 1 })

	// History gone and the server restarted: the watch cannot resume.
	compact(t, env)
	restart(t, env)
	waitFor("a relist with reason expired", func() bool {
		return either("informer_lists_total", "name=cms,reason=expired,streaming=true", "name=cms,reason=expired,streaming=false") >= 1
	})
	if r := either("informer_watch_restarts_total", "name=cms,reason=error", "name=cms,reason=closed"); r < 1 {
		t.Errorf("no watch restart after the server's restart:\n%s", dump(t, srv))
	}
	put("c", "1")
	waitFor("c in the cache", func() bool { _, ok := inf.Lister().Get(ns + "/c"); return ok })
	if n := metric("informer_store_items", "name=cms"); n != 3 {
		t.Errorf("informer_store_items %v, want 3", n)
	}
}

func readPID(t *testing.T, env map[string]string, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env["KUBE_APISERVER_DIR"], name+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func restart(t *testing.T, env map[string]string) {
	t.Helper()
	scripts, err := apiserver.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(filepath.Join(scripts, "restart"), env["KUBE_APISERVER_DIR"]).CombinedOutput(); err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
}

// compact compacts etcd at its current revision.
func compact(t *testing.T, env map[string]string) {
	t.Helper()
	resp, err := http.Post(env["KUBE_ETCD_URL"]+"/v3/maintenance/status", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	err = jsonDecode(resp, &status)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = http.Post(env["KUBE_ETCD_URL"]+"/v3/kv/compaction", "application/json", strings.NewReader(fmt.Sprintf(`{"revision":%q,"physical":true}`, status.Header.Revision)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

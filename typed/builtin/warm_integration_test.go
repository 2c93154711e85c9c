package builtin_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIntegrationWarmRestartProtobuf is issue 29's restart against the real
// kube-apiserver with the protobuf wire format and the generated
// *corev1.ConfigMap (source/kube's TestIntegrationWarmRestart does it in
// JSON): an informer over 2,000 ConfigMaps (KUBE_WARM_OBJECTS) writes a
// snapshot (format kube-protobuf) and stops; while it is down 20
// ConfigMaps change. A new informer restored from the snapshot inside the
// watch cache's window sends no list and tells its handlers exactly those
// 20 changes; after a kube-apiserver restart (its new watch cache answers
// the snapshot's version 410) it lists once and tells exactly the 21
// changes since the snapshot. It runs on a kube-apiserver of its own, which
// it restarts.
func TestIntegrationWarmRestartProtobuf(t *testing.T) {
	env := apiserver.Start(t)
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: env["KUBECONFIG"]})
	if err != nil {
		t.Fatal(err)
	}
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("warm-pb")
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("KUBE_WARM_OBJECTS")); err == nil && v > 0 {
		n = v
	}
	began := time.Now()
	r.CreateConfigMaps(ns, "cm", n, nil)
	t.Logf("%d ConfigMaps created in %v", n, time.Since(began).Round(time.Millisecond))
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	l := warmLife{t: t, cfg: cfg, ns: ns, client: client}

	first, _, _, stop := l.run(nil, "cold")
	var snap bytes.Buffer
	began = time.Now()
	info, err := first.WriteSnapshot(t.Context(), &snap)
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != "kube-protobuf" {
		t.Fatalf("snapshot format %q, want kube-protobuf", info.Format)
	}
	t.Logf("snapshot of %d objects at resourceVersion %s: %d bytes (%.0f per object), written in %v", info.Objects, info.ResourceVersion, info.Bytes, float64(info.Bytes)/float64(info.Objects), time.Since(began).Round(time.Millisecond))
	stop()

	// While down: 10 updates, 5 deletes, 5 creates.
	last := ""
	var got kubefixture.ConfigMap
	for i := range 10 {
		name := fmt.Sprintf("cm-%d", i)
		r.Must("PUT", kubefixture.CMPath(ns, name), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "down"}}, &got)
		last = got.ResourceVersion
	}
	for i := 10; i < 15; i++ {
		r.Must("DELETE", kubefixture.CMPath(ns, fmt.Sprintf("cm-%d", i)), nil, nil)
	}
	for i := range 5 {
		r.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("new-%d", i)}}, &got)
		last = got.ResourceVersion
	}
	warm, rc, log, stop := l.run(snap.Bytes(), "warm, inside the window")
	log.Check(t, warm, last, 20, n)
	if lists := rc.lists.Load(); lists != 0 {
		t.Errorf("%d list requests after a restore inside the window, want 0", lists)
	}
	if rc.protobuf.Load() != rc.lists.Load()+rc.watches.Load() {
		t.Errorf("%d of %d responses in protobuf", rc.protobuf.Load(), rc.lists.Load()+rc.watches.Load())
	}
	stop()

	// After a kube-apiserver restart its watch cache starts anew: the
	// snapshot's version is gone (410), one list.
	scripts, err := apiserver.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(filepath.Join(scripts, "restart"), env["KUBE_APISERVER_DIR"]).CombinedOutput(); err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
	r.Must("PUT", kubefixture.CMPath(ns, "cm-20"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-20"}, Data: map[string]string{"v": "after"}}, &got)
	last = got.ResourceVersion
	expired, rc, log, stop := l.run(snap.Bytes(), "warm, after expiry")
	defer stop()
	log.Check(t, expired, last, 21, n)
	if lists := rc.lists.Load(); lists != 1 {
		t.Errorf("%d list requests after a restore the server no longer serves, want 1", lists)
	}
	if rc.protobuf.Load() != rc.lists.Load()+rc.watches.Load() {
		t.Errorf("%d of %d responses in protobuf", rc.protobuf.Load(), rc.lists.Load()+rc.watches.Load())
	}
}

// warmLife starts informers of one namespace's ConfigMaps in protobuf.
type warmLife struct {
	t      *testing.T
	cfg    *kube.Config
	ns     string
	client *http.Client
}

// run starts an informer, restored from snap unless it is nil, waits
// until it and its handler are synced, and returns it, its requests, its
// handler's log and what stops it.
func (l warmLife) run(snap []byte, name string) (*informer.Informer[*corev1.ConfigMap], *warmCounter, *kubefixture.RestartLog[*corev1.ConfigMap], func()) {
	t := l.t
	rc := &warmCounter{base: l.client.Transport}
	src, err := kubesrc.New[*corev1.ConfigMap](l.cfg, kube.Resource{Version: "v1", Resource: "configmaps"}, kubesrc.Options{
		Namespace: l.ns, HTTPClient: &http.Client{Transport: rc},
		ContentType: kube.ContentTypeProtobuf, Protobuf: kube.Protobuf[*corev1.ConfigMap](),
	})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New(src, informer.Options[*corev1.ConfigMap]{Logger: warmLogger()})
	if snap != nil {
		began := time.Now()
		if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: restored in %v", name, time.Since(began).Round(time.Millisecond))
	}
	log := kubefixture.NewRestartLog(inf)
	reg, _ := inf.AddHandler(log.Handler(), informer.HandlerOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	began := time.Now()
	go func() { defer close(done); inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: synced in %v: %d list requests, %d watches, %d bytes read", name, time.Since(began).Round(time.Millisecond), rc.lists.Load(), rc.watches.Load(), rc.bytes.Load())
	return inf, rc, log, func() { cancel(); <-done }
}

// warmCounter counts list requests, watches, protobuf responses and the
// bytes of their bodies.
type warmCounter struct {
	base                     http.RoundTripper
	lists, watches, protobuf atomic.Int64
	bytes                    atomic.Int64
}

func (c *warmCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if q := r.URL.Query(); q.Get("watch") == "" || q.Get("sendInitialEvents") == "true" {
		c.lists.Add(1)
	} else {
		c.watches.Add(1)
	}
	resp, err := c.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), string(kube.ContentTypeProtobuf)) {
		c.protobuf.Add(1)
	}
	resp.Body = &kubefixture.CountingBody{ReadCloser: resp.Body, N: &c.bytes}
	return resp, nil
}

// warmLogger logs at Debug to stderr with WARM_DEBUG set, else nowhere.
func warmLogger() *slog.Logger {
	if os.Getenv("WARM_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

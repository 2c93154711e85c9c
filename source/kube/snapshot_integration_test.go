package kube

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubefixture"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// requestCounter counts the list requests (a streaming list counts as
// one), the watches, and the bytes of their bodies read.
type requestCounter struct {
	base           http.RoundTripper
	lists, watches atomic.Int64
	bytes          atomic.Int64
}

func (c *requestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	switch {
	case q.Get("watch") == "" || q.Get("sendInitialEvents") == "true":
		c.lists.Add(1)
	default:
		c.watches.Add(1)
	}
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		resp.Body = &kubefixture.CountingBody{ReadCloser: resp.Body, N: &c.bytes}
	}
	return resp, err
}

// TestIntegrationWarmRestart: an informer over 2,000 ConfigMaps
// (KUBE_WARM_OBJECTS) writes a snapshot and stops; while it is down 20
// ConfigMaps change. A new informer restored from the snapshot, inside the
// watch cache's window, sends no list at all and tells its handlers
// exactly those 20 changes; after a kube-apiserver restart (its new watch
// cache no longer has the snapshot's version: 410) it lists once and tells
// exactly the changes since the snapshot.
func TestIntegrationWarmRestart(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("warm")
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("KUBE_WARM_OBJECTS")); err == nil && v > 0 {
		n = v
	}
	start := time.Now()
	r.CreateConfigMaps(ns, "cm", n, nil)
	t.Logf("%d ConfigMaps created in %v", n, time.Since(start).Round(time.Millisecond))
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()

	life := func(snap []byte, name string) (*informer.Informer[*kubefixture.ConfigMap], *requestCounter, *kubefixture.RestartLog[*kubefixture.ConfigMap], func()) {
		rc := &requestCounter{base: client.Transport}
		src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: &http.Client{Transport: rc}})
		if err != nil {
			t.Fatal(err)
		}
		inf := informer.New(src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger})
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

	first, _, _, stop := life(nil, "cold")
	var snap bytes.Buffer
	began := time.Now()
	info, err := first.WriteSnapshot(t.Context(), &snap)
	if err != nil {
		t.Fatal(err)
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
	// Inside the watch cache's window: no list.
	warm, rc, log, stop := life(snap.Bytes(), "warm, inside the window")
	log.Check(t, warm, last, 20, n)
	if l := rc.lists.Load(); l != 0 {
		t.Errorf("%d list requests after a restore inside the window, want 0", l)
	}
	stop()

	// After a kube-apiserver restart: its watch cache starts anew, the
	// snapshot's version is gone (410), one list.
	restartServer(t, env)
	r.Must("PUT", kubefixture.CMPath(ns, "cm-20"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-20"}, Data: map[string]string{"v": "after"}}, &got)
	last = got.ResourceVersion
	cold, rc, log, stop := life(snap.Bytes(), "warm, after expiry")
	defer stop()
	log.Check(t, cold, last, 21, n)
	if l := rc.lists.Load(); l != 1 {
		t.Errorf("%d list requests after a restore the server no longer serves, want 1", l)
	}
}

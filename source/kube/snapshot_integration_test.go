package kube

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
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

// restartLog is a handler that tells the restored objects' initial adds
// from the changes after them.
type restartLog struct {
	mu       sync.Mutex
	restored map[string]string // name → resourceVersion in the snapshot
	initial  int
	changes  map[string]int // name → calls
}

func (l *restartLog) handler() informer.HandlerFuncs[*kubefixture.ConfigMap] {
	note := func(name string) {
		l.mu.Lock()
		l.changes[name]++
		l.mu.Unlock()
	}
	return informer.HandlerFuncs[*kubefixture.ConfigMap]{
		AddFunc: func(cm *kubefixture.ConfigMap, initial bool) {
			l.mu.Lock()
			defer l.mu.Unlock()
			if initial && l.restored[cm.Name] == cm.ResourceVersion {
				l.initial++
				return
			}
			l.changes[cm.Name]++
		},
		UpdateFunc: func(_, cm *kubefixture.ConfigMap) { note(cm.Name) },
		DeleteFunc: func(d informer.Deleted[*kubefixture.ConfigMap]) { note(d.Object.Name) },
	}
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

	life := func(snap []byte, name string) (*informer.Informer[*kubefixture.ConfigMap], *requestCounter, *restartLog, func()) {
		rc := &requestCounter{base: client.Transport}
		src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: &http.Client{Transport: rc}})
		if err != nil {
			t.Fatal(err)
		}
		inf := informer.New(src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger})
		log := &restartLog{restored: map[string]string{}, changes: map[string]int{}}
		if snap != nil {
			began := time.Now()
			if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: restored in %v", name, time.Since(began).Round(time.Millisecond))
			for _, cm := range inf.Lister().List(nil) {
				log.restored[cm.Name] = cm.ResourceVersion
			}
		}
		reg, _ := inf.AddHandler(log.handler(), informer.HandlerOptions{})
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
	checkRestartLog(t, warm, log, last, 20, n)
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
	checkRestartLog(t, cold, log, last, 21, n)
	if l := rc.lists.Load(); l != 1 {
		t.Errorf("%d list requests after a restore the server no longer serves, want 1", l)
	}
}

// checkRestartLog waits until inf applied version last, then checks that
// its handler got the n restored objects as initial adds and then one
// call for each of want keys.
func checkRestartLog(t *testing.T, inf *informer.Informer[*kubefixture.ConfigMap], log *restartLog, last string, want, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := inf.WaitForResourceVersion(ctx, last); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		log.mu.Lock()
		calls, keys := 0, len(log.changes)
		for _, c := range log.changes {
			calls += c
		}
		initial := log.initial
		log.mu.Unlock()
		if calls >= want || time.Now().After(deadline) {
			if calls != want || keys != want || initial != n {
				t.Errorf("handlers: %d initial adds (want %d), %d calls for %d keys after them, want one for each of %d", initial, n, calls, keys, want)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/internal/apiserver"
)

// restartServer runs the restart script: kube-apiserver stops and comes
// back with the same data; open watches end and the watch cache starts
// anew at the current resourceVersion.
func restartServer(t *testing.T, env map[string]string) {
	t.Helper()
	scripts, err := apiserver.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := exec.Command(filepath.Join(scripts, "restart"), env["KUBE_APISERVER_DIR"]).CombinedOutput()
	if err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
	t.Logf("kube-apiserver restarted in %v", time.Since(start).Round(time.Millisecond))
}

// compactEtcd compacts etcd up to its current revision, so that older
// resourceVersions and continue tokens are gone from storage.
func compactEtcd(t *testing.T, env map[string]string) {
	t.Helper()
	post := func(path, body string, out any) {
		resp, err := http.Post(env["KUBE_ETCD_URL"]+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := kubefixture.DecodeJSON(resp, out); err != nil {
			t.Fatalf("etcd %s: %v", path, err)
		}
	}
	var status struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	post("/v3/maintenance/status", "{}", &status)
	post("/v3/kv/compaction", fmt.Sprintf(`{"revision":%q,"physical":true}`, status.Header.Revision), &struct{}{})
	t.Logf("etcd compacted at revision %s", status.Header.Revision)
}

// TestIntegrationRestart restarts kube-apiserver under a running
// informer. The informer resumes or relists and its cache converges with
// the server, changes made after the restart included; a watch from a
// version older than the new watch cache gets an ERROR 410, and after an
// etcd compaction so do a stale continue token and an Exact list, each an
// error matching informer.ErrExpired.
func TestIntegrationRestart(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("restart")
	r.CreateConfigMaps(ns, "cm", 5, nil)
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []error
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger, Reflector: fastReflector,
		OnError: func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}})
	rec := newRecorder()
	if _, err := inf.AddHandler(rec.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)

	// A first page and its continue token, to be stale after the restart.
	first, err := src.List(t.Context(), informer.ListOptions{Limit: 2})
	if err != nil || first.Continue == "" {
		t.Fatalf("first page: %+v %v", first, err)
	}
	oldRV := first.ResourceVersion
	// A write after oldRV, so that the new watch cache starts after it.
	r.Must("PUT", kubefixture.CMPath(ns, "cm-0"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-0"}, Data: map[string]string{"v": "before"}}, nil)
	rec.expect(t, 30*time.Second, "update cm-0 before")

	restartServer(t, env)

	r.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, nil)
	r.Must("PUT", kubefixture.CMPath(ns, "cm-1"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-1"}, Data: map[string]string{"v": "after"}}, nil)
	r.Must("DELETE", kubefixture.CMPath(ns, "cm-2"), nil, nil)
	rec.expect(t, 60*time.Second, "add after false", "update cm-1 after", "delete "+ns+"/cm-2")
	// The cache converges with the server.
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var server, cached []string
	for _, cm := range page.Items {
		server = append(server, cm.Name+"@"+cm.ResourceVersion)
	}
	for _, cm := range inf.Lister().List(nil) {
		cached = append(cached, cm.Name+"@"+cm.ResourceVersion)
	}
	slices.Sort(server)
	slices.Sort(cached)
	if !slices.Equal(server, cached) {
		t.Errorf("cache %v, server %v", cached, server)
	}
	mu.Lock()
	for _, err := range errs {
		t.Logf("informer error during the restart: %v", err)
	}
	mu.Unlock()

	// A watch from before the restart is too old for the new watch cache.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: oldRV})
	if err == nil {
		_, err = w.Next()
		w.Close()
	}
	if !errors.Is(err, informer.ErrExpired) {
		t.Errorf("watch from %s after the restart: %v, want ErrExpired", oldRV, err)
	}
	t.Log(err)

	// Once etcd has compacted past them, a stale continue token and an
	// Exact list are gone too.
	compactEtcd(t, env)
	_, err = src.List(t.Context(), informer.ListOptions{Limit: 2, Continue: first.Continue})
	if !errors.Is(err, informer.ErrExpired) {
		t.Errorf("stale continue token: %v, want ErrExpired", err)
	}
	t.Log(err)
	_, err = src.List(t.Context(), informer.ListOptions{ResourceVersion: oldRV, ResourceVersionMatch: informer.MatchExact})
	if !errors.Is(err, informer.ErrExpired) {
		t.Errorf("exact list at %s: %v, want ErrExpired", oldRV, err)
	}
	t.Log(err)
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
	corev1 "k8s.io/api/core/v1"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// TestBundle runs the controller against a real kube-apiserver: a source
// gets its bundle and the finalizer; a deleted bundle comes back; an edit
// of the source updates the bundle; deleting the source runs the
// finalizer, which deletes the bundle, and the source goes.
func TestBundle(t *testing.T) {
	cfg := kubetest.Config(t)
	rest := kubetest.NewREST(t, cfg)
	defer rest.Close()
	const ns = "bundle-test"
	rest.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]string{"name": ns}})
	cms := "/api/v1/namespaces/" + ns + "/configmaps/"
	coll := cms[:len(cms)-1]
	rest.Must("POST", coll, map[string]any{
		"metadata": map[string]any{"name": "app", "labels": map[string]string{SourceLabel: "true"}},
		"data":     map[string]string{"b": "2", "a": "1"},
	})
	rest.Must("POST", coll, map[string]any{"metadata": map[string]any{"name": "other"}, "data": map[string]string{"x": "y"}})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, Options{Namespace: ns, Workers: 2, Recheck: time.Minute, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	defer func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run = %v", err)
		}
	}()

	get := func(name string) (*corev1.ConfigMap, bool) {
		code, body := rest.Do("GET", cms+name, "", nil)
		if code == 404 {
			return nil, false
		}
		var cm corev1.ConfigMap
		if code != 200 || json.Unmarshal(body, &cm) != nil {
			t.Fatalf("GET %s: %d %s", name, code, body)
		}
		return &cm, true
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	bundleIs := func(data string) func() bool {
		return func() bool {
			b, ok := get("app-bundle")
			return ok && b.Data["bundle"] == data
		}
	}

	waitFor("the bundle of app", bundleIs("a=1\nb=2\n"))
	app, _ := get("app")
	b, _ := get("app-bundle")
	if !slices.Contains(app.Finalizers, Finalizer) {
		t.Errorf("app's finalizers %v lack %s", app.Finalizers, Finalizer)
	}
	if refs := b.OwnerReferences; len(refs) != 1 || refs[0].UID != app.UID || refs[0].Controller == nil || !*refs[0].Controller {
		t.Errorf("bundle's owner references %+v: want app (uid %s) as controller", refs, app.UID)
	}
	if _, ok := get("other-bundle"); ok {
		t.Error("a ConfigMap without the label was bundled")
	}

	// Deleting the child brings it back.
	rest.Must("DELETE", cms+"app-bundle", nil)
	waitFor("the bundle to come back", func() bool {
		nb, ok := get("app-bundle")
		return ok && nb.UID != b.UID && nb.Data["bundle"] == "a=1\nb=2\n"
	})

	// Editing the owner updates the child.
	app, _ = get("app")
	app.Data["c"] = "3"
	code, body := rest.Do("PUT", cms+"app", "application/json", app)
	if code != 200 {
		t.Fatalf("PUT app: %d %s", code, body)
	}
	waitFor("the bundle to follow the edit", bundleIs("a=1\nb=2\nc=3\n"))

	// Deleting the owner runs the finalizer: the bundle goes, then the
	// owner.
	rest.Must("DELETE", cms+"app", nil)
	waitFor("app and its bundle to be deleted", func() bool {
		_, appOK := get("app")
		_, bundleOK := get("app-bundle")
		return !appOK && !bundleOK
	})
	if _, ok := get("other"); !ok {
		t.Error("other was deleted")
	}
}

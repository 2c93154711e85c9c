package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer"

	"github.com/informer-go/informer/internal/apiserver"
)

// TestIntegrationWatchList runs a streaming list directly and through an
// informer.
func TestIntegrationWatchList(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := newREST(t, cfg)
	ns := r.namespace("watchlist")
	r.createConfigMaps(ns, "cm", 5, nil)
	src, err := New[*configMap](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	added := 0
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == informer.EventAdded {
			added++
		}
		if ev.Type == informer.EventInitialEventsEnd {
			if ev.ResourceVersion == "" {
				t.Error("initial events end without resourceVersion")
			}
			break
		}
	}
	w.Close()
	if added != 5 {
		t.Errorf("%d initial ADDED events, want 5", added)
	}

	inf := informer.New[*configMap](src, informer.Options[*configMap]{Logger: quietLogger,
		Reflector: informer.ReflectorOptions{WatchList: true, Backoff: fastReflector.Backoff}})
	rec := newRecorder()
	if _, err := inf.AddHandler(rec.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	rec.expect(t, 10*time.Second, "add cm-0 true", "add cm-4 true")
	r.must("DELETE", cmPath(ns, "cm-3"), nil, nil)
	rec.expect(t, 30*time.Second, "delete "+ns+"/cm-3")
}

// TestIntegrationWatchListDisabled starts a server with the WatchList
// feature off: a streaming list is refused with ErrWatchListUnsupported,
// and an informer asking for one falls back to listing.
func TestIntegrationWatchListDisabled(t *testing.T) {
	needKube(t)
	scripts, err := apiserver.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	start := exec.Command(filepath.Join(scripts, "start"))
	start.Env = append(start.Environ(), "KUBE_APISERVER_EXTRA_ARGS=--feature-gates=WatchList=false",
		fmt.Sprintf("KUBE_APISERVER_OWNER_PID=%d", os.Getpid()))
	var stderr strings.Builder
	start.Stderr = &stderr
	out, err := start.Output()
	if err != nil {
		t.Fatalf("start: %v\n%s", err, stderr.String())
	}
	env := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			env[k] = v
		}
	}
	t.Cleanup(func() { _ = exec.Command(filepath.Join(scripts, "stop"), env["KUBE_APISERVER_DIR"]).Run() })
	cfg := kubeConfigFor(t, env, "informer-test")
	r := newREST(t, cfg)
	ns := r.namespace("nowatchlist")
	r.createConfigMaps(ns, "cm", 2, nil)
	src, err := New[*configMap](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Watch(t.Context(), informer.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
	if !errors.Is(err, informer.ErrWatchListUnsupported) {
		t.Fatalf("streaming list: %v, want ErrWatchListUnsupported", err)
	}
	t.Log(err)
	inf := informer.New[*configMap](src, informer.Options[*configMap]{Logger: quietLogger,
		Reflector: informer.ReflectorOptions{WatchList: true, Backoff: fastReflector.Backoff}})
	rec := newRecorder()
	if _, err := inf.AddHandler(rec.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	rec.expect(t, 10*time.Second, "add cm-0 true", "add cm-1 true")
}

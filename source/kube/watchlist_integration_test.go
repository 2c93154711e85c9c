package kube

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"

	"github.com/informer-go/informer/internal/apiserver"
)

// TestIntegrationWatchList runs a streaming list directly and through an
// informer.
func TestIntegrationWatchList(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("watchlist")
	r.CreateConfigMaps(ns, "cm", 5, nil)
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns})
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

	// An informer left at its defaults streams, and resumes each watch
	// the server ends (timeoutSeconds 1 or 2 here) from where it was,
	// without streaming the state again and without a List.
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	reqs := &queryRecorder{base: client.Transport}
	src, err = New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: &http.Client{Transport: reqs}})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger,
		Reflector: informer.ReflectorOptions{MinWatchTimeout: time.Second, Backoff: fastReflector.Backoff}})
	rec := newRecorder()
	if _, err := inf.AddHandler(rec.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	rec.expect(t, 10*time.Second, "add cm-0 true", "add cm-4 true")
	r.Must("DELETE", kubefixture.CMPath(ns, "cm-3"), nil, nil)
	rec.expect(t, 30*time.Second, "delete "+ns+"/cm-3")
	time.Sleep(5 * time.Second) // a few server-side timeouts
	qs := reqs.all()
	if len(qs) < 3 || qs[0].Get("sendInitialEvents") != "true" {
		t.Fatalf("requests %v, want a streaming list, then watches", qs)
	}
	for i, q := range qs {
		if q.Get("watch") == "" {
			t.Errorf("request %d is a List: %v", i, q)
		}
		if i > 0 && (q.Get("sendInitialEvents") != "" || q.Get("resourceVersion") == "") {
			t.Errorf("request %d does not resume from a version: %v", i, q)
		}
	}
}

// queryRecorder records the query of every request.
type queryRecorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	qs   []url.Values
}

func (q *queryRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	q.mu.Lock()
	q.qs = append(q.qs, r.URL.Query())
	q.mu.Unlock()
	return q.base.RoundTrip(r)
}

func (q *queryRecorder) all() []url.Values {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.qs)
}

// TestIntegrationWatchListDisabled starts a server with the WatchList
// feature off: a streaming list is refused with ErrWatchListUnsupported,
// and an informer asking for one falls back to listing.
func TestIntegrationWatchListDisabled(t *testing.T) {
	needKube(t)
	env := apiserver.Start(t, "KUBE_APISERVER_EXTRA_ARGS=--feature-gates=WatchList=false")
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("nowatchlist")
	r.CreateConfigMaps(ns, "cm", 2, nil)
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Watch(t.Context(), informer.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
	if !errors.Is(err, informer.ErrWatchListUnsupported) {
		t.Fatalf("streaming list: %v, want ErrWatchListUnsupported", err)
	}
	t.Log(err)
	// At its defaults, an informer falls back to listing.
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger,
		Reflector: informer.ReflectorOptions{Backoff: fastReflector.Backoff}})
	rec := newRecorder()
	if _, err := inf.AddHandler(rec.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	rec.expect(t, 10*time.Second, "add cm-0 true", "add cm-1 true")
}

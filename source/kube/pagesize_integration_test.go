package kube

import (
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listQueries records the queries of the list requests (not watches) that
// pass through it.
type listQueries struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (l *listQueries) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("watch") == "" {
		l.mu.Lock()
		l.seen = append(l.seen, r.URL.Query().Encode())
		l.mu.Unlock()
	}
	return l.base.RoundTrip(r)
}

func (l *listQueries) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.seen
	l.seen = nil
	return s
}

// TestIntegrationDefaultListConsistent: against kube-apiserver, a List
// with the Source's and the reflector's defaults (ListOptions{}: no
// resourceVersion, the page size left to the Source) is a consistent read
// in growing pages, and an informer's first list (Initial) one consistent
// response: an object written just before the list is in it, at the
// version the write returned, in each of 20 rounds (odd rounds Initial);
// and an informer with streaming lists off syncs, in one request, to a
// state that has the last write.
func TestIntegrationDefaultListConsistent(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("consistent")
	r.CreateConfigMaps(ns, "cm", 1600, nil)

	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	rec := &listQueries{base: client.Transport}
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(i int) string {
		var got kubefixture.ConfigMap
		cm := kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-7"}, Data: map[string]string{"v": strconv.Itoa(i)}}
		r.Must("PUT", kubefixture.CMPath(ns, "cm-7"), cm, &got)
		return got.ResourceVersion
	}
	for i := range 20 {
		want := write(i)
		found, n := "", 0
		initial := i%2 == 1
		opts := informer.ListOptions{Initial: initial}
		for {
			page, err := src.List(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			n += len(page.Items)
			for _, cm := range page.Items {
				if cm.Name == "cm-7" {
					found = cm.ResourceVersion + " v=" + cm.Data["v"]
				}
			}
			if opts.Continue = page.Continue; opts.Continue == "" {
				break
			}
		}
		if w := want + " v=" + strconv.Itoa(i); found != w || n != 1600 {
			t.Fatalf("round %d: %d items, cm-7 at %q, want 1600 and %q (written just before the list)", i, n, found, w)
		}
		queries := rec.take()
		if initial {
			if len(queries) != 1 || queries[0] != "" {
				t.Fatalf("round %d: list requests %q, want one without limit or resourceVersion", i, queries)
			}
			continue
		}
		if len(queries) < 2 || queries[0] != "limit=500" {
			t.Fatalf("round %d: list requests %q, want a first page limit=500 without resourceVersion, then more", i, queries)
		}
		for _, q := range queries[1:] {
			if q == "" || q == "limit=500" {
				t.Fatalf("round %d: list requests %q: a continued page without its token", i, queries)
			}
		}
	}

	// The same through an informer with its defaults (but streaming lists).
	want := write(100)
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger,
		Reflector: informer.ReflectorOptions{WatchList: informer.WatchListOff}})
	runInformer(t, inf)
	cm, ok := inf.Lister().Get(ns + "/cm-7")
	if !ok || cm.ResourceVersion != want || len(inf.Lister().List(nil)) != 1600 {
		t.Fatalf("after sync: cm-7 %v at %v, %d objects; want it at %s (written just before) and 1600", ok, cm, len(inf.Lister().List(nil)), want)
	}
	if q := rec.take(); len(q) != 1 || q[0] != "" {
		t.Errorf("informer's list requests %q, want one, without limit or resourceVersion", q)
	}
}

package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var configMapsRes = kube.Resource{Version: "v1", Resource: "configmaps"}

// kubeConfigFor loads a context of the test server's kubeconfig.
func kubeConfigFor(t testing.TB, env map[string]string, context string) *kube.Config {
	t.Helper()
	cfg, err := kube.LoadKubeconfig(kube.LoadOptions{ExplicitPath: env["KUBECONFIG"], Context: context})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// headerRecorder records the Content-Encoding of responses.
type headerRecorder struct {
	base      http.RoundTripper
	gzipped   atomic.Int32
	responses atomic.Int32
}

func (h *headerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.base.RoundTrip(r)
	if err == nil {
		h.responses.Add(1)
		if resp.Header.Get("Content-Encoding") == "gzip" {
			h.gzipped.Add(1)
		}
	}
	return resp, err
}

// TestIntegrationListPages lists 2000 ConfigMaps in growing pages.
func TestIntegrationListPages(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("pages")
	r.CreateConfigMaps(ns, "cm", 2000, map[string]string{"app": "pages"})

	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	rec := &headerRecorder{base: client.Transport}
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	pages, rv := 0, ""
	opts := informer.ListOptions{}
	for {
		page, err := src.List(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if page.ResourceVersion == "" || (rv != "" && page.ResourceVersion != rv) {
			t.Errorf("page %d: resourceVersion %q after %q", pages, page.ResourceVersion, rv)
		}
		rv = page.ResourceVersion
		for _, cm := range page.Items {
			if cm.Namespace != ns || cm.Data["index"] == "" || cm.ResourceVersion == "" || cm.Labels["app"] != "pages" {
				t.Fatalf("item %+v", cm.ObjectMeta)
			}
			names[cm.Name] = true
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	// Growing pages: 500, then 1,000 if the first came within a second
	// (else 500 again), then the rest.
	if len(names) != 2000 || pages < 3 || pages > 4 {
		t.Errorf("%d ConfigMaps in %d pages, want 2000 in 3 (500, 1000, 500) or 4", len(names), pages)
	}
	t.Logf("%d pages at resourceVersion %s; %d of %d responses gzipped", pages, rv, rec.gzipped.Load(), rec.responses.Load())
	if rec.gzipped.Load() == 0 {
		t.Errorf("no page came gzipped")
	}
}

// recorder is a handler that records notifications as text on a channel.
type recorder struct{ ch chan string }

func newRecorder() *recorder { return &recorder{ch: make(chan string, 10000)} }

func (r *recorder) handler() informer.Handler[*kubefixture.ConfigMap] {
	return informer.HandlerFuncs[*kubefixture.ConfigMap]{
		AddFunc: func(cm *kubefixture.ConfigMap, initial bool) { r.ch <- fmt.Sprintf("add %s %v", cm.Name, initial) },
		UpdateFunc: func(old, cm *kubefixture.ConfigMap) {
			if old.ResourceVersion != cm.ResourceVersion {
				r.ch <- fmt.Sprintf("update %s %s", cm.Name, cm.Data["v"])
			}
		},
		DeleteFunc: func(d informer.Deleted[*kubefixture.ConfigMap]) {
			r.ch <- "delete " + d.Object.Namespace + "/" + d.Object.Name
		},
	}
}

// expect waits for each of want, in any order, ignoring other notes.
func (r *recorder) expect(t *testing.T, timeout time.Duration, want ...string) {
	t.Helper()
	missing := map[string]bool{}
	for _, w := range want {
		missing[w] = true
	}
	deadline := time.After(timeout)
	for len(missing) > 0 {
		select {
		case s := <-r.ch:
			delete(missing, s)
		case <-deadline:
			t.Fatalf("after %v still waiting for %v", timeout, slices.Sorted(maps.Keys(missing)))
		}
	}
}

// runInformer starts inf and stops it at the end of the test.
func runInformer[T informer.Object](t *testing.T, inf *informer.Informer[T]) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := inf.WaitForSync(wctx); err != nil {
		t.Fatalf("sync: %v", err)
	}
}

// quietLogger drops the informer's logs.
var quietLogger = slog.New(slog.DiscardHandler)

// fastReflector retries quickly.
var fastReflector = informer.ReflectorOptions{Backoff: informer.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}}

// TestIntegrationInformer runs an informer over ConfigMaps: it syncs, then
// sees an add, an update and a delete.
func TestIntegrationInformer(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("informer")
	r.CreateConfigMaps(ns, "cm", 3, nil)
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger, Reflector: fastReflector})
	rec := newRecorder()
	if _, err := inf.AddHandler(rec.handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	rec.expect(t, 10*time.Second, "add cm-0 true", "add cm-1 true", "add cm-2 true")

	r.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, nil)
	r.Must("PUT", kubefixture.CMPath(ns, "cm-1"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-1"}, Data: map[string]string{"v": "2"}}, nil)
	r.Must("DELETE", kubefixture.CMPath(ns, "cm-2"), nil, nil)
	rec.expect(t, 30*time.Second, "add new false", "update cm-1 2", "delete "+ns+"/cm-2")
	got, ok := inf.Lister().Namespace(ns).Get("cm-1")
	if !ok || got.Data["v"] != "2" {
		t.Errorf("lister: %+v %v", got, ok)
	}
	if _, ok := inf.Lister().Namespace(ns).Get("cm-2"); ok {
		t.Errorf("cm-2 is still cached")
	}
}

// TestIntegrationBookmarks watches one namespace with a short timeout
// while a ConfigMap changes in another: the server sends no event for it,
// but a bookmark at its resourceVersion or later, shortly before it ends
// the watch (it sends one only when the version has moved on).
func TestIntegrationBookmarks(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns, other := r.Namespace("bookmarks"), r.Namespace("elsewhere")
	r.CreateConfigMaps(ns, "cm", 1, nil)
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: page.ResourceVersion, AllowBookmarks: true, Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var elsewhere kubefixture.ConfigMap
	r.Must("POST", "/api/v1/namespaces/"+other+"/configmaps", kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, &elsewhere)
	evs, err := collect(t, w)
	if err != io.EOF {
		t.Fatalf("the watch ended with %v", err)
	}
	t.Logf("%d events, ended after %v", len(evs), time.Since(start).Round(time.Millisecond))
	if len(evs) == 0 {
		t.Fatal("no bookmark")
	}
	for _, ev := range evs {
		if ev.Type != informer.EventBookmark || ev.Object != nil {
			t.Errorf("event %+v, want only bookmarks", ev)
		}
	}
	if last := evs[len(evs)-1].ResourceVersion; newVersion(last) < newVersion(elsewhere.ResourceVersion) {
		t.Errorf("bookmark at %s, before the change elsewhere at %s", last, elsewhere.ResourceVersion)
	}
}

// newVersion parses a resourceVersion for comparisons in tests.
func newVersion(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

// TestIntegrationSelectors lists and watches with label and field
// selectors.
func TestIntegrationSelectors(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("selectors")
	r.CreateConfigMaps(ns, "red", 3, map[string]string{"color": "red"})
	r.CreateConfigMaps(ns, "blue", 2, map[string]string{"color": "blue"})
	for _, tt := range []struct {
		opts Options
		want []string
	}{
		{Options{Namespace: ns, LabelSelector: "color=blue"}, []string{"blue-0", "blue-1"}},
		{Options{Namespace: ns, LabelSelector: "color in (red),color!=blue"}, []string{"red-0", "red-1", "red-2"}},
		{Options{Namespace: ns, FieldSelector: "metadata.name=red-1"}, []string{"red-1"}},
		{Options{LabelSelector: "color=red", FieldSelector: "metadata.namespace=" + ns + ",metadata.name!=red-0"}, []string{"red-1", "red-2"}},
	} {
		src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cm := range page.Items {
			got = append(got, cm.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", src, got, tt.want)
		}
	}
	// A watch with a field selector sees only its object.
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, FieldSelector: "metadata.name=blue-1"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Must("DELETE", kubefixture.CMPath(ns, "blue-0"), nil, nil)
	r.Must("DELETE", kubefixture.CMPath(ns, "blue-1"), nil, nil)
	ev, err := w.Next()
	if err != nil || ev.Type != informer.EventDeleted || ev.Object.Name != "blue-1" {
		t.Errorf("event %+v, %v; want blue-1 deleted", ev, err)
	}
}

// TestIntegrationMetadataOnly lists and watches ConfigMaps as
// PartialObjectMetadata.
func TestIntegrationMetadataOnly(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("metadata")
	r.CreateConfigMaps(ns, "cm", 3, map[string]string{"a": "b"})
	src, err := New[*metav1.PartialObjectMetadata](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 {
		t.Fatalf("%d items", len(page.Items))
	}
	for _, m := range page.Items {
		if m.Kind != "PartialObjectMetadata" || m.Labels["a"] != "b" || m.ResourceVersion == "" {
			t.Errorf("item %s: kind %q labels %v", m.Name, m.Kind, m.Labels)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Must("PUT", kubefixture.CMPath(ns, "cm-0"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-0", Labels: map[string]string{"a": "c"}}}, nil)
	ev, err := w.Next()
	if err != nil || ev.Type != informer.EventModified || ev.Object.Kind != "PartialObjectMetadata" || ev.Object.Labels["a"] != "c" {
		t.Errorf("event %+v, %v", ev, err)
	}
}

// TestIntegrationAuth lists with a token, with a client certificate, and
// without the right: a 403 is ErrForbidden from List and from an
// informer's OnError.
func TestIntegrationAuth(t *testing.T) {
	env := needKube(t)
	for _, context := range []string{"informer-test", "informer-test-cert"} {
		src, err := New[*kubefixture.ConfigMap](kubeConfigFor(t, env, context), configMapsRes, Options{Namespace: "kube-system"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
			t.Errorf("%s: %v", context, err)
		}
	}
	src, err := New[*kubefixture.ConfigMap](kubeConfigFor(t, env, "informer-test-unprivileged"), configMapsRes, Options{Namespace: "kube-system"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.List(t.Context(), informer.ListOptions{})
	var ae *kube.APIError
	if !errors.Is(err, kube.ErrForbidden) || !errors.As(err, &ae) || ae.Code != 403 || ae.Reason != metav1.StatusReasonForbidden {
		t.Fatalf("List: %v", err)
	}
	t.Log(err)
	if _, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"}); !errors.Is(err, kube.ErrForbidden) {
		t.Errorf("Watch: %v", err)
	}

	errs := make(chan error, 100)
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger,
		OnError: func(err error) {
			select {
			case errs <- err:
			default:
			}
		}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	select {
	case err := <-errs:
		var se *informer.SourceError
		// The informer syncs from a streaming list by default.
		if !errors.Is(err, kube.ErrForbidden) || !errors.As(err, &se) || se.Op != "watchlist" {
			t.Errorf("OnError: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("no error reported")
	}
	cancel()
	<-done
}

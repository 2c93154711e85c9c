package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// contentTypeRecorder records the Content-Type of every response.
type contentTypeRecorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	got  []string
}

func (c *contentTypeRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		c.mu.Lock()
		c.got = append(c.got, resp.Header.Get("Content-Type"))
		c.mu.Unlock()
	}
	return resp, err
}

// take returns what was recorded since the last call.
func (c *contentTypeRecorder) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.got
	c.got = nil
	return got
}

// recordingClient returns an HTTP client for cfg that records the
// responses' Content-Types.
func recordingClient(t *testing.T, cfg *kube.Config) (*http.Client, *contentTypeRecorder) {
	t.Helper()
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	rec := &contentTypeRecorder{base: client.Transport}
	return &http.Client{Transport: rec}, rec
}

// expectContentTypes checks that every recorded response had Content-Type
// want.
func expectContentTypes(t *testing.T, rec *contentTypeRecorder, what, want string) {
	t.Helper()
	got := rec.take()
	if len(got) == 0 {
		t.Errorf("%s: no response recorded", what)
	}
	for _, ct := range got {
		if ct != want {
			t.Errorf("%s: Content-Type %q, want %q", what, ct, want)
		}
	}
}

// TestIntegrationProtobufMetadata lists and watches ConfigMaps as
// PartialObjectMetadata over protobuf: pages, add, update and delete
// events, bookmarks, a streaming list, and an informer.
func TestIntegrationProtobufMetadata(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns, other := r.Namespace("protobuf"), r.Namespace("protobuf-elsewhere")
	r.CreateConfigMaps(ns, "cm", 25, map[string]string{"app": "pb"})
	client, rec := recordingClient(t, cfg)
	src, err := New[*metav1.PartialObjectMetadata](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: client, Protobuf: kube.Protobuf[*metav1.PartialObjectMetadata]()})
	if err != nil {
		t.Fatal(err)
	}

	// Pages of 10.
	names := map[string]bool{}
	pages, rv := 0, ""
	opts := informer.ListOptions{Limit: 10}
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
		for _, m := range page.Items {
			if m.Namespace != ns || m.ResourceVersion == "" || m.UID == "" || m.Labels["app"] != "pb" ||
				m.Kind != "PartialObjectMetadata" || m.APIVersion != "meta.k8s.io/v1" || m.CreationTimestamp.IsZero() {
				t.Fatalf("item %+v", m)
			}
			names[m.Name] = true
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	if len(names) != 25 || pages != 3 {
		t.Errorf("%d ConfigMaps in %d pages, want 25 in 3", len(names), pages)
	}
	expectContentTypes(t, rec, "list", "application/vnd.kubernetes.protobuf")

	// Add, update, delete.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: rv, AllowBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new", Annotations: map[string]string{"a": "1"}}}, nil)
	r.Must("PUT", kubefixture.CMPath(ns, "cm-3"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-3", Labels: map[string]string{"app": "changed"}}}, nil)
	r.Must("DELETE", kubefixture.CMPath(ns, "cm-4"), nil, nil)
	var got []string
	for len(got) < 3 {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		if ev.Type == informer.EventBookmark {
			continue
		}
		m := ev.Object
		if m.Kind != "PartialObjectMetadata" || ev.ResourceVersion != m.ResourceVersion || m.Namespace != ns {
			t.Errorf("event %v %+v", ev.Type, m)
		}
		got = append(got, fmt.Sprintf("%v %s %s%s", ev.Type, m.Name, m.Labels["app"], m.Annotations["a"]))
	}
	w.Close()
	if want := []string{"ADDED new 1", "MODIFIED cm-3 changed", "DELETED cm-4 pb"}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	expectContentTypes(t, rec, "watch", "application/vnd.kubernetes.protobuf;stream=watch")

	// Bookmarks: a change elsewhere moves the version on; the watch's
	// last bookmark is at it or later.
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err = src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: page.ResourceVersion, AllowBookmarks: true, Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var elsewhere kubefixture.ConfigMap
	r.Must("POST", "/api/v1/namespaces/"+other+"/configmaps", kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, &elsewhere)
	evs, err := collect(t, w)
	w.Close()
	if err != io.EOF || len(evs) == 0 {
		t.Fatalf("%d events, then %v; want bookmarks and io.EOF", len(evs), err)
	}
	for _, ev := range evs {
		if ev.Type != informer.EventBookmark || ev.Object != nil {
			t.Errorf("event %+v, want only bookmarks", ev)
		}
	}
	if last := evs[len(evs)-1].ResourceVersion; newVersion(last) < newVersion(elsewhere.ResourceVersion) {
		t.Errorf("bookmark at %s, before the change elsewhere at %s", last, elsewhere.ResourceVersion)
	}
	rec.take()

	// A streaming list: the 25 ConfigMaps as they are now, then the end
	// of the initial events.
	w, err = src.Watch(ctx, informer.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	initial := map[string]bool{}
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == informer.EventAdded {
			initial[ev.Object.Name] = true
		}
		if ev.Type == informer.EventInitialEventsEnd {
			if ev.ResourceVersion == "" {
				t.Error("initial events end without resourceVersion")
			}
			break
		}
	}
	w.Close()
	if len(initial) != 25 || !initial["new"] || initial["cm-4"] {
		t.Errorf("%d initial objects: %v", len(initial), initial)
	}
	expectContentTypes(t, rec, "streaming list", "application/vnd.kubernetes.protobuf;stream=watch")

	// An informer over protobuf.
	inf := informer.New[*metav1.PartialObjectMetadata](src, informer.Options[*metav1.PartialObjectMetadata]{Logger: quietLogger,
		Reflector: informer.ReflectorOptions{WatchList: informer.WatchListOn, Backoff: fastReflector.Backoff}})
	notes := make(chan string, 1000)
	if _, err := inf.AddHandler(informer.HandlerFuncs[*metav1.PartialObjectMetadata]{
		AddFunc: func(m *metav1.PartialObjectMetadata, initial bool) {
			notes <- fmt.Sprintf("add %s %v", m.Name, initial)
		},
		UpdateFunc: func(old, m *metav1.PartialObjectMetadata) { notes <- "update " + m.Name },
		DeleteFunc: func(d informer.Deleted[*metav1.PartialObjectMetadata]) { notes <- "delete " + d.Object.Name },
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	r.Must("DELETE", kubefixture.CMPath(ns, "cm-5"), nil, nil)
	expectNotes(t, notes, 30*time.Second, "add cm-0 true", "add new true", "delete cm-5")
}

// expectNotes waits for each of want, in any order, ignoring other notes.
func expectNotes(t *testing.T, notes chan string, timeout time.Duration, want ...string) {
	t.Helper()
	(&recorder{ch: notes}).expect(t, timeout, want...)
}

// TestIntegrationProtobufExpired restarts kube-apiserver so that an old
// resourceVersion is too old for its new watch cache: a protobuf watch
// from it gets an ERROR event with a protobuf Status 410, and after an
// etcd compaction a stale continue token and an Exact list get HTTP 410
// with a protobuf Status; an informer relists and converges.
func TestIntegrationProtobufExpired(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("protobuf-expired")
	r.CreateConfigMaps(ns, "cm", 5, nil)
	client, rec := recordingClient(t, cfg)
	meta, err := New[*metav1.PartialObjectMetadata](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: client, Protobuf: kube.Protobuf[*metav1.PartialObjectMetadata]()})
	if err != nil {
		t.Fatal(err)
	}
	// Full objects, as far as protoWidget reads them: errors come as a
	// protobuf Status (metadata-only requests get JSON errors).
	full, err := New[*kubefixture.ProtoWidget](cfg, configMapsRes, Options{Namespace: ns, HTTPClient: client, DisableKindCheck: true, Protobuf: kube.ProtobufFunc((*kubefixture.ProtoWidget).Unmarshal)})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New[*metav1.PartialObjectMetadata](meta, informer.Options[*metav1.PartialObjectMetadata]{Logger: quietLogger, Reflector: fastReflector})
	notes := make(chan string, 1000)
	if _, err := inf.AddHandler(informer.HandlerFuncs[*metav1.PartialObjectMetadata]{
		AddFunc: func(m *metav1.PartialObjectMetadata, initial bool) {
			notes <- fmt.Sprintf("add %s %v", m.Name, initial)
		},
		UpdateFunc: func(old, m *metav1.PartialObjectMetadata) { notes <- "update " + m.Name + " " + m.Labels["v"] },
		DeleteFunc: func(d informer.Deleted[*metav1.PartialObjectMetadata]) { notes <- "delete " + d.Object.Name },
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)

	first, err := full.List(t.Context(), informer.ListOptions{Limit: 2})
	if err != nil || first.Continue == "" || len(first.Items) != 2 || first.Items[0].Name != "cm-0" {
		t.Fatalf("first page: %+v %v", first, err)
	}
	oldRV := first.ResourceVersion
	r.Must("PUT", kubefixture.CMPath(ns, "cm-0"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-0", Labels: map[string]string{"v": "before"}}}, nil)
	expectNotes(t, notes, 30*time.Second, "update cm-0 before")

	restartServer(t, env)

	// The informer resumes or relists, and sees what changed.
	r.Must("PUT", kubefixture.CMPath(ns, "cm-1"), kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-1", Labels: map[string]string{"v": "after"}}}, nil)
	r.Must("DELETE", kubefixture.CMPath(ns, "cm-2"), nil, nil)
	expectNotes(t, notes, 60*time.Second, "update cm-1 after", "delete cm-2")
	rec.take()

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := meta.Watch(ctx, informer.WatchOptions{ResourceVersion: oldRV})
	if err == nil {
		_, err = w.Next()
		w.Close()
	}
	var ae *kube.APIError
	if !errors.Is(err, informer.ErrExpired) || !errors.As(err, &ae) || ae.Code != 410 || ae.Status.Kind != "Status" {
		t.Errorf("watch from %s after the restart: %v, want an ERROR 410", oldRV, err)
	}
	t.Log(err)
	expectContentTypes(t, rec, "watch", "application/vnd.kubernetes.protobuf;stream=watch")
	fw, err := full.Watch(ctx, informer.WatchOptions{ResourceVersion: oldRV})
	if err == nil {
		_, err = fw.Next()
		fw.Close()
	}
	if !errors.Is(err, informer.ErrExpired) {
		t.Errorf("full-object watch from %s after the restart: %v, want ErrExpired", oldRV, err)
	}
	expectContentTypes(t, rec, "watch", "application/vnd.kubernetes.protobuf;stream=watch")

	compactEtcd(t, env)
	for _, opts := range []informer.ListOptions{
		{Limit: 2, Continue: first.Continue},
		{ResourceVersion: oldRV, ResourceVersionMatch: informer.MatchExact},
	} {
		_, err = full.List(t.Context(), opts)
		var ae *kube.APIError
		if !errors.Is(err, informer.ErrExpired) || !errors.As(err, &ae) || ae.Code != 410 || ae.Status.Kind != "Status" || ae.Message == "" {
			t.Errorf("list %+v: %v, want a 410 Status", opts, err)
		}
		t.Log(err)
	}
	expectContentTypes(t, rec, "list errors", "application/vnd.kubernetes.protobuf")

	// A relist, as the reflector does after a 410, and the cache agrees.
	page, err := meta.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var server, cached []string
	for _, m := range page.Items {
		server = append(server, m.Name+"@"+m.ResourceVersion)
	}
	for _, m := range inf.Lister().List(nil) {
		cached = append(cached, m.Name+"@"+m.ResourceVersion)
	}
	slices.Sort(server)
	slices.Sort(cached)
	if !slices.Equal(server, cached) {
		t.Errorf("cache %v, server %v", cached, server)
	}
}

// protoGadget is a gadget's metadata in a type with generated protobuf
// code: a Source of it asks for protobuf.
type protoGadget struct {
	metav1.PartialObjectMetadata
}

// TestIntegrationProtobufCRD asks for protobuf for a custom resource:
// the server answers JSON, which is decoded. A metadata-only Source of
// the custom resource works too, whatever the server sends.
func TestIntegrationProtobufCRD(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	createCRD(t, cfg, r, "doohickeys", "doohickey", "Doohickey")
	res := kube.Resource{Group: "example.com", Version: "v1", Resource: "doohickeys"}
	ns := r.Namespace("protobuf-crd")
	path := "/apis/example.com/v1/namespaces/" + ns + "/doohickeys"
	newDoohickey := func(name string, size int) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Doohickey",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"size": fmt.Sprint(size)}}, "spec": map[string]any{"size": size}}
	}
	for i := range 3 {
		r.Must("POST", path, newDoohickey(fmt.Sprintf("d%d", i), i), nil)
	}
	client, rec := recordingClient(t, cfg)
	src, err := New[*protoGadget](cfg, res, Options{Namespace: ns, DisableKindCheck: true, ContentType: kube.ContentTypeProtobuf, Protobuf: kube.ProtobufFunc((*protoGadget).Unmarshal), HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 || page.Items[2].Name != "d2" || page.Items[2].Labels["size"] != "2" || page.Items[0].Kind != "Doohickey" {
		t.Fatalf("items %+v", page.Items)
	}
	expectContentTypes(t, rec, "list", "application/json")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	r.Must("POST", path, newDoohickey("dz", 9), nil)
	ev, err := w.Next()
	w.Close()
	if err != nil || ev.Type != informer.EventAdded || ev.Object.Name != "dz" || ev.Object.Labels["size"] != "9" {
		t.Fatalf("event %+v, %v", ev, err)
	}
	expectContentTypes(t, rec, "watch", "application/json")

	// Metadata only.
	meta, err := New[*metav1.PartialObjectMetadata](cfg, res, Options{Namespace: ns, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	mpage, err := meta.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(mpage.Items) != 4 || mpage.Items[3].Name != "dz" || mpage.Items[3].Labels["size"] != "9" {
		t.Fatalf("items %+v", mpage.Items)
	}
	mw, err := meta.Watch(ctx, informer.WatchOptions{ResourceVersion: mpage.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	r.Must("DELETE", path+"/d0", nil, nil)
	mev, err := mw.Next()
	mw.Close()
	if err != nil || mev.Type != informer.EventDeleted || mev.Object.Name != "d0" {
		t.Fatalf("event %+v, %v", mev, err)
	}
	t.Logf("metadata of a custom resource came as %s", strings.Join(rec.take(), ", "))
}

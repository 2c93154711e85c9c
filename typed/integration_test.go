package typed_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// ConfigMap is a user's own type for configmaps.
type ConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

var configMaps = typed.Resource[*ConfigMap]{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// Namespace is a cluster-scoped type of the test's own.
type Namespace struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
}

var namespaces = typed.Resource[*Namespace]{Version: "v1", Resource: "namespaces", Kind: "Namespace"}

// watchCounter counts the watch requests open at once, per path.
type watchCounter struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	open map[string]int
	all  atomic.Int64
}

func (c *watchCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Get("watch") != "1" && req.URL.Query().Get("watch") != "true" {
		return c.rt.RoundTrip(req)
	}
	c.all.Add(1)
	c.mu.Lock()
	c.open[req.URL.Path]++
	c.mu.Unlock()
	resp, err := c.rt.RoundTrip(req)
	if err != nil {
		c.done(req.URL.Path)
		return nil, err
	}
	resp.Body = &countedBody{ReadCloserLike: resp.Body, done: func() { c.done(req.URL.Path) }}
	return resp, nil
}

func (c *watchCounter) done(path string) {
	c.mu.Lock()
	c.open[path]--
	c.mu.Unlock()
}

func (c *watchCounter) openOn(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[path]
}

type ReadCloserLike interface {
	Read([]byte) (int, error)
	Close() error
}

type countedBody struct {
	ReadCloserLike
	once sync.Once
	done func()
}

func (b *countedBody) Close() error {
	b.once.Do(b.done)
	return b.ReadCloserLike.Close()
}

func newFactory(t *testing.T, opts typed.FactoryOptions) (*typed.Factory, *watchCounter) {
	f, wc, _ := newFactoryClient(t, opts)
	return f, wc
}

func newFactoryClient(t *testing.T, opts typed.FactoryOptions) (*typed.Factory, *watchCounter, *http.Client) {
	t.Helper()
	cfg := kubetest.Config(t)
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	wc := &watchCounter{rt: client.Transport, open: map[string]int{}}
	client.Transport = wc
	opts.HTTPClient = client
	f, err := typed.NewFactory(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f, wc, client
}

func createNamespace(t *testing.T, r *kubetest.REST, name string) {
	t.Helper()
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": name}})
}

func createConfigMap(t *testing.T, r *kubetest.REST, ns, name string) {
	t.Helper()
	r.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", map[string]any{
		"metadata": map[string]any{"name": name, "labels": map[string]string{"app": "demo"}},
		"data":     map[string]string{"k": "v"},
	})
}

// eventually waits for cond, polling: the server's changes reach the
// cache asynchronously, and the test has no event to wait on.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestIntegrationFactorySharesStartsReleasesAndShutsDown(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	createNamespace(t, r, "typed-a")
	createConfigMap(t, r, "typed-a", "one")
	before := runtime.NumGoroutine()

	f, wc, client := newFactoryClient(t, typed.FactoryOptions{Namespace: "typed-a"})
	a, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	if a.Informer() != b.Informer() || f.Len() != 1 {
		t.Fatalf("two asks for one resource made %d informers", f.Len())
	}
	other, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{LabelSelector: "app=demo"})
	if other.Informer() == a.Informer() {
		t.Fatal("another selector shares the informer")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f.Start(ctx)
	if res, err := f.WaitForCacheSync(ctx); err != nil || len(res) != 2 {
		t.Fatalf("WaitForCacheSync: %v %+v", err, res)
	}
	if _, ok := a.Lister().Get("typed-a/one"); !ok {
		t.Fatal("one not cached")
	}
	if n := len(a.Lister().Namespace("typed-a").List(nil)); n != 1 {
		t.Fatalf("namespace lister: %d objects, want 1", n)
	}
	cmPath := "/api/v1/namespaces/typed-a/configmaps"
	eventually(t, "two watches", func() bool { return wc.openOn(cmPath) == 2 })

	// A third informer after Start: Start again starts it alone.
	ns, _ := typed.Informer(f, namespaces, typed.Options[*Namespace]{})
	f.Start(ctx)
	if err := ns.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if l := ns.Lister(); l.Namespaced() || len(l.Namespace("typed-a").List(nil)) != 0 {
		t.Fatalf("a cluster-scoped lister: Namespaced %v, namespace typed-a lists %d; want false, 0", l.Namespaced(), len(l.Namespace("typed-a").List(nil)))
	}
	if _, ok := ns.Lister().Get("typed-a"); !ok {
		t.Fatal("namespace typed-a not cached")
	}
	if n := wc.openOn(cmPath); n != 2 {
		t.Fatalf("%d configmap watches after a second Start, want 2 (none restarted)", n)
	}

	// Releasing one of two references keeps the informer; the last one stops it.
	a.Release()
	a.Release() // idempotent
	createConfigMap(t, r, "typed-a", "two")
	eventually(t, "two in the cache", func() bool { _, ok := b.Lister().Get("typed-a/two"); return ok })
	b.Release()
	eventually(t, "the released watch to close", func() bool { return wc.openOn(cmPath) == 1 })
	createConfigMap(t, r, "typed-a", "three")
	eventually(t, "the other informer to keep receiving", func() bool { _, ok := other.Lister().Get("typed-a/three"); return ok })
	if f.Len() != 2 {
		t.Fatalf("%d informers after releasing one, want 2", f.Len())
	}

	f.Shutdown()
	if _, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{}); !errors.Is(err, typed.ErrShutDown) {
		t.Fatalf("Informer after Shutdown: %v", err)
	}
	if n := wc.openOn(cmPath) + wc.openOn("/api/v1/namespaces"); n != 0 {
		t.Fatalf("%d watches open after Shutdown", n)
	}
	// No goroutine left once the pool's idle connections are closed.
	client.CloseIdleConnections()
	r.Close()
	eventually(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

func TestIntegrationManagedFieldsDroppedByDefault(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	createNamespace(t, r, "typed-mf")
	// Server-side apply: managedFields with the apply manager.
	code, body := r.Do("PATCH", "/api/v1/namespaces/typed-mf/configmaps/applied?fieldManager=test&force=true",
		"application/apply-patch+yaml", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"a":"b"}}`))
	if code/100 != 2 {
		t.Fatalf("apply: %d %s", code, body)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, keep := range []bool{false, true} {
		f, _ := newFactory(t, typed.FactoryOptions{Namespace: "typed-mf", KeepManagedFields: keep})
		ref, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
		u, _ := typed.Informer(f, typed.Metadata(configMaps), typed.Options[*metav1.PartialObjectMetadata]{})
		f.Start(ctx)
		if _, err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		cm, _ := ref.Lister().Get("typed-mf/applied")
		un, _ := u.Lister().Get("typed-mf/applied")
		if got := len(cm.ManagedFields) > 0 && len(un.GetManagedFields()) > 0; got != keep {
			t.Errorf("KeepManagedFields %v: typed has %d entries, metadata-only %d", keep, len(cm.ManagedFields), len(un.GetManagedFields()))
		}
		f.Shutdown()
	}
}

func TestIntegrationUnknownResourceDoesNotHoldBackOthers(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	createNamespace(t, r, "typed-404")
	f, _ := newFactory(t, typed.FactoryOptions{Namespace: "typed-404"})
	defer f.Shutdown()
	var reported atomic.Int64
	bogus := typed.Dynamic(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "nosuchthings"}, "NoSuchThing", true)
	if _, err := typed.Informer(f, bogus, typed.Options[*unstructured.Unstructured]{OnError: func(error) { reported.Add(1) }}); err != nil {
		t.Fatal(err)
	}
	good, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	f.Start(t.Context())
	res, err := f.WaitForCacheSync(ctx)
	if err == nil || len(res) != 2 {
		t.Fatalf("WaitForCacheSync: %v %+v", err, res)
	}
	for _, r := range res {
		switch {
		case strings.Contains(r.Informer, "nosuchthings"):
			if r.Synced || !errors.Is(r.Err, context.DeadlineExceeded) || !strings.Contains(r.Err.Error(), "404") {
				t.Errorf("unknown resource: %+v", r)
			}
		default:
			if !r.Synced || r.Err != nil {
				t.Errorf("configmaps: %+v", r)
			}
		}
	}
	if !good.HasSynced() || reported.Load() == 0 {
		t.Errorf("synced %v, errors reported %d", good.HasSynced(), reported.Load())
	}
}

func TestIntegrationDiscoveryAndDynamicCRD(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	d, err := typed.NewDiscovery(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for name, want := range map[string]string{
		"cm": "configmaps/v1", "ConfigMap": "configmaps/v1", "configmaps": "configmaps/v1",
		"deploy": "deployments.apps/v1", "deployments.apps": "deployments.apps/v1", "ns": "namespaces/v1",
		"events": "events/v1", "ev": "events/v1", "events.events.k8s.io": "events.events.k8s.io/v1",
	} {
		ar, err := d.Resolve(ctx, name)
		if err != nil || ar.Dynamic().String() != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", name, ar.Dynamic(), err, want)
		}
	}
	if ar, _ := d.Resolve(ctx, "ns"); ar.Namespaced {
		t.Error("namespaces resolved as namespaced")
	}
	if _, err := d.Resolve(ctx, "cofnigmaps"); !errors.Is(err, typed.ErrNotFound) {
		t.Errorf("a typo: %v", err)
	}

	// A CRD created now is found after the refresh Resolve makes.
	r.Must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("gizmos", "gizmo", "Gizmo", "gz"))
	var gz typed.APIResource
	eventually(t, "the CRD to be served", func() bool {
		gz, err = d.Resolve(ctx, "gz")
		return err == nil
	})
	if gz.Group != "example.com" || gz.Kind != "Gizmo" || !gz.Namespaced {
		t.Fatalf("resolved %+v", gz)
	}
	createNamespace(t, r, "typed-crd")
	r.Must("POST", "/apis/example.com/v1/namespaces/typed-crd/gizmos", map[string]any{
		"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "g1"}, "spec": map[string]any{"size": 3},
	})
	f, _ := newFactory(t, typed.FactoryOptions{})
	defer f.Shutdown()
	dyn, err := typed.Informer(f, gz.Dynamic(), typed.Options[*unstructured.Unstructured]{})
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := typed.Informer(f, gz.Metadata(), typed.Options[*metav1.PartialObjectMetadata]{})
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	f.Start(sctx)
	if _, err := f.WaitForCacheSync(sctx); err != nil {
		t.Fatal(err)
	}
	u, ok := dyn.Lister().Get("typed-crd/g1")
	if !ok || u.GetKind() != "Gizmo" {
		t.Fatalf("dynamic: %v %v", ok, u)
	}
	if size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size"); size != 3 {
		t.Errorf("spec.size = %d", size)
	}
	if m, ok := meta.Lister().Get("typed-crd/g1"); !ok || m.Name != "g1" {
		t.Errorf("metadata-only: %v %v", ok, m)
	}
}

func crd(plural, singular, kind, short string) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": singular, "kind": kind, "shortNames": []string{short}},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}
}

var _ informer.Object = (*ConfigMap)(nil)

func TestIntegrationForbiddenResourceDoesNotHoldBackOthers(t *testing.T) {
	env := kubetest.Need(t)
	admin := kubetest.NewREST(t, kubetest.Config(t))
	createNamespace(t, admin, "typed-403")
	// The unprivileged user may list and watch configmaps there, not secrets.
	admin.Must("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/typed-403/roles", map[string]any{
		"metadata": map[string]any{"name": "cm-reader"},
		"rules":    []any{map[string]any{"apiGroups": []string{""}, "resources": []string{"configmaps"}, "verbs": []string{"list", "watch"}}},
	})
	admin.Must("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/typed-403/rolebindings", map[string]any{
		"metadata": map[string]any{"name": "cm-reader"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "unprivileged"}},
	})
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: env["KUBECONFIG"], Context: "informer-test-unprivileged"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{Namespace: "typed-403"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Shutdown()
	secrets := typed.Resource[*ConfigMap]{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	typed.Informer(f, typed.Metadata(secrets), typed.Options[*metav1.PartialObjectMetadata]{})
	cms, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	f.Start(t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	res, err := f.WaitForCacheSync(ctx)
	if err == nil || len(res) != 2 || !cms.HasSynced() {
		t.Fatalf("WaitForCacheSync: %v %+v", err, res)
	}
	for _, r := range res {
		if strings.HasPrefix(r.Informer, "secrets") != (r.Err != nil) {
			t.Errorf("%+v", r)
		}
		if r.Err != nil && strings.Count(r.Err.Error(), "403 Forbidden") != 1 {
			t.Errorf("the secrets informer's error does not say forbidden, once: %v", r.Err)
		}
	}
}

func TestIntegrationCRDDeletedWhileWatched(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	createNamespace(t, r, "typed-doomed")
	r.Must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("doodads", "doodad", "Doodad", "dd"))
	eventually(t, "the CRD to be served", func() bool {
		code, _ := r.Do("GET", "/apis/example.com/v1/doodads", "", nil)
		return code == 200
	})
	r.Must("POST", "/apis/example.com/v1/namespaces/typed-doomed/doodads", map[string]any{
		"apiVersion": "example.com/v1", "kind": "Doodad", "metadata": map[string]any{"name": "d1"},
	})
	var mu sync.Mutex
	var errs []error
	f, _ := newFactory(t, typed.FactoryOptions{Namespace: "typed-doomed"})
	defer f.Shutdown()
	dd, _ := typed.Informer(f, typed.Dynamic(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "doodads"}, "Doodad", true),
		typed.Options[*unstructured.Unstructured]{OnError: func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }})
	cms, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := dd.Lister().Get("typed-doomed/d1"); !ok {
		t.Fatal("d1 not cached")
	}
	r.Must("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/doodads.example.com", nil)
	eventually(t, "d1 to leave the cache", func() bool { return len(dd.Lister().List(nil)) == 0 })
	eventually(t, "a 404 to be reported", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, err := range errs {
			if strings.Contains(err.Error(), "404") {
				return true
			}
		}
		return false
	})
	createConfigMap(t, r, "typed-doomed", "still-works")
	eventually(t, "the other informer to keep working", func() bool { _, ok := cms.Lister().Get("typed-doomed/still-works"); return ok })
}

// TestIntegrationFactoryLaterCallers: a caller that gets an informer made
// by another still has its Indexers added and its OnError called (until
// its Release), and informers of one resource as other views have names
// of their own in WaitForCacheSync's report.
func TestIntegrationFactoryLaterCallers(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	createNamespace(t, r, "typed-later")
	createConfigMap(t, r, "typed-later", "one")
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{Namespace: "typed-later"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Shutdown()
	first, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	if err != nil {
		t.Fatal(err)
	}
	var errsA, errsB atomic.Int32
	byData := func(cm *ConfigMap, dst []string) ([]string, error) { return append(dst, cm.Data["k"]), nil }
	a, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{
		Indexers: map[string]informer.IndexFunc[*ConfigMap]{"byData": byData},
		OnError:  func(error) { errsA.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{OnError: func(error) { errsB.Add(1) }})
	if a.Informer() != first.Informer() || b.Informer() != first.Informer() {
		t.Fatal("not shared")
	}
	typed.Informer(f, typed.Metadata(configMaps), typed.Options[*metav1.PartialObjectMetadata]{})
	typed.Informer(f, typed.Dynamic(configMaps.GroupVersionResource(), "ConfigMap", true), typed.Options[*unstructured.Unstructured]{})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f.Start(ctx)
	res, err := f.WaitForCacheSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res {
		names = append(names, r.Informer)
	}
	if want := []string{"configmaps/v1 in typed-later", "configmaps/v1 in typed-later (dynamic)", "configmaps/v1 in typed-later (metadata)"}; !slices.Equal(names, want) {
		t.Fatalf("names %q, want %q", names, want)
	}
	if got, err := first.Informer().Lister().ByIndex("byData", "v"); err != nil || len(got) != 1 {
		t.Fatalf("the later caller's index: %d objects, %v", len(got), err)
	}
	// Two later callers add an index of one name at once: the second waits
	// for the first; when the first's function fails on a cached object,
	// the second's is added, not taken as there.
	inA, releaseA := make(chan struct{}), make(chan struct{})
	failing := func(*ConfigMap, []string) ([]string, error) {
		close(inA)
		<-releaseA
		return nil, errors.New("no")
	}
	errA := make(chan error, 1)
	go func() {
		_, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{Indexers: map[string]informer.IndexFunc[*ConfigMap]{"byX": failing}})
		errA <- err
	}()
	<-inA
	refB := make(chan *typed.Ref[*ConfigMap], 1)
	go func() {
		ref, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{Indexers: map[string]informer.IndexFunc[*ConfigMap]{"byX": byData}})
		if err != nil {
			t.Error(err)
		}
		refB <- ref
	}()
	time.Sleep(50 * time.Millisecond) // let the second call reach the index (it must wait whenever it does)
	close(releaseA)
	if err := <-errA; !errors.As(err, new(*informer.IndexError)) {
		t.Fatalf("the failing index: %v", err)
	}
	if ref := <-refB; ref != nil {
		if got, err := ref.Informer().Lister().ByIndex("byX", "v"); err != nil || len(got) != 1 {
			t.Fatalf("the second caller's index: %d objects, %v", len(got), err)
		}
		ref.Release()
	}

	// An error of the shared informer reaches both callers' OnError; after
	// b's Release, only a's.
	bad := func(*ConfigMap, []string) ([]string, error) { return nil, errors.New("no") }
	if _, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{Indexers: map[string]informer.IndexFunc[*ConfigMap]{"bad": bad}}); !errors.As(err, new(*informer.IndexError)) {
		t.Fatalf("an index failing on a cached object: %v", err)
	}
	first.Informer().AddIndex("failsLater", func(cm *ConfigMap, dst []string) ([]string, error) {
		if cm.Name == "two" || cm.Name == "three" {
			return nil, errors.New("no")
		}
		return dst, nil
	})
	createConfigMap(t, r, "typed-later", "two")
	eventually(t, "both OnErrors", func() bool { return errsA.Load() > 0 && errsB.Load() > 0 })
	b.Release()
	nb := errsB.Load()
	na := errsA.Load()
	createConfigMap(t, r, "typed-later", "three")
	eventually(t, "a's OnError", func() bool { return errsA.Load() > na })
	if errsB.Load() != nb {
		t.Fatal("a released caller's OnError was called")
	}
}

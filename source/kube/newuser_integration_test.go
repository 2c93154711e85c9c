package kube

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestIntegrationUnstructuredBuiltins lists and watches
// *unstructured.Unstructured over a core, a grouped and a custom
// resource: list items (which the server sends without apiVersion and
// kind) get them from the list; it syncs through an informer.
func TestIntegrationUnstructuredBuiltins(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	createCRD(t, cfg, r, "thingamajigs", "thingamajig", "Thingamajig")
	ns := r.Namespace("unstructured")
	r.CreateConfigMaps(ns, "cm", 2, nil)
	deployment := func(name string) map[string]any {
		labels := map[string]any{"app": name}
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{"metadata": map[string]any{"labels": labels},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "example.com/c:1"}}}}}}
	}
	r.Must("POST", "/apis/apps/v1/namespaces/"+ns+"/deployments", deployment("d0"), nil)
	thing := func(name string) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Thingamajig", "metadata": map[string]any{"name": name}, "spec": map[string]any{"size": 1}}
	}
	r.Must("POST", "/apis/example.com/v1/namespaces/"+ns+"/thingamajigs", thing("t0"), nil)

	tests := []struct {
		res        kube.Resource
		apiVersion string
		kind       string
		create     func(name string)
	}{
		{kube.Resource{Version: "v1", Resource: "configmaps"}, "v1", "ConfigMap", func(name string) {
			r.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil)
		}},
		{kube.Resource{Group: "apps", Version: "v1", Resource: "deployments"}, "apps/v1", "Deployment", func(name string) {
			r.Must("POST", "/apis/apps/v1/namespaces/"+ns+"/deployments", deployment(name), nil)
		}},
		{kube.Resource{Group: "example.com", Version: "v1", Resource: "thingamajigs"}, "example.com/v1", "Thingamajig", func(name string) {
			r.Must("POST", "/apis/example.com/v1/namespaces/"+ns+"/thingamajigs", thing(name), nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.res.String(), func(t *testing.T) {
			src, err := New[*unstructured.Unstructured](cfg, tt.res, Options{Namespace: ns})
			if err != nil {
				t.Fatal(err)
			}
			page, err := src.List(t.Context(), informer.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) == 0 {
				t.Fatal("no items")
			}
			for _, u := range page.Items {
				if u.GetAPIVersion() != tt.apiVersion || u.GetKind() != tt.kind || u.GetName() == "" {
					t.Errorf("item %s: apiVersion %q kind %q", u.GetName(), u.GetAPIVersion(), u.GetKind())
				}
			}
			inf := informer.New[*unstructured.Unstructured](src, informer.Options[*unstructured.Unstructured]{Logger: quietLogger, Reflector: fastReflector})
			added := make(chan *unstructured.Unstructured, 100)
			reg, err := inf.AddHandler(informer.HandlerFuncs[*unstructured.Unstructured]{
				AddFunc: func(u *unstructured.Unstructured, initial bool) { added <- u },
			}, informer.HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
				t.Fatal(err)
			}
			tt.create("new")
			for {
				select {
				case u := <-added:
					if u.GetAPIVersion() != tt.apiVersion || u.GetKind() != tt.kind {
						t.Errorf("added %s: apiVersion %q kind %q", u.GetName(), u.GetAPIVersion(), u.GetKind())
					}
					if u.GetName() != "new" {
						continue
					}
				case <-ctx.Done():
					t.Fatal("the new object was not seen")
				}
				break
			}
		})
	}
}

// pod is a local Pod type, for the kind check.
type pod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
}

// TestIntegrationKindCheck: a T over a resource of another kind fails
// with a *KindError, JSON and protobuf; Resource.Kind and
// DisableKindCheck work as documented.
func TestIntegrationKindCheck(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("kind")
	r.CreateConfigMaps(ns, "cm", 1, nil)
	list := func(t *testing.T, err error) {
		t.Helper()
		var ke *kube.KindError
		if !errors.As(err, &ke) || !errors.Is(err, kube.ErrWrongKind) || ke.Got != "ConfigMapList" {
			t.Fatalf("error %v", err)
		}
		t.Log(err)
	}
	t.Run("JSON, Go type name", func(t *testing.T) {
		src, err := New[*pod](cfg, configMapsRes, Options{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.List(t.Context(), informer.ListOptions{})
		list(t, err)
	})
	t.Run("JSON, opt-out", func(t *testing.T) {
		src, err := New[*pod](cfg, configMapsRes, Options{Namespace: ns, DisableKindCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err = src.List(t.Context(), informer.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("protobuf, Resource.Kind", func(t *testing.T) {
		res := configMapsRes
		res.Kind = "Pod"
		src, err := New[*kubefixture.ProtoWidget](cfg, res, Options{Namespace: ns, ContentType: kube.ContentTypeProtobuf, Protobuf: kube.ProtobufFunc((*kubefixture.ProtoWidget).Unmarshal)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.List(t.Context(), informer.ListOptions{})
		list(t, err)
		res.Kind = "ConfigMap"
		src, err = New[*kubefixture.ProtoWidget](cfg, res, Options{Namespace: ns, ContentType: kube.ContentTypeProtobuf, Protobuf: kube.ProtobufFunc((*kubefixture.ProtoWidget).Unmarshal)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err = src.List(t.Context(), informer.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("watch", func(t *testing.T) {
		good, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		page, err := good.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		src, err := New[*pod](cfg, configMapsRes, Options{Namespace: ns})
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
		r.CreateConfigMaps(ns, "more", 1, nil)
		_, err = w.Next()
		if !errors.Is(err, kube.ErrWrongKind) || !errors.Is(err, informer.ErrBadEvent) {
			t.Fatalf("error %v", err)
		}
	})
	// Through an informer, with a streaming list (the default) and with
	// list + watch: it does not sync (no empty cache reported synced),
	// and says why.
	for _, mode := range []informer.WatchListMode{informer.WatchListAuto, informer.WatchListOff} {
		t.Run(fmt.Sprintf("informer, WatchList %v", mode), func(t *testing.T) {
			src, err := New[*pod](cfg, configMapsRes, Options{Namespace: ns})
			if err != nil {
				t.Fatal(err)
			}
			refl := fastReflector
			refl.WatchList = mode
			inf := informer.New[*pod](src, informer.Options[*pod]{Logger: quietLogger, Reflector: refl})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- inf.Run(ctx) }()
			defer func() { cancel(); <-done }()
			wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
			defer wcancel()
			if err := informer.WaitForCacheSync(wctx, inf); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, kube.ErrWrongKind) {
				t.Fatalf("WaitForCacheSync: %v (%d cached)", err, len(inf.Lister().List(nil)))
			}
			t.Log(inf.LastError())
		})
	}
}

// badSecret does not fit a Secret: its data values are not strings.
type badSecret struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]int `json:"data"`
}

// TestIntegrationNoLeak watches real Secrets into types that do not fit
// them, through lists (an informer, with its logs) and watches: the
// secret value appears in no error and no log record.
func TestIntegrationNoLeak(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ns := r.Namespace("leak")
	create := func(name string) {
		r.Must("POST", "/api/v1/namespaces/"+ns+"/secrets", map[string]any{"metadata": map[string]any{"name": name},
			"stringData": map[string]any{"token": secretText + secretNumber}}, nil)
	}
	create("s0")
	encoded := base64.StdEncoding.EncodeToString([]byte(secretText + secretNumber))
	checkText := func(t *testing.T, text string) {
		t.Helper()
		for _, s := range []string{secretText, secretNumber, encoded[:16]} {
			if strings.Contains(text, s) {
				t.Errorf("%q leaked: %s", s, text)
			}
		}
	}
	t.Run("list, informer", func(t *testing.T) {
		c := newLeakCatcher()
		src, err := New[*badSecret](cfg, secretsRes, Options{Namespace: ns, DisableKindCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		runUntilError(t, src, c)
		c.check(t)
		c.mu.Lock()
		checkText(t, strings.Join(c.errs, "\n")+c.logs.String())
		c.mu.Unlock()
	})
	t.Run("watch", func(t *testing.T) {
		good, err := New[*secret](cfg, secretsRes, Options{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		page, err := good.List(t.Context(), informer.ListOptions{})
		if err != nil || len(page.Items) != 1 || string(page.Items[0].Data["token"]) != secretText+secretNumber {
			t.Fatalf("%+v %v", page, err)
		}
		src, err := New[*badSecret](cfg, secretsRes, Options{Namespace: ns, DisableKindCheck: true})
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
		create("s1")
		_, err = w.Next()
		var oe *kube.ObjectError
		if !errors.As(err, &oe) || oe.Name != "s1" || oe.Namespace != ns {
			t.Fatalf("error %v", err)
		}
		c := newLeakCatcher()
		c.onError(err)
		checkText(t, strings.Join(c.errs, "\n"))
	})
	t.Run("unstructured", func(t *testing.T) {
		src, err := New[*unstructured.Unstructured](cfg, secretsRes, Options{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil || len(page.Items) == 0 || page.Items[0].GetKind() != "Secret" {
			t.Fatalf("%+v %v", page, err)
		}
	})
}

// TestIntegrationPermanentErrors: errors that retrying does not fix
// (until someone acts) are visible: malformed selectors fail New; a 404
// says whether the resource is cluster-scoped or not served; an informer's
// WaitForCacheSync returns the last source error with the context's.
func TestIntegrationPermanentErrors(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	for _, opts := range []Options{{LabelSelector: "a b c"}, {LabelSelector: "app in (x"}, {FieldSelector: "metadata.name"}} {
		if _, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, opts); !errors.Is(err, kube.ErrInvalidConfig) {
			t.Errorf("New with %+v: %v", opts, err)
		}
	}
	unprivileged := kubeConfigFor(t, env, "informer-test-unprivileged")
	wrongToken := *cfg
	wrongToken.BearerToken = "wrong"
	tests := []struct {
		name string
		cfg  *kube.Config
		res  kube.Resource
		ns   string
		is   []error
		msg  string
	}{
		{"cluster-scoped in a namespace", cfg, kube.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}, "default", []error{kube.ErrNotFound, ErrClusterScoped}, "is cluster-scoped"},
		{"cluster-scoped CRDs in a namespace", cfg, kube.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}, "default", []error{kube.ErrNotFound, ErrClusterScoped}, "is cluster-scoped"},
		{"unknown resource", cfg, kube.Resource{Version: "v1", Resource: "widgets"}, "", []error{kube.ErrNotFound, ErrResourceNotServed}, "not found on the server"},
		{"the singular", cfg, kube.Resource{Version: "v1", Resource: "pod"}, "", []error{kube.ErrNotFound, ErrResourceNotServed}, `did you mean "pods"?`},
		{"unknown group", cfg, kube.Resource{Group: "nope.example.com", Version: "v1", Resource: "widgets"}, "default", []error{kube.ErrNotFound, ErrResourceNotServed}, "not found on the server"},
		{"forbidden", unprivileged, configMapsRes, "default", []error{kube.ErrForbidden}, "forbidden"},
		{"unauthorized", &wrongToken, configMapsRes, "default", []error{kube.ErrUnauthorized}, "401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New[*unstructured.Unstructured](tt.cfg, tt.res, Options{Namespace: tt.ns})
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.List(t.Context(), informer.ListOptions{})
			for _, is := range tt.is {
				if !errors.Is(err, is) {
					t.Errorf("list: %v is not %v", err, is)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("list: %v does not say %q", err, tt.msg)
			}
			t.Log(err)
			_, err = src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
			if !errors.Is(err, tt.is[len(tt.is)-1]) {
				t.Errorf("watch: %v", err)
			}

			inf := informer.New[*unstructured.Unstructured](src, informer.Options[*unstructured.Unstructured]{Logger: quietLogger, Reflector: fastReflector})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- inf.Run(ctx) }()
			defer func() { cancel(); <-done }()
			wctx, wcancel := context.WithTimeout(ctx, time.Second)
			defer wcancel()
			err = informer.WaitForCacheSync(wctx, inf)
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, tt.is[len(tt.is)-1]) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("WaitForCacheSync: %v", err)
			}
			if !errors.Is(inf.LastError(), tt.is[len(tt.is)-1]) {
				t.Errorf("LastError: %v", inf.LastError())
			}
		})
	}
}

// TestIntegrationCRDAppearsLater: an informer over a resource whose CRD
// does not exist yet says why it has not synced, goes on retrying, and
// syncs once the CRD is created.
func TestIntegrationCRDAppearsLater(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	n := fmt.Sprintf("%d%d", time.Now().UnixNano()%1e6, kubefixture.NSCounter.Add(1)) // a new CRD each run
	res := kube.Resource{Group: "example.com", Version: "v1", Resource: "doodads" + n, Kind: "Doodad" + n}
	src, err := New[*unstructured.Unstructured](cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New[*unstructured.Unstructured](src, informer.Options[*unstructured.Unstructured]{Logger: quietLogger, Reflector: fastReflector})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	wctx, wcancel := context.WithTimeout(ctx, time.Second)
	defer wcancel()
	if err := inf.WaitForSync(wctx); !errors.Is(err, ErrResourceNotServed) || !strings.Contains(err.Error(), "not found on the server") {
		t.Fatalf("before the CRD: %v", err)
	}
	createCRD(t, cfg, r, "doodads"+n, "doodad"+n, "Doodad"+n)
	sctx, scancel := context.WithTimeout(ctx, time.Minute)
	defer scancel()
	if err := inf.WaitForSync(sctx); err != nil {
		t.Fatalf("after the CRD: %v", err)
	}
	if err := inf.LastError(); err != nil {
		t.Errorf("LastError after the sync: %v", err)
	}
}

// TestIntegrationRBACGrantedLater: an informer whose user may not list
// says so (403), keeps retrying, and syncs once a RoleBinding grants it.
func TestIntegrationRBACGrantedLater(t *testing.T) {
	env := needKube(t)
	admin := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, admin, admin.Host)
	ns := r.Namespace("rbac")
	src, err := New[*kubefixture.ConfigMap](kubeConfigFor(t, env, "informer-test-unprivileged"), configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{Logger: quietLogger, Reflector: fastReflector})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	wctx, wcancel := context.WithTimeout(ctx, time.Second)
	defer wcancel()
	if err := inf.WaitForSync(wctx); !errors.Is(err, kube.ErrForbidden) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("before the grant: %v", err)
	}
	r.Must("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/roles", map[string]any{
		"metadata": map[string]any{"name": "read-configmaps"},
		"rules":    []any{map[string]any{"apiGroups": []string{""}, "resources": []string{"configmaps"}, "verbs": []string{"list", "watch"}}},
	}, nil)
	r.Must("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings", map[string]any{
		"metadata": map[string]any{"name": "read-configmaps"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "read-configmaps"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "unprivileged"}},
	}, nil)
	sctx, scancel := context.WithTimeout(ctx, time.Minute)
	defer scancel()
	if err := inf.WaitForSync(sctx); err != nil {
		t.Fatalf("after the grant: %v", err)
	}
	if err := inf.LastError(); err != nil {
		t.Errorf("LastError after the sync: %v", err)
	}
}

package typed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// notFound is a 404 APIError with the Status the server sends.
func notFound(path, kind, name string) *kube.APIError {
	return &kube.APIError{Op: "create", Path: path, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Status: metav1.Status{Reason: metav1.StatusReasonNotFound, Code: 404, Details: &metav1.StatusDetails{Kind: kind, Name: name}}}
}

// A missing namespace and a missing object both match kube.ErrNotFound;
// only the namespace matches kube.ErrNamespaceNotFound, from the Status
// details' kind.
func TestNamespaceNotFound(t *testing.T) {
	tests := []struct {
		name          string
		err           *kube.APIError
		wantNamespace bool
		kind, missing string
	}{
		{"create in a missing namespace", notFound("/api/v1/namespaces/nope/configmaps", "namespaces", "nope"), true, "namespaces", "nope"},
		{"with a query", notFound("/api/v1/namespaces/nope/configmaps?fieldManager=x", "namespaces", "nope"), true, "namespaces", "nope"},
		{"a missing object", notFound("/api/v1/namespaces/ns/configmaps/a", "configmaps", "a"), false, "configmaps", "a"},
		{"a missing Namespace object itself", notFound("/api/v1/namespaces/nope", "namespaces", "nope"), false, "namespaces", "nope"},
		{"another namespace than the path's", notFound("/api/v1/namespaces/ns/configmaps", "namespaces", "other"), false, "namespaces", "other"},
		{"no Status details", &kube.APIError{Path: "/api/v1/namespaces/nope/configmaps", Code: 404}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error = fmt.Errorf("wrapped: %w", tt.err)
			if !errors.Is(err, kube.ErrNotFound) {
				t.Error("does not match ErrNotFound")
			}
			if got := errors.Is(err, kube.ErrNamespaceNotFound); got != tt.wantNamespace {
				t.Errorf("errors.Is(ErrNamespaceNotFound) = %v, want %v", got, tt.wantNamespace)
			}
			if kind, name := tt.err.NotFound(); kind != tt.kind || name != tt.missing {
				t.Errorf("NotFound() = %q, %q; want %q, %q", kind, name, tt.kind, tt.missing)
			}
		})
	}
	if kind, _ := (&kube.APIError{Code: 403, Status: metav1.Status{Details: &metav1.StatusDetails{Kind: "namespaces"}}}).NotFound(); kind != "" {
		t.Errorf("NotFound of a 403 = %q", kind)
	}
}

// Against kube-apiserver: a create in a missing namespace is
// ErrNamespaceNotFound, a get of a missing object in an existing one is
// ErrNotFound only.
func TestIntegrationNamespaceNotFound(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("notfound-%d", time.Now().UnixNano()%1e6)
	createNamespace(t, r, ns)
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Shutdown()
	c, err := typed.NewClient(f, configMaps, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cm := &ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns + "-missing", Name: "a"}}
	_, err = c.Create(ctx, cm, kube.WriteOptions{})
	if !errors.Is(err, kube.ErrNotFound) || !errors.Is(err, kube.ErrNamespaceNotFound) {
		t.Errorf("create in a missing namespace: %v; want ErrNotFound and ErrNamespaceNotFound", err)
	}
	_, err = c.Get(ctx, ns, "missing", kube.GetOptions{})
	if !errors.Is(err, kube.ErrNotFound) || errors.Is(err, kube.ErrNamespaceNotFound) {
		t.Errorf("get of a missing object: %v; want ErrNotFound, not ErrNamespaceNotFound", err)
	}
	var ae *kube.APIError
	if errors.As(err, &ae) {
		if kind, name := ae.NotFound(); kind != "configmaps" || name != "missing" {
			t.Errorf("NotFound() = %q, %q", kind, name)
		}
	}
}

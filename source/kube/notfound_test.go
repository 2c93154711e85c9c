package kube

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// TestExplainNotFound: a 404 is explained by the group/version's
// discovery document.
func TestExplainNotFound(t *testing.T) {
	discovery := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/apis/example.com/v1" {
				if body == "" {
					http.NotFound(w, r)
					return
				}
				serveJSON(200, body)(w, r)
				return
			}
			serveJSON(404, kubefixture.StatusJSON(404, "NotFound", "the server could not find the requested resource"))(w, r)
		}
	}
	tests := []struct {
		name      string
		body      string
		namespace string
		is        error
		msg       string
	}{
		{"cluster-scoped", `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[{"name":"widgets","namespaced":false,"kind":"Widget"}]}`, "ns", ErrClusterScoped, "is cluster-scoped"},
		{"not listed", `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[{"name":"gadgets","namespaced":true,"kind":"Gadget"}]}`, "ns", ErrResourceNotServed, `"widgets" is not found on the server`},
		{"no group", "", "", ErrResourceNotServed, "example.com/v1 is not found on the server"},
		{"the singular", `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[{"name":"widgetz","singularName":"widgets","namespaced":true,"kind":"Widget"}]}`, "ns", ErrResourceNotServed, `did you mean "widgetz"?`},
		{"another case", `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[{"name":"Widgets","singularName":"widgetx","namespaced":true,"kind":"Thing"}]}`, "ns", ErrResourceNotServed, `did you mean "Widgets"?`},
		{"the kind", `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[{"name":"things","singularName":"thing","namespaced":true,"kind":"Widgets"}]}`, "ns", ErrResourceNotServed, `did you mean "things"?`},
		{"namespaced and listed", `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[{"name":"widgets","namespaced":true,"kind":"Widget"}]}`, "ns", nil, ""},
		{"discovery is not JSON", `]`, "ns", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newTestSource(t, discovery(tt.body), Options{Namespace: tt.namespace})
			_, err := src.List(t.Context(), informer.ListOptions{})
			if !errors.Is(err, kube.ErrNotFound) {
				t.Fatalf("list: %v", err)
			}
			for _, e := range []error{ErrClusterScoped, ErrResourceNotServed} {
				if errors.Is(err, e) != (e == tt.is) {
					t.Errorf("%v: errors.Is %v = %v", err, e, !(e == tt.is))
				}
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%q does not say %q", err, tt.msg)
			}
		})
	}
}

// TestNewParsesSelectors: malformed selectors fail New with
// ErrInvalidConfig; valid ones pass.
func TestNewParsesSelectors(t *testing.T) {
	cfg := &kube.Config{Host: "https://127.0.0.1:1"}
	for _, tt := range []struct {
		opts Options
		ok   bool
	}{
		{Options{LabelSelector: "app=web,tier!=db"}, true},
		{Options{LabelSelector: "env in (a,b),!legacy"}, true},
		{Options{FieldSelector: "metadata.name=foo,status.phase!=Running"}, true},
		{Options{LabelSelector: "a b c"}, false},
		{Options{LabelSelector: "app in (x"}, false},
		{Options{LabelSelector: "=x"}, false},
		{Options{FieldSelector: "metadata.name"}, false},
	} {
		_, err := New[*kubefixture.Widget](cfg, widgetRes, tt.opts)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, kube.ErrInvalidConfig)) {
			t.Errorf("%+v: %v", tt.opts, err)
		}
	}
}

// TestExplainNotFoundCachesDiscovery: repeated 404s (the reflector's
// retries) cost one discovery request per discoveryTTL, not one each.
func TestExplainNotFoundCachesDiscovery(t *testing.T) {
	var discoveries atomic.Int32
	h := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apis/example.com/v1" {
			discoveries.Add(1)
			serveJSON(200, `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[]}`)(w, r)
			return
		}
		serveJSON(404, kubefixture.StatusJSON(404, "NotFound", "the server could not find the requested resource"))(w, r)
	}
	src, _ := newTestSource(t, http.HandlerFunc(h), Options{})
	for range 5 {
		if _, err := src.List(t.Context(), informer.ListOptions{}); !errors.Is(err, ErrResourceNotServed) {
			t.Fatalf("list: %v", err)
		}
	}
	if n := discoveries.Load(); n != 1 {
		t.Errorf("%d discovery requests for 5 lists, want 1", n)
	}
}

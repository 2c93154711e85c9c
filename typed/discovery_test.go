package typed_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
)

// discoveryServer serves legacy or aggregated discovery documents; a
// group version whose document is "503" answers 503.
func discoveryServer(t *testing.T, docs map[string]string, aggregated bool) *typed.Discovery {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		switch {
		case !ok:
			http.NotFound(w, r)
		case doc == "503":
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		default:
			if aggregated && strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList") {
				w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
			io.WriteString(w, doc)
		}
	}))
	t.Cleanup(srv.Close)
	d, err := typed.NewDiscovery(&kube.Config{Host: srv.URL}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var legacyDocs = map[string]string{
	"/api":                         `{"kind":"APIVersions","versions":["v1"]}`,
	"/api/v1":                      `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["list","watch"],"shortNames":["cm"]},{"name":"pods/log","namespaced":true,"kind":"Pod","verbs":["get"]},{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["list"],"shortNames":["ev"]}]}`,
	"/apis":                        `{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},{"name":"metrics.k8s.io","versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}},{"name":"events.k8s.io","versions":[{"groupVersion":"events.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"events.k8s.io/v1","version":"v1"}}]}`,
	"/apis/apps/v1":                `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["list","watch"],"shortNames":["deploy"]}]}`,
	"/apis/metrics.k8s.io/v1beta1": "503",
	"/apis/events.k8s.io/v1":       `{"kind":"APIResourceList","groupVersion":"events.k8s.io/v1","resources":[{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["list"]}]}`,
}

var aggregatedDocs = map[string]string{
	"/api":  `{"kind":"APIGroupDiscoveryList","items":[{"metadata":{},"versions":[{"version":"v1","resources":[{"resource":"configmaps","responseKind":{"kind":"ConfigMap"},"scope":"Namespaced","singularResource":"configmap","shortNames":["cm"],"verbs":["list"]},{"resource":"nodes","responseKind":{"kind":"Node"},"scope":"Cluster","singularResource":"node","shortNames":["no"]}]}]}]}`,
	"/apis": `{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","shortNames":["deploy"]}]}]},{"metadata":{"name":"metrics.k8s.io"},"versions":[{"version":"v1beta1","freshness":"Stale","resources":[]}]}]}`,
}

type resolveCase struct {
	name, want string
	err        error
}

func TestDiscoveryResolve(t *testing.T) {
	for _, mode := range []struct {
		name       string
		docs       map[string]string
		aggregated bool
	}{{"legacy", legacyDocs, false}, {"aggregated", aggregatedDocs, true}} {
		t.Run(mode.name, func(t *testing.T) {
			d := discoveryServer(t, mode.docs, mode.aggregated)
			tests := []resolveCase{
				{"cm", "configmaps/v1", nil},
				{"ConfigMap", "configmaps/v1", nil},
				{"CONFIGMAPS", "configmaps/v1", nil},
				{"deploy", "deployments.apps/v1", nil},
				{"deployment.apps", "deployments.apps/v1", nil},
				{"deploy.extensions", "", typed.ErrNotFound},
				{"cofnigmaps", "", typed.ErrNotFound},
			}
			if !mode.aggregated {
				tests = append(tests,
					resolveCase{"events", "events/v1", nil}, // the core group wins
					resolveCase{"events.events.k8s.io", "events.events.k8s.io/v1", nil},
					resolveCase{"log", "", typed.ErrNotFound}, // subresources are not resources
				)
			}
			for _, tt := range tests {
				r, err := d.Resolve(t.Context(), tt.name)
				if tt.err != nil {
					if !errors.Is(err, tt.err) {
						t.Errorf("Resolve(%q) = %v, %v; want %v", tt.name, r, err, tt.err)
					}
					// The group that failed may have had it: say so.
					var ge *typed.GroupError
					if !errors.As(err, &ge) || !strings.Contains(ge.GroupVersion, "metrics.k8s.io") {
						t.Errorf("Resolve(%q): %v does not report the failed group", tt.name, err)
					}
					continue
				}
				if err != nil || r.Dynamic().String() != tt.want {
					t.Errorf("Resolve(%q) = %s, %v; want %s", tt.name, r.Dynamic(), err, tt.want)
				}
			}
			rs, err := d.Resources(t.Context())
			var ge *typed.GroupError
			if len(rs) == 0 || !errors.As(err, &ge) {
				t.Errorf("Resources: %d resources, err %v: want the others and a *GroupError", len(rs), err)
			}
		})
	}
}

func TestDiscoveryServerDown(t *testing.T) {
	d := discoveryServer(t, map[string]string{"/api": "503"}, false)
	if _, err := d.Resolve(t.Context(), "cm"); err == nil || errors.Is(err, typed.ErrNotFound) || !strings.Contains(err.Error(), "503") {
		t.Errorf("Resolve with /api down: %v", err)
	}
}

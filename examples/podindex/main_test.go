package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

func TestPodIndex(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("podindex-%d", time.Now().UnixNano()%1e6)
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
	for _, p := range []struct{ name, node string }{{"a", "node-1"}, {"b", "node-2"}, {"c", "node-1"}, {"d", ""}} {
		spec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "example.com/c:1"}}}
		if p.node != "" {
			spec["nodeName"] = p.node // no scheduler here: placed by hand
		}
		r.Must("POST", "/api/v1/namespaces/"+ns+"/pods", map[string]any{"metadata": map[string]any{"name": p.name}, "spec": spec})
	}
	var out strings.Builder
	if err := run(t.Context(), cfg, ns, nil, &out); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("(unscheduled): 1 pods [%[1]s/d]\nnode-1: 2 pods [%[1]s/a %[1]s/c]\nnode-2: 1 pods [%[1]s/b]\n", ns)
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := run(t.Context(), cfg, ns, []string{"node-2", "node-3"}, &out); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("node-2: 1 pods [%s/b]\nnode-3: 0 pods []\n", ns); out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	// A namespace without pods says so rather than print nothing.
	empty := ns + "-empty"
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": empty}})
	out.Reset()
	if err := run(t.Context(), cfg, empty, nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "no pods\n" {
		t.Errorf("output for a namespace without pods: %q", out.String())
	}
}

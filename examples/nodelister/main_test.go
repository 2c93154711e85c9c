package main

import (
	"os"
	"strings"
	"testing"

	"github.com/informer-go/informer/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

func TestNodeLister(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	for _, n := range []struct{ name, role, zone string }{
		{"worker-a", "worker", "z1"}, {"worker-b", "worker", "z2"}, {"worker-c", "worker", "z1"}, {"control", "control-plane", "z1"},
	} {
		r.Must("POST", "/api/v1/nodes", map[string]any{"metadata": map[string]any{"name": n.name, "labels": map[string]string{
			"node-role.kubernetes.io/" + n.role: "", "topology.kubernetes.io/zone": n.zone,
		}}})
	}
	var out strings.Builder
	if err := run(t.Context(), cfg, "node-role.kubernetes.io/worker", "topology.kubernetes.io/zone", &out); err != nil {
		t.Fatal(err)
	}
	want := `topology.kubernetes.io/zone="z1": [worker-a worker-c]
topology.kubernetes.io/zone="z2": [worker-b]
3 nodes match "node-role.kubernetes.io/worker"
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if err := run(t.Context(), cfg, "a in (", "x", &out); err == nil {
		t.Error("a malformed selector was accepted")
	}
}

package kube

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crd is the part of a CustomResourceDefinition the test reads.
type crd struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Status            struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

// established reports whether the CRD serves its resource.
func (c *crd) established() bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == "Established" && cond.Status == "True" {
			return true
		}
	}
	return false
}

// gadget is an object of the test's CRD, as a local struct.
type gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Size  int    `json:"size"`
		Color string `json:"color"`
	} `json:"spec"`
}

var gadgetsRes = kube.Resource{Group: "example.com", Version: "v1", Resource: "gadgets"}

// createGadgetCRD creates the gadgets CRD and waits, by watching it
// through a Source, until it is Established.
func createGadgetCRD(t *testing.T, cfg *kube.Config, r *kubefixture.REST) {
	t.Helper()
	createCRD(t, cfg, r, "gadgets", "gadget", "Gadget")
}

// createCRD creates a CRD of group example.com, version v1, whose objects
// have a spec of size and color, and waits, by watching it through a
// Source, until it is Established.
func createCRD(t *testing.T, cfg *kube.Config, r *kubefixture.REST, plural, singular, kind string) {
	t.Helper()
	def := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + ".example.com"},
		"spec": map[string]any{
			"group": "example.com",
			"names": map[string]any{"plural": plural, "singular": singular, "kind": kind, "listKind": kind + "List"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{"spec": map[string]any{
						"type":       "object",
						"properties": map[string]any{"size": map[string]any{"type": "integer"}, "color": map[string]any{"type": "string"}},
					}},
				}},
			}},
		},
	}
	// Already there (a test run with -count above 1) is fine.
	if code, err := r.Do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", def, nil); err != nil && code != http.StatusConflict {
		t.Fatal(err)
	}
	crds, err := New[*crd](cfg, kube.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"},
		Options{FieldSelector: "metadata.name=" + plural + ".example.com"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := crds.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) == 1 && page.Items[0].established() {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := crds.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the CRD to be established: %v", err)
		}
		if ev.Object != nil && ev.Object.established() {
			return
		}
	}
}

// TestIntegrationCRD creates a CRD, then lists and watches its objects
// into a local struct type, directly and through an informer.
func TestIntegrationCRD(t *testing.T) {
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	createGadgetCRD(t, cfg, r)
	ns := r.Namespace("crd")
	path := "/apis/example.com/v1/namespaces/" + ns + "/gadgets"
	newGadget := func(name string, size int) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"size": size, "color": "teal"}}
	}
	for i := range 3 {
		r.Must("POST", path, newGadget("g"+string(rune('a'+i)), i), nil)
	}
	src, err := New[*gadget](cfg, gadgetsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 || page.Items[2].Spec.Size != 2 || page.Items[0].Kind != "Gadget" || page.Items[0].Spec.Color != "teal" {
		t.Fatalf("items %+v", page.Items)
	}

	inf := informer.New[*gadget](src, informer.Options[*gadget]{Logger: quietLogger, Reflector: fastReflector})
	changes := make(chan string, 100)
	if _, err := inf.AddHandler(informer.HandlerFuncs[*gadget]{
		AddFunc:    func(g *gadget, initial bool) { changes <- "add " + g.Name },
		UpdateFunc: func(old, g *gadget) { changes <- "update " + g.Name },
		DeleteFunc: func(d informer.Deleted[*gadget]) { changes <- "delete " + d.Object.Name },
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Must("POST", path, newGadget("gz", 9), nil)
	ev, err := w.Next()
	if err != nil || ev.Type != informer.EventAdded || ev.Object.Name != "gz" || ev.Object.Spec.Size != 9 {
		t.Fatalf("event %+v, %v", ev, err)
	}
	r.Must("DELETE", path+"/ga", nil, nil)
	ev, err = w.Next()
	if err != nil || ev.Type != informer.EventDeleted || ev.Object.Name != "ga" {
		t.Fatalf("event %+v, %v", ev, err)
	}
	want := map[string]bool{"add ga": true, "add gb": true, "add gc": true, "add gz": true, "delete ga": true}
	deadline := time.After(30 * time.Second)
	for len(want) > 0 {
		select {
		case c := <-changes:
			delete(want, c)
		case <-deadline:
			t.Fatalf("informer: still waiting for %v", want)
		}
	}
}

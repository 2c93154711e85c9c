package kube

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// TestIntegrationClientPatch patches a ConfigMap with each patch type.
func TestIntegrationClientPatch(t *testing.T) {
	c, r := newTestClient(t)
	ctx := t.Context()
	ns := r.Namespace("client-patch")
	cm, err := c.Create(ctx, &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns}, Data: map[string]string{"a": "1", "b": "2"}}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := c.Patch(ctx, ns, "p", types.MergePatchType, []byte(`{"data":{"a":"10","b":null}}`), PatchOptions{})
	if err != nil || merged.Data["a"] != "10" || len(merged.Data) != 1 {
		t.Fatalf("merge patch: %v, %v", merged, err)
	}
	strategic, err := c.Patch(ctx, ns, "p", types.StrategicMergePatchType, []byte(`{"data":{"c":"3"}}`), PatchOptions{})
	if err != nil || strategic.Data["c"] != "3" || strategic.Data["a"] != "10" {
		t.Fatalf("strategic merge patch: %v, %v", strategic, err)
	}
	ops := fmt.Sprintf(`[{"op":"test","path":"/metadata/resourceVersion","value":%q},{"op":"replace","path":"/data/a","value":"11"}]`, strategic.ResourceVersion)
	jp, err := c.Patch(ctx, ns, "p", types.JSONPatchType, []byte(ops), PatchOptions{})
	if err != nil || jp.Data["a"] != "11" {
		t.Fatalf("JSON patch: %v, %v", jp, err)
	}
	// The same JSON patch again: its test fails, as the version moved.
	if _, err := c.Patch(ctx, ns, "p", types.JSONPatchType, []byte(ops), PatchOptions{}); err == nil {
		t.Error("a JSON patch whose test fails succeeded")
	} else {
		t.Logf("stale JSON patch: %v", err)
	}
	dry, err := c.Patch(ctx, ns, "p", types.MergePatchType, []byte(`{"data":{"a":"dry"}}`), PatchOptions{DryRun: true})
	if err != nil || dry.Data["a"] != "dry" {
		t.Fatalf("dry-run patch: %v, %v", dry, err)
	}
	if now, _ := c.Get(ctx, ns, "p", GetOptions{}); now.Data["a"] != "11" {
		t.Errorf("a dry-run patch was stored: %v", now.Data)
	}
	if _, err := c.Patch(ctx, ns, "missing", types.MergePatchType, []byte(`{}`), PatchOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("patch of a missing object: %v, want ErrNotFound", err)
	}
	if _, err := c.Patch(ctx, ns, "p", "application/xml", []byte(`{}`), PatchOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown patch type: %v, want ErrInvalidArgument", err)
	}
	_ = cm
}

// TestIntegrationClientApply applies ConfigMaps as two field managers,
// typed and dynamic.
func TestIntegrationClientApply(t *testing.T) {
	c, r := newTestClient(t)
	ctx := t.Context()
	ns := r.Namespace("client-apply")
	cfg := kubeConfigFor(t, needKube(t), "informer-test")
	dyn, err := NewClient[*unstructured.Unstructured](cfg, Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	config := func(value string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "ap", "namespace": ns},
			"data":     map[string]any{"owned": value},
		}}
	}
	if _, err := dyn.Apply(ctx, config("x"), PatchOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Apply without a field manager: %v, want ErrInvalidArgument", err)
	}
	// Apply creates.
	first, err := dyn.Apply(ctx, config("a"), PatchOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(first.Object, "data", "owned"); v != "a" || first.GetResourceVersion() == "" {
		t.Fatalf("Apply: %v", first.Object)
	}
	// Bob's apply of Alice's field conflicts, unless forced.
	_, err = dyn.Apply(ctx, config("b"), PatchOptions{FieldManager: "bob"})
	var ae *APIError
	if !errors.Is(err, ErrConflict) || !errors.As(err, &ae) || ae.Op != "apply" || ae.Object != ns+"/ap" {
		t.Fatalf("conflicting Apply: %v, want ErrConflict naming the object", err)
	}
	if _, err := dyn.Apply(ctx, config("dry"), PatchOptions{FieldManager: "bob", Force: true, DryRun: true}); err != nil {
		t.Fatalf("dry-run forced Apply: %v", err)
	}
	forced, err := dyn.Apply(ctx, config("b"), PatchOptions{FieldManager: "bob", Force: true})
	if v, _, _ := unstructured.NestedString(forced.Object, "data", "owned"); err != nil || v != "b" {
		t.Fatalf("forced Apply: %v, %v", forced, err)
	}

	// Typed, with the Client's default manager ("client-test") and no
	// apiVersion or kind in the object: the Client gives them.
	typedCM, err := c.Apply(ctx, &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ap", Namespace: ns}, Data: map[string]string{"mine": "1", "owned": "b"}}, PatchOptions{})
	if err != nil || typedCM.Data["mine"] != "1" {
		t.Fatalf("typed Apply: %+v, %v", typedCM, err)
	}
	managers := map[string]bool{}
	for _, m := range typedCM.ManagedFields {
		managers[m.Manager] = true
	}
	if !managers["bob"] || !managers["client-test"] || managers["alice"] {
		t.Errorf("managers %v, want bob and client-test (alice lost her only field)", managers)
	}
	// Patch with ApplyPatchType is Apply.
	raw, err := c.Patch(ctx, ns, "ap", types.ApplyPatchType, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"},"data":{"mine":"2","owned":"b"}}`), PatchOptions{})
	if err != nil || raw.Data["mine"] != "2" {
		t.Fatalf("Patch with ApplyPatchType: %+v, %v", raw, err)
	}
}

// TestIntegrationClientList pages through a collection, filters it and
// deletes part of it.
func TestIntegrationClientList(t *testing.T) {
	c, r := newTestClient(t)
	ctx := t.Context()
	ns := r.Namespace("client-list")
	for i := range 7 {
		labels := map[string]string{"parity": strconv.Itoa(i % 2)}
		if _, err := c.Create(ctx, &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("l-%d", i), Namespace: ns, Labels: labels}}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := c.List(ctx, ns, ListOptions{Limit: 3})
	if err != nil || len(page.Items) != 3 || page.Continue == "" || page.ResourceVersion == "" {
		t.Fatalf("first page: %d items, continue %q, %v", len(page.Items), page.Continue, err)
	}
	page2, err := c.List(ctx, ns, ListOptions{Limit: 3, Continue: page.Continue})
	if err != nil || len(page2.Items) != 3 || page2.Items[0].Name != "l-3" {
		t.Fatalf("second page: %v, %v", page2.Items, err)
	}
	var names []string
	for cm, err := range c.All(ctx, ns, ListOptions{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, cm.Name)
	}
	if len(names) != 7 {
		t.Errorf("All: %v", names)
	}
	odd, err := c.List(ctx, ns, ListOptions{LabelSelector: "parity=1", ResourceVersion: "0"})
	if err != nil || len(odd.Items) != 3 {
		t.Errorf("selected list: %d items, %v", len(odd.Items), err)
	}
	if _, err := c.List(ctx, ns, ListOptions{LabelSelector: "a b"}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("malformed selector: %v, want ErrInvalidArgument", err)
	}
	if err := c.DeleteCollection(ctx, ns, ListOptions{LabelSelector: "parity=1"}, DeleteOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteCollection(ctx, ns, ListOptions{LabelSelector: "parity=1"}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	left, err := c.List(ctx, ns, ListOptions{})
	if err != nil || len(left.Items) != 4 {
		t.Errorf("after DeleteCollection of parity=1: %d left, %v; want 4", len(left.Items), err)
	}
}

// TestIntegrationClientMetadata reads, patches and deletes ConfigMaps as
// metadata only, in protobuf and in JSON.
func TestIntegrationClientMetadata(t *testing.T) {
	c, r := newTestClient(t)
	ctx := t.Context()
	ns := r.Namespace("client-meta")
	cfg := kubeConfigFor(t, needKube(t), "informer-test")
	if _, err := c.Create(ctx, &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: ns}, Data: map[string]string{"big": "data"}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts ClientOptions
	}{
		{"protobuf", ClientOptions{Protobuf: Protobuf[*metav1.PartialObjectMetadata]()}},
		{"json", ClientOptions{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewClient[*metav1.PartialObjectMetadata](cfg, configMapsRes, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Get(ctx, ns, "m", GetOptions{})
			if err != nil || got.Name != "m" || got.Kind != "PartialObjectMetadata" {
				t.Fatalf("Get: %+v, %v", got, err)
			}
			page, err := m.List(ctx, ns, ListOptions{})
			if err != nil || len(page.Items) != 1 {
				t.Fatalf("List: %v, %v", page.Items, err)
			}
			patched, err := m.Patch(ctx, ns, "m", types.MergePatchType, []byte(`{"metadata":{"labels":{"via":"`+tt.name+`"}}}`), PatchOptions{})
			if err != nil || patched.Labels["via"] != tt.name || patched.Kind != "PartialObjectMetadata" {
				t.Fatalf("Patch: %+v, %v", patched, err)
			}
		})
	}
	m, _ := NewClient[*metav1.PartialObjectMetadata](cfg, configMapsRes, ClientOptions{})
	if _, err := m.Delete(ctx, ns, "m", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, ns, "m", GetOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("after a metadata Delete: %v", err)
	}
}

// TestIntegrationClientConcurrentWriters has 8 writers increment one
// counter 10 times each with RetryOnConflict: every increment that
// returned nil is in the counter, and every other failed with
// ErrConflict after its retries; nothing is lost or counted twice.
func TestIntegrationClientConcurrentWriters(t *testing.T) {
	c, r := newTestClient(t)
	ctx := t.Context()
	ns := r.Namespace("client-conflict")
	if _, err := c.Create(ctx, &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: ns}, Data: map[string]string{"n": "0"}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var (
		mu                  sync.Mutex
		done, gaveUp, tries int
		wg                  sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for range 10 {
				err := RetryOnConflict(ctx, func(ctx context.Context) error {
					mu.Lock()
					tries++
					mu.Unlock()
					cm, err := c.Get(ctx, ns, "n", GetOptions{})
					if err != nil {
						return err
					}
					n, _ := strconv.Atoi(cm.Data["n"])
					cm.Data["n"] = strconv.Itoa(n + 1)
					_, err = c.Update(ctx, cm, WriteOptions{})
					return err
				})
				mu.Lock()
				switch {
				case err == nil:
					done++
				case errors.Is(err, ErrConflict):
					gaveUp++
				default:
					t.Errorf("increment: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	cm, err := c.Get(ctx, ns, "n", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(cm.Data["n"]); n != done || done+gaveUp != 80 {
		t.Errorf("counter %d, %d increments succeeded, %d gave up after conflicts", n, done, gaveUp)
	}
	t.Logf("%d increments in %d attempts (%d gave up)", done, tries, gaveUp)
}

// dial is an object of the test's CRD with status and scale
// subresources.
type dial struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Replicas int32  `json:"replicas"`
		Label    string `json:"label,omitempty"`
	} `json:"spec"`
	Status struct {
		Replicas int32  `json:"replicas"`
		Selector string `json:"selector,omitempty"`
	} `json:"status"`
}

// TestIntegrationClientSubresources writes the status and scale of a
// custom resource.
func TestIntegrationClientSubresources(t *testing.T) {
	_, r := newTestClient(t)
	ctx := t.Context()
	cfg := kubeConfigFor(t, needKube(t), "informer-test")
	createDialCRD(t, cfg)
	ns := r.Namespace("client-sub")
	c, err := NewClient[*dial](cfg, Resource{Group: "example.com", Version: "v1", Resource: "dials", Kind: "Dial"}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := &dial{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: ns}}
	d.Spec.Replicas, d.Status.Replicas = 2, 99
	created, err := c.Create(ctx, d, WriteOptions{})
	if err != nil || created.Spec.Replicas != 2 || created.Status.Replicas != 0 {
		t.Fatalf("Create (the status is not written): %+v, %v", created, err)
	}
	created.Status.Replicas, created.Status.Selector, created.Spec.Replicas = 2, "app=d", 5
	st, err := c.UpdateStatus(ctx, created, WriteOptions{})
	if err != nil || st.Status.Replicas != 2 || st.Spec.Replicas != 2 {
		t.Fatalf("UpdateStatus (the spec is not written): %+v, %v", st, err)
	}
	if _, err := c.UpdateStatus(ctx, created, WriteOptions{}); !errors.Is(err, ErrConflict) {
		t.Errorf("stale UpdateStatus: %v, want ErrConflict", err)
	}
	if p, err := c.Patch(ctx, ns, "d", types.MergePatchType, []byte(`{"status":{"replicas":3}}`), PatchOptions{Subresource: "status"}); err != nil || p.Status.Replicas != 3 {
		t.Errorf("status patch: %+v, %v", p, err)
	}
	if g, err := c.Get(ctx, ns, "d", GetOptions{Subresource: "status"}); err != nil || g.Status.Replicas != 3 {
		t.Errorf("status Get: %+v, %v", g, err)
	}

	scale, err := c.GetScale(ctx, ns, "d", GetOptions{})
	if err != nil || scale.Spec.Replicas != 2 || scale.Status.Replicas != 3 || scale.Kind != "Scale" {
		t.Fatalf("GetScale: %+v, %v", scale, err)
	}
	scale.Spec.Replicas = 4
	scaled, err := c.UpdateScale(ctx, scale, WriteOptions{})
	if err != nil || scaled.Spec.Replicas != 4 {
		t.Fatalf("UpdateScale: %+v, %v", scaled, err)
	}
	if _, err := c.UpdateScale(ctx, scale, WriteOptions{}); !errors.Is(err, ErrConflict) {
		t.Errorf("stale UpdateScale: %v, want ErrConflict", err)
	}
	if p, err := c.PatchScale(ctx, ns, "d", types.MergePatchType, []byte(`{"spec":{"replicas":6}}`), PatchOptions{}); err != nil || p.Spec.Replicas != 6 {
		t.Errorf("PatchScale: %+v, %v", p, err)
	}
	if g, _ := c.Get(ctx, ns, "d", GetOptions{}); g.Spec.Replicas != 6 {
		t.Errorf("after the scale writes, spec.replicas is %d, want 6", g.Spec.Replicas)
	}
	// Strategic merge is for built-in types only.
	if _, err := c.Patch(ctx, ns, "d", types.StrategicMergePatchType, []byte(`{"spec":{"label":"x"}}`), PatchOptions{}); err == nil {
		t.Error("a strategic merge patch of a custom resource succeeded")
	} else {
		t.Logf("strategic merge patch of a custom resource: %v", err)
	}
}

// createDialCRD applies the dials CRD (with status and scale
// subresources) through a dynamic Client, and waits until it is
// Established.
func createDialCRD(t *testing.T, cfg *Config) {
	t.Helper()
	crds, err := NewClient[*unstructured.Unstructured](cfg, Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}, ClientOptions{FieldManager: "client-test"})
	if err != nil {
		t.Fatal(err)
	}
	intType := map[string]any{"type": "integer"}
	strType := map[string]any{"type": "string"}
	def := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "dials.example.com"},
		"spec": map[string]any{
			"group": "example.com",
			"names": map[string]any{"plural": "dials", "singular": "dial", "kind": "Dial", "listKind": "DialList"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{
					"status": map[string]any{},
					"scale":  map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"},
				},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec":   map[string]any{"type": "object", "properties": map[string]any{"replicas": intType, "label": strType}},
						"status": map[string]any{"type": "object", "properties": map[string]any{"replicas": intType, "selector": strType}},
					},
				}},
			}},
		},
	}}
	if _, err := crds.Apply(t.Context(), def, PatchOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := crds.Get(t.Context(), "", "dials.example.com", GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the dials CRD is not Established after 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

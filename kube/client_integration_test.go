package kube

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// newTestClient returns a Client of ConfigMaps of the test server.
func newTestClient(t *testing.T) (*Client[*kubefixture.ConfigMap], *kubefixture.REST) {
	t.Helper()
	env := needKube(t)
	cfg := kubeConfigFor(t, env, "informer-test")
	c, err := NewClient[*kubefixture.ConfigMap](cfg, configMapsRes, ClientOptions{FieldManager: "client-test", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, kubefixture.NewREST(t, cfg, cfg.Host)
}

// TestIntegrationClientCRUD creates, reads, updates and deletes a
// ConfigMap, and checks each error a program branches on.
func TestIntegrationClientCRUD(t *testing.T) {
	c, r := newTestClient(t)
	ctx := t.Context()
	ns := r.Namespace("client-crud")

	cm := &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}, Data: map[string]string{"k": "v1"}}
	created, err := c.Create(ctx, cm, WriteOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.Kind != "ConfigMap" || created.Data["k"] != "v1" {
		t.Fatalf("Create returned %+v", created)
	}
	if _, err := c.Create(ctx, cm, WriteOptions{}); !errors.Is(err, ErrAlreadyExists) || errors.Is(err, ErrConflict) {
		t.Errorf("second Create: %v, want ErrAlreadyExists", err)
	} else if !strings.Contains(err.Error(), ns+"/a") {
		t.Errorf("the error does not name the object: %v", err)
	}

	got, err := c.Get(ctx, ns, "a", GetOptions{})
	if err != nil || got.ResourceVersion != created.ResourceVersion || got.Data["k"] != "v1" {
		t.Fatalf("Get: %+v, %v", got, err)
	}
	if _, err := c.Get(ctx, ns, "missing", GetOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get missing: %v, want ErrNotFound", err)
	}
	if _, err := c.Get(ctx, ns, "", GetOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Get without a name: %v, want ErrInvalidArgument", err)
	}

	got.Data["k"] = "v2"
	updated, err := c.Update(ctx, got, WriteOptions{})
	if err != nil || updated.Data["k"] != "v2" || updated.ResourceVersion == created.ResourceVersion {
		t.Fatalf("Update: %+v, %v", updated, err)
	}
	// The object read before the update is stale now.
	created.Data["k"] = "stale"
	_, err = c.Update(ctx, created, WriteOptions{})
	var ae *APIError
	if !errors.Is(err, ErrConflict) || !errors.As(err, &ae) || ae.Code != 409 || ae.Object != ns+"/a" || ae.Op != "update" {
		t.Errorf("stale Update: %v, want a 409 ErrConflict naming %s/a", err, ns)
	}
	if strings.Contains(err.Error(), "stale") {
		t.Errorf("the error quotes the object: %v", err)
	}

	// DryRun: checked and answered, not stored.
	updated.Data["k"] = "dry"
	dry, err := c.Update(ctx, updated, WriteOptions{DryRun: true})
	if err != nil || dry.Data["k"] != "dry" {
		t.Fatalf("dry-run Update: %+v, %v", dry, err)
	}
	if now, _ := c.Get(ctx, ns, "a", GetOptions{}); now.Data["k"] != "v2" {
		t.Errorf("a dry-run Update was stored: %v", now.Data)
	}
	if _, err := c.Create(ctx, &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry", Namespace: ns}}, WriteOptions{DryRun: true}); err != nil {
		t.Errorf("dry-run Create: %v", err)
	}
	if _, err := c.Get(ctx, ns, "dry", GetOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a dry-run Create was stored: %v", err)
	}

	// Delete: preconditions, dry run, then for real, then again.
	if _, err := c.Delete(ctx, ns, "a", DeleteOptions{UID: types.UID("not-its-uid")}); !errors.Is(err, ErrConflict) {
		t.Errorf("Delete with another UID: %v, want ErrConflict", err)
	}
	if _, err := c.Delete(ctx, ns, "a", DeleteOptions{ResourceVersion: created.ResourceVersion}); !errors.Is(err, ErrConflict) {
		t.Errorf("Delete with an old resourceVersion: %v, want ErrConflict", err)
	}
	if _, err := c.Delete(ctx, ns, "a", DeleteOptions{DryRun: true, UID: updated.UID}); err != nil {
		t.Errorf("dry-run Delete: %v", err)
	}
	if _, err := c.Get(ctx, ns, "a", GetOptions{}); err != nil {
		t.Errorf("a dry-run Delete deleted: %v", err)
	}
	zero := 0 * time.Second
	gone, err := c.Delete(ctx, ns, "a", DeleteOptions{UID: updated.UID, ResourceVersion: updated.ResourceVersion, PropagationPolicy: metav1.DeletePropagationBackground, GracePeriod: &zero})
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}
	t.Logf("Delete answered %v", gone)

	// Foreground: the object stays, with a finalizer, until the garbage
	// collector (not running here) has deleted what it owns; Delete
	// returns it as it then is.
	if _, err := c.Create(ctx, &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fg", Namespace: ns}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fg, err := c.Delete(ctx, ns, "fg", DeleteOptions{PropagationPolicy: metav1.DeletePropagationForeground})
	if err != nil || fg == nil || fg.DeletionTimestamp == nil || !slices.Contains(fg.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Errorf("Delete in the foreground: %+v, %v; want the object with its deletionTimestamp and finalizer", fg, err)
	}
	_, err = c.Delete(ctx, ns, "a", DeleteOptions{})
	if !errors.Is(err, ErrNotFound) || IgnoreNotFound(err) != nil {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
}

// TestIntegrationClientInvalid checks that a 422 is an ErrInvalid with
// the server's causes, whose text names the fields and not the values.
func TestIntegrationClientInvalid(t *testing.T) {
	c, r := newTestClient(t)
	ns := r.Namespace("client-invalid")
	bad := &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns, Labels: map[string]string{"ok": "secret value!"}}}
	_, err := c.Create(t.Context(), bad, WriteOptions{})
	var ae *APIError
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &ae) || ae.Code != 422 {
		t.Fatalf("Create: %v, want a 422 ErrInvalid", err)
	}
	causes := ae.Causes()
	if len(causes) == 0 || causes[0].Field != "metadata.labels" {
		t.Errorf("causes %+v, want metadata.labels", causes)
	}
	if msg := err.Error(); strings.Contains(msg, "secret value") || !strings.Contains(msg, "metadata.labels") || !strings.Contains(msg, `ConfigMap "b" is invalid`) {
		t.Errorf("error text %q: want the field and the object, not the value", msg)
	}
}

// TestIntegrationClientForbidden writes with credentials that may not.
func TestIntegrationClientForbidden(t *testing.T) {
	_, r := newTestClient(t)
	ns := r.Namespace("client-forbidden")
	cfg := kubeConfigFor(t, needKube(t), "informer-test-unprivileged")
	c, err := NewClient[*kubefixture.ConfigMap](cfg, configMapsRes, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Create(t.Context(), &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f", Namespace: ns}}, WriteOptions{})
	var ae *APIError
	if !errors.Is(err, ErrForbidden) || !errors.As(err, &ae) || ae.Code != 403 || errors.Is(err, ErrUnknownOutcome) {
		t.Errorf("Create: %v, want a 403 ErrForbidden", err)
	}
	if _, err := c.Get(t.Context(), ns, "f", GetOptions{}); !errors.Is(err, ErrForbidden) {
		t.Errorf("Get: %v, want ErrForbidden", err)
	}
}

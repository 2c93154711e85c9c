package controller_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/informer-go/informer/controller"
	"github.com/informer-go/informer/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// patcher applies merge patches of metadata.finalizers to one stored
// object, conditional on the resourceVersion, as kube-apiserver does.
type patcher struct {
	stored  *metav1.ObjectMeta // nil: not found
	patches []string
}

func (p *patcher) Patch(_ context.Context, ns, name string, pt types.PatchType, body []byte, _ kube.PatchOptions) (*metav1.ObjectMeta, error) {
	p.patches = append(p.patches, string(body))
	if pt != types.MergePatchType {
		return nil, errors.New("not a merge patch")
	}
	if p.stored == nil || p.stored.Namespace != ns || p.stored.Name != name {
		return nil, &kube.APIError{Op: "patch", Code: http.StatusNotFound}
	}
	var patch struct {
		Metadata struct {
			ResourceVersion string
			Finalizers      []string
		}
	}
	if err := json.Unmarshal(body, &patch); err != nil {
		return nil, err
	}
	if rv := patch.Metadata.ResourceVersion; rv != "" && rv != p.stored.ResourceVersion {
		return nil, &kube.APIError{Op: "patch", Code: http.StatusConflict, Reason: metav1.StatusReasonConflict}
	}
	next := p.stored.DeepCopy()
	next.Finalizers = patch.Metadata.Finalizers
	next.ResourceVersion += "+"
	if next.DeletionTimestamp != nil && len(next.Finalizers) == 0 {
		p.stored = nil // the deletion finishes
		return next, nil
	}
	p.stored = next
	return next.DeepCopy(), nil
}

const fin = "example.com/cleanup"

func TestFinalize(t *testing.T) {
	ctx := context.Background()
	now := metav1.Now()
	cached := &metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1", Finalizers: []string{"other"}}
	p := &patcher{stored: cached.DeepCopy()}
	cleanups := 0
	cleanup := func(context.Context, *metav1.ObjectMeta) error { cleanups++; return nil }

	// Not being deleted: the finalizer is added, after the others.
	got, deleting, err := controller.Finalize(ctx, p, cached, fin, cleanup)
	if err != nil || deleting || !slices.Equal(got.Finalizers, []string{"other", fin}) || cleanups != 0 {
		t.Fatalf("Finalize = %v, %v, %v; cleanups %d", got.Finalizers, deleting, err, cleanups)
	}
	if !slices.Equal(cached.Finalizers, []string{"other"}) {
		t.Fatal("Finalize changed the cached object")
	}
	if want := `{"metadata":{"resourceVersion":"1","finalizers":["other","` + fin + `"]}}`; p.patches[0] != want {
		t.Errorf("patch %s, want %s", p.patches[0], want)
	}
	// Again: nothing sent.
	if _, _, err := controller.Finalize(ctx, p, got, fin, cleanup); err != nil || len(p.patches) != 1 {
		t.Fatalf("second Finalize: %v, %d patches", err, len(p.patches))
	}
	// From a stale cache: a conflict, for the queue to retry.
	if _, err := controller.EnsureFinalizer(ctx, p, cached, "third"); !errors.Is(err, kube.ErrConflict) {
		t.Fatalf("EnsureFinalizer from a stale object: %v, want kube.ErrConflict", err)
	}

	// Being deleted: a cleanup that fails keeps the finalizer.
	p.stored.DeletionTimestamp = &now
	deleted := p.stored.DeepCopy()
	failing := func(context.Context, *metav1.ObjectMeta) error { return errors.New("bucket busy") }
	if _, deleting, err := controller.Finalize(ctx, p, deleted, fin, failing); err == nil || !deleting || !controller.HasFinalizer(p.stored, fin) {
		t.Fatalf("failing cleanup: deleting %v, err %v, stored %v", deleting, err, p.stored.Finalizers)
	}
	// Then it succeeds: ours is removed, "other" stays.
	got, deleting, err = controller.Finalize(ctx, p, deleted, fin, cleanup)
	if err != nil || !deleting || cleanups != 1 || !slices.Equal(p.stored.Finalizers, []string{"other"}) || got.ResourceVersion != p.stored.ResourceVersion {
		t.Fatalf("Finalize while deleting = %v, %v; cleanups %d, stored %v", deleting, err, cleanups, p.stored.Finalizers)
	}
	// Ours gone: nothing to do, nothing sent.
	n := len(p.patches)
	if _, deleting, err := controller.Finalize(ctx, p, got, fin, cleanup); err != nil || !deleting || cleanups != 1 || len(p.patches) != n {
		t.Fatalf("Finalize without our finalizer: %v, %v, cleanups %d, patches %d", deleting, err, cleanups, len(p.patches)-n)
	}
	// The last finalizer removed: the object is gone, and removing from
	// a gone object is not an error.
	if _, err := controller.RemoveFinalizer(ctx, p, got, "other"); err != nil || p.stored != nil {
		t.Fatalf("RemoveFinalizer of the last: %v, stored %v", err, p.stored)
	}
	if want := `{"metadata":{"resourceVersion":"` + got.ResourceVersion + `","finalizers":null}}`; p.patches[len(p.patches)-1] != want {
		t.Errorf("last patch %s, want %s", p.patches[len(p.patches)-1], want)
	}
	if obj, err := controller.RemoveFinalizer(ctx, p, got, "other"); err != nil || obj != got {
		t.Fatalf("RemoveFinalizer of a gone object: %v, %v", obj, err)
	}
}

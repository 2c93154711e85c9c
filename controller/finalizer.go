package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/informer-go/informer/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Patcher is what the finalizer helpers need of a client: the Patch of
// a *kube.Client[T].
type Patcher[T any] interface {
	Patch(ctx context.Context, namespace, name string, pt types.PatchType, patch []byte, opts kube.PatchOptions) (T, error)
}

// HasFinalizer reports whether obj lists finalizer.
func HasFinalizer(obj metav1.Object, finalizer string) bool {
	return slices.Contains(obj.GetFinalizers(), finalizer)
}

// EnsureFinalizer adds finalizer to obj on the server, unless obj has it
// already (then it sends nothing and returns obj), and returns the object
// stored. The merge patch is conditional on obj's resourceVersion: if the
// object changed since obj was read, it fails with kube.ErrConflict and
// the caller (a reconcile) retries from a newer state. obj is not
// changed: cached objects are read-only.
func EnsureFinalizer[T metav1.Object](ctx context.Context, c Patcher[T], obj T, finalizer string) (T, error) {
	if HasFinalizer(obj, finalizer) {
		return obj, nil
	}
	return patchFinalizers(ctx, c, obj, append(slices.Clone(obj.GetFinalizers()), finalizer))
}

// RemoveFinalizer removes finalizer from obj on the server, unless obj
// lacks it (then it sends nothing and returns obj), and returns the
// object stored, as EnsureFinalizer does. Removing the last finalizer of
// an object being deleted lets the deletion finish: the object returned
// may then be the last state of one that no longer exists, and an object
// already gone (kube.ErrNotFound) is not an error.
func RemoveFinalizer[T metav1.Object](ctx context.Context, c Patcher[T], obj T, finalizer string) (T, error) {
	if !HasFinalizer(obj, finalizer) {
		return obj, nil
	}
	rest := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return f == finalizer })
	got, err := patchFinalizers(ctx, c, obj, rest)
	if errors.Is(err, kube.ErrNotFound) {
		return obj, nil
	}
	return got, err
}

// Finalize is the finalizer step at the start of a reconcile. For an
// object not being deleted it ensures the finalizer (EnsureFinalizer)
// and returns deleting false: reconcile on, with the object returned.
// For an object being deleted that has the finalizer, it runs
// cleanup(ctx, obj) (delete what the object owns outside the cluster or
// in other namespaces: it must be safe to run again) and, once cleanup
// succeeds, removes the finalizer; it returns deleting true: the
// reconcile is over. An error of cleanup is returned as it is, with the
// finalizer kept, so that the queue retries.
func Finalize[T metav1.Object](ctx context.Context, c Patcher[T], obj T, finalizer string, cleanup func(ctx context.Context, obj T) error) (_ T, deleting bool, _ error) {
	if obj.GetDeletionTimestamp() == nil {
		got, err := EnsureFinalizer(ctx, c, obj, finalizer)
		return got, false, err
	}
	if !HasFinalizer(obj, finalizer) {
		return obj, true, nil // ours is done: other finalizers hold it
	}
	if err := cleanup(ctx, obj); err != nil {
		return obj, true, err
	}
	got, err := RemoveFinalizer(ctx, c, obj, finalizer)
	return got, true, err
}

// finalizersPatch is a merge patch of the finalizers, conditional on the
// resourceVersion.
type finalizersPatch struct {
	Metadata struct {
		ResourceVersion string   `json:"resourceVersion"`
		Finalizers      []string `json:"finalizers"` // null removes the last
	} `json:"metadata"`
}

func patchFinalizers[T metav1.Object](ctx context.Context, c Patcher[T], obj T, finalizers []string) (T, error) {
	var p finalizersPatch
	p.Metadata.ResourceVersion = obj.GetResourceVersion()
	if len(finalizers) > 0 {
		p.Metadata.Finalizers = finalizers
	}
	body, err := json.Marshal(&p)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("controller: finalizers of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return c.Patch(ctx, obj.GetNamespace(), obj.GetName(), types.MergePatchType, body, kube.PatchOptions{})
}

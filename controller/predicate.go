package controller

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The predicates below decide, from an object's old and new state,
// whether an update is worth reconciling; set one (or Or of several) as
// workqueue.EnqueueOptions.Update.

// GenerationChanged reports a change of metadata.generation: for types
// with a spec, a change to the spec (and the start of a deletion), not to
// the status or the metadata. Types without one (ConfigMap, Secret) keep
// generation 0: use ResourceVersionChanged for them.
func GenerationChanged[T metav1.Object](old, new T) bool {
	return old.GetGeneration() != new.GetGeneration()
}

// LabelsChanged reports a change of the labels.
func LabelsChanged[T metav1.Object](old, new T) bool {
	return !maps.Equal(old.GetLabels(), new.GetLabels())
}

// AnnotationsChanged reports a change of the annotations.
func AnnotationsChanged[T metav1.Object](old, new T) bool {
	return !maps.Equal(old.GetAnnotations(), new.GetAnnotations())
}

// ResourceVersionChanged reports any change the server stored; it is
// false for a resync or a relist's confirmation of an unchanged object.
func ResourceVersionChanged[T metav1.Object](old, new T) bool {
	return old.GetResourceVersion() != new.GetResourceVersion()
}

// DeletionStarted reports that the object is now being deleted (a
// deletionTimestamp appeared): what a finalizer waits for.
func DeletionStarted[T metav1.Object](old, new T) bool {
	return old.GetDeletionTimestamp() == nil && new.GetDeletionTimestamp() != nil
}

// Or returns a predicate that reports true when any of preds does.
func Or[T any](preds ...func(old, new T) bool) func(old, new T) bool {
	return func(old, new T) bool {
		for _, p := range preds {
			if p(old, new) {
				return true
			}
		}
		return false
	}
}

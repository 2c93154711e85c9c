package controller

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OwnerKind names the kind of owner OwnerKey looks for.
type OwnerKind struct {
	// Group is the owner's API group, "" for the core group; the version
	// of the reference does not matter.
	Group string
	// Kind is the owner's kind, such as "ConfigMap" or "Deployment".
	Kind string
	// ClusterScoped says the owner has no namespace: its key is then its
	// name alone, not the child's namespace and its name.
	ClusterScoped bool
}

// matches reports whether ref refers to an owner of this kind.
func (k OwnerKind) matches(ref *metav1.OwnerReference) bool {
	if ref.Kind != k.Kind {
		return false
	}
	group, _, found := strings.Cut(ref.APIVersion, "/")
	if !found {
		group = "" // "v1": the core group
	}
	return group == k.Group
}

// ControllerOf returns obj's controlling owner reference (controller:
// true) if it refers to an owner of kind k.
func ControllerOf(obj metav1.Object, k OwnerKind) (metav1.OwnerReference, bool) {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			// An object has at most one controller: the API refuses two.
			return ref, k.matches(&ref)
		}
	}
	return metav1.OwnerReference{}, false
}

// OwnerKey returns a function that maps an object to the key of its
// controlling owner of kind k ("namespace/name" in the object's
// namespace, or "name" for a cluster-scoped owner), and false for an
// object with no such owner: set it as workqueue.EnqueueOptions.Key on
// the informer of the children, so that adding, changing or deleting a
// child reconciles its owner.
func OwnerKey[T metav1.Object](k OwnerKind) func(obj T) (string, bool) {
	return func(obj T) (string, bool) {
		ref, ok := ControllerOf(obj, k)
		if !ok {
			return "", false
		}
		if k.ClusterScoped || obj.GetNamespace() == "" {
			return ref.Name, true
		}
		return obj.GetNamespace() + "/" + ref.Name, true
	}
}

// NewControllerRef returns the owner reference that makes owner (of
// apiVersion and kind) the controller of a child: controller: true, and
// blockOwnerDeletion, so that a foreground deletion of the owner waits
// for its children.
func NewControllerRef(owner metav1.Object, apiVersion, kind string) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         apiVersion,
		Kind:               kind,
		Name:               owner.GetName(),
		UID:                owner.GetUID(),
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

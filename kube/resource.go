package kube

import (
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource names a collection of the Kubernetes API by its group, version
// and resource, the three parts of its URL path:
//
//	Resource{Version: "v1", Resource: "pods"}                               → /api/v1/.../pods
//	Resource{Group: "apps", Version: "v1", Resource: "deployments"}         → /apis/apps/v1/.../deployments
//	Resource{Group: "example.com", Version: "v1alpha1", Resource: "widgets"} → /apis/example.com/v1alpha1/.../widgets
//
// Resource is the plural, lower-case name that appears in URLs ("pods",
// "configmaps"); Kind, optional, is the objects' Kind ("Pod"), which the
// Source checks the server's answers against.
type Resource struct {
	// Group is the API group; "" is the core group, served under /api.
	Group string
	// Version is the API version, for example "v1".
	Version string
	// Resource is the plural resource name, for example "pods".
	Resource string
	// Kind is the Kind of the resource's objects, for example "ConfigMap";
	// "" when not known. When set, the Source checks that lists are of
	// Kind+"List" and watched objects of Kind, and fails with a *KindError
	// otherwise; when empty, it checks against the Go type name of T
	// (*corev1.Pod: "Pod") unless Options.DisableKindCheck is set.
	// *unstructured.Unstructured and *metav1.PartialObjectMetadata accept
	// any kind; the apiVersion and kind of Unstructured objects that come
	// without them (the items of a list) are filled from the list, or from
	// Group, Version and Kind.
	Kind string
}

// String returns "resource.group/version", or "resource/version" for the
// core group, for example "deployments.apps/v1" and "pods/v1".
func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource + "/" + r.Version
	}
	return r.Resource + "." + r.Group + "/" + r.Version
}

// GroupVersionKind returns the Resource's group, version and kind.
func (r Resource) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// Validate reports a Resource whose path cannot be built.
func (r Resource) Validate() error {
	if r.Version == "" || r.Resource == "" {
		return fmt.Errorf("%w: resource %+v needs a Version and a Resource", ErrInvalidConfig, struct{ Group, Version, Resource, Kind string }(r))
	}
	for _, s := range []string{r.Group, r.Version, r.Resource} {
		if strings.ContainsAny(s, "/?#") || s == "." || s == ".." {
			return fmt.Errorf("%w: resource part %q is not a path segment", ErrInvalidConfig, s)
		}
	}
	return nil
}

// Path returns the collection's URL path, below the server's base path:
// /api/v1[/namespaces/NS]/RESOURCE or /apis/GROUP/VERSION[/namespaces/NS]/RESOURCE.
// An empty namespace means all namespaces (or a cluster-scoped resource).
func (r Resource) Path(namespace string) string {
	var b strings.Builder
	if r.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(url.PathEscape(r.Group))
		b.WriteByte('/')
	}
	b.WriteString(url.PathEscape(r.Version))
	if namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(namespace))
	}
	b.WriteByte('/')
	b.WriteString(url.PathEscape(r.Resource))
	return b.String()
}

package typed

import (
	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrClusterScoped is returned by Informer for a namespace of a
// cluster-scoped resource, whose objects have no namespace: listing one
// would always be empty, which hides the mistake. It is
// source/kube's sentinel, which also marks a server's 404 for such a
// request.
var ErrClusterScoped = kubesrc.ErrClusterScoped

// Resource binds a Go type T to a resource of the Kubernetes API: its
// group, version and plural name, its Kind, its scope, and optionally the
// protobuf codec of T. A CRD's descriptor is one line:
//
//	var Widgets = typed.Resource[*Widget]{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
//
// The built-in resources of k8s.io/api have descriptors in the module
// github.com/informer-go/informer/typed/builtin.
type Resource[T informer.Object] struct {
	// Group is the API group; "" is the core group.
	Group string
	// Version is the API version, for example "v1".
	Version string
	// Resource is the plural, lower-case name of the URL, for example
	// "pods".
	Resource string
	// Kind is the Kind of the objects, for example "Pod"; the Source
	// checks that lists are of Kind+"List" where it can.
	Kind string
	// Namespaced is true for resources whose objects live in namespaces.
	Namespaced bool
	// Protobuf, when set (kube.Protobuf[T]() for a type with protobuf
	// struct tags, kube.ProtobufFunc for one without), lets the Source
	// ask for Kubernetes protobuf; nil means JSON, which custom resources
	// always use.
	Protobuf kube.ProtobufCodec
}

// GroupVersionResource returns the resource's group, version and name.
func (r Resource[T]) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// String returns "resource.group/version" ("pods/v1" for the core group).
func (r Resource[T]) String() string { return r.kube().String() }

func (r Resource[T]) kube() kube.Resource {
	return kube.Resource{Group: r.Group, Version: r.Version, Resource: r.Resource, Kind: r.Kind}
}

// Metadata returns the descriptor of the same resource for metadata-only
// informers: *metav1.PartialObjectMetadata objects (names, labels,
// annotations, owners, and no spec or status), asked of the server with
// as=PartialObjectMetadataList content negotiation, in protobuf when the
// server offers it. For controllers that need only the metadata of many
// objects, the cache is a fraction of the full objects'.
func Metadata[T informer.Object](r Resource[T]) Resource[*metav1.PartialObjectMetadata] {
	return Resource[*metav1.PartialObjectMetadata]{
		Group: r.Group, Version: r.Version, Resource: r.Resource, Kind: r.Kind, Namespaced: r.Namespaced,
		Protobuf: kube.Protobuf[*metav1.PartialObjectMetadata](),
	}
}

// Dynamic returns the descriptor of a resource known only at run time,
// whose objects are decoded as *unstructured.Unstructured. Discovery
// resolves names to what it needs (see Discovery.Resolve and
// APIResource.Dynamic).
func Dynamic(gvr schema.GroupVersionResource, kind string, namespaced bool) Resource[*unstructured.Unstructured] {
	return Resource[*unstructured.Unstructured]{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Kind: kind, Namespaced: namespaced}
}

// Lister is a read-only view of a shared informer's cache that knows its
// resource's scope.
type Lister[T informer.Object] struct {
	informer.Lister[T]
	res        string
	namespaced bool
}

// Namespaced reports whether the resource's objects live in namespaces.
// Its Namespace (the embedded informer.Lister's) lists nothing but for
// namespace "" when they do not: check Namespaced where a resource may be
// either.
func (l Lister[T]) Namespaced() bool { return l.namespaced }

// Package typed is the typed layer over the informer core for Kubernetes:
// resource descriptors, a shared informer factory, listers that know their
// resource's scope, metadata-only and dynamic informers, and discovery.
// No code generation and no client-go.
//
// # Descriptors
//
// A Resource[T] binds a Go type to its group, version, resource, Kind and
// scope, and optionally its protobuf codec. The built-in resources of
// k8s.io/api have descriptors in the nested module typed/builtin
// (builtin.Pods(), builtin.Deployments(), ...), kept out of this module so
// that the root module requires only k8s.io/apimachinery; a CRD's
// descriptor is one line of the program's own.
// Metadata(r) gives the metadata-only descriptor of any resource, and
// Dynamic (or Discovery) one over *unstructured.Unstructured for a
// resource known only at run time.
//
// # Factory
//
// A Factory makes shared informers of one API server. Informer(f, res,
// opts) returns a reference to the informer of (Go type, resource,
// namespace, label selector, field selector, transform): asking twice
// returns the same informer and the same Lister. Start(ctx) starts the
// informers not yet running and may be called again after more are made;
// WaitForCacheSync(ctx) reports per informer whether it synced and, if
// not, the source's last error (a 404 for a resource the server does not
// serve, a 403), without one informer holding back the others' reports;
// Shutdown stops all and waits for their goroutines. Ref.Release gives a
// reference back: the last one stops that informer's watch and frees its
// cache while the others keep running.
//
// All informers of a factory share one HTTP connection pool and one
// client-side rate limiter. FactoryOptions sets the defaults (namespace,
// selectors, resync period), snapshots, shard and each informer's metrics
// (FactoryOptions.Metrics: m.Informer of metrics/prometheus), Options
// overrides them per informer and adds a transform and indexes.
//
// # managedFields
//
// The factory drops metadata.managedFields before objects are cached
// (FactoryOptions.KeepManagedFields keeps them): on real clusters they are
// often the largest part of an object's memory, and almost no informer
// user reads them. Measured on kube-apiserver v1.37.1 with 5,000
// ConfigMaps of about 300 bytes written by server-side apply (one field
// manager each; TestIntegrationMemory, live heap after two GCs):
//
//	full objects with managedFields      1986 B held per object
//	full objects without managedFields   1724 B (87%)
//	metadata only                        1314 B (66%)
//
// Objects with several managers (a Deployment touched by kubectl, a
// controller and the scheduler) carry several entries, and the saving
// grows with them.
package typed

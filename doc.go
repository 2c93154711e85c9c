// Package informer keeps a local, indexed, always-current cache of remote
// objects and tells handlers what changed: the informer machinery of
// Kubernetes client-go, rebuilt with generics.
//
// The pieces, in the order data flows through them:
//
//   - Source: the backend, one page of a list and a watch stream at a time.
//   - Reflector: lists, then watches from the list's resourceVersion; resumes
//     after a drop, lists again when the version expired, backs off on errors.
//   - DeltaFIFO: the changes per key, in order; a relist turns objects that
//     vanished into deletions whose final state is unknown.
//   - Indexer: the cache, with named indexes; Lister is its read-only view.
//   - Informer: applies each change to the Indexer, then hands it to every
//     handler's listener, a queue drained by one goroutine per handler.
package informer

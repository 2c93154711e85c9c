// Package kube is the Kubernetes list/watch Source of informers: Source[T]
// lists and watches one resource of an API server over the connection of
// package github.com/informer-go/informer/kube (its Config, RateLimiter,
// Resource and errors), and decodes straight into T. Both packages are
// named kube; import this one under another name:
//
//	import (
//		"github.com/informer-go/informer/kube"
//		kubesrc "github.com/informer-go/informer/source/kube"
//	)
//
// # Listing and watching
//
// Source[T] is an informer.Source over the server's REST API:
// New[*corev1.Pod](cfg, kube.Resource{Version: "v1", Resource: "pods"}, Options{})
// lists in pages and watches one resource, optionally in one namespace and
// through label and field selectors, and decodes straight into T as the
// bytes arrive (a list item by item, a watch event by event), never
// through map[string]any and never holding a whole response. T is any
// pointer type that decodes from the resource's objects: generated API
// types, a struct of your own, *unstructured.Unstructured, or
// *metav1.PartialObjectMetadata for metadata only. Give it to
// informer.New for a cache kept current, and Close it when done if it
// made its own HTTP client.
//
// A Source prefers streaming lists (PrefersWatchList), so an informer over
// it syncs, by default, from one watch with sendInitialEvents=true (the
// WatchList feature of newer API servers, where it is switched on)
// rather than from paged lists: the
// server streams the state from its watch cache instead of encoding whole
// pages, and the watch that follows resumes from the version the stream
// ended at, never streaming the state again. A server that refuses
// (an API server with the feature off answers 422, an older one rejects
// resourceVersionMatch on a watch) makes the informer list instead, for
// good, after one round trip; informer.ReflectorOptions.WatchList set to
// informer.WatchListOff skips even that.
//
// # Kinds
//
// The Source checks that the server sends what T is for: a list's kind
// must be Resource.Kind+"List" (and a watched object's kind
// Resource.Kind); without Resource.Kind, the Go type's name stands for it
// (*corev1.Pod: Pod, compared ignoring case) unless
// Options.DisableKindCheck is set. A mismatch, like New[*corev1.Pod] over
// "configmaps", is a *KindError (ErrWrongKind) instead of a cache of empty
// Pods. *unstructured.Unstructured and *metav1.PartialObjectMetadata take
// any kind; the items of a list, which the server sends without
// apiVersion and kind, get the list's in an Unstructured, so Unstructured
// works over built-in resources as over custom ones.
//
// # Errors that retrying does not fix
//
// New parses the selectors as the server does: a malformed one fails New
// (ErrInvalidConfig) rather than every request with 400. A 404 is
// explained from the server's discovery document: "is cluster-scoped"
// (ErrClusterScoped) for a cluster-scoped resource asked for in a
// namespace, "not found on the server" (ErrResourceNotServed) for an
// unknown resource or group. The reflector goes on retrying these, as
// 401 and 403 (a CRD may be installed, RBAC granted), but an informer's
// LastError and the error of WaitForCacheSync at its deadline say why it
// has not synced.
//
// # JSON and protobuf
//
// Two encodings are supported: JSON (application/json), for every T, and
// Kubernetes protobuf (application/vnd.kubernetes.protobuf), for a T whose
// struct fields carry protobuf struct tags (the types of k8s.io/api such
// as *corev1.Pod, and *metav1.PartialObjectMetadata) once its codec is
// set: Options{Protobuf: Protobuf[*corev1.Pod]()}. That codec is a
// decoder compiled once per Go type from the tags (internal/protodec): it
// decodes straight into T, gives the same objects as the generated
// Unmarshal methods (checked against them on every type of k8s.io/api),
// allocates about a third as often, and does not need the generated code,
// which a program using it does not link. For a type without tags,
// Options{Protobuf: ProtobufFunc((*T).Unmarshal)} uses its generated
// method (or any other decoding function). The codec is an option rather
// than found from T's methods so that a program that only speaks JSON
// links no protobuf decoding at all. Options.ContentType chooses what is
// asked for:
//
//   - ContentTypeAuto (the default): protobuf, with JSON as the fallback,
//     when Options.Protobuf is set; JSON otherwise.
//   - ContentTypeJSON: JSON only.
//   - ContentTypeProtobuf: protobuf with JSON as the fallback; New fails
//     with kube.ErrInvalidConfig when Options.Protobuf is not set.
//
// JSON is decoded by the package's own decoder (internal/jsondec's
// UnmarshalKube): it is compiled once per Go type, gives the same results
// as client-go, whose apimachinery decodes with sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts (encoding/json's struct tags,
// embedded structs, json.Unmarshaler and encoding.TextUnmarshaler
// methods, but field names matched case-sensitively, and integers in
// interface values, such as a custom resource's map[string]any, kept as
// int64 rather than float64), and decodes a realistic 5 KiB pod about
// four times as fast with half the allocations; each list item or watch
// event is first read whole (up to Options.MaxObjectBytes), then decoded
// in one pass.
//
// The Content-Type of each response decides how it is decoded, so a
// resource the server serves only as JSON (custom resources, many
// aggregated APIs) works with any setting. A metadata-only Source asks
// for application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1
// (or the protobuf media type with the same parameters), falling back to
// full objects on servers that cannot. Objects decoded from protobuf get
// their apiVersion and kind from the envelope that carries them, as JSON
// has them: watched objects and PartialObjectMetadata list items (the
// items of other protobuf lists have none, as in JSON). Protobuf is smaller on the
// wire and faster to decode than JSON; a protobuf list is read item by
// item like a JSON one, and a protobuf watch frame by frame, each checked
// against the size limits from its length before it is read. A Source of
// *metav1.PartialObjectMetadata asks for metadata only in either encoding.
//
// The Source paces its requests (a token bucket, and the server's
// Retry-After), bounds each object's size (Options.MaxObjectBytes) and
// each List's duration (Options.ListTimeout), asks for gzip, and follows
// redirects only to the server's own host.
//
// Answers that are not what the API sends are typed errors, never panics
// or invented objects: *APIError for HTTP errors and watch ERROR events,
// whether their Status is JSON or protobuf (errors.Is ErrNotFound,
// ErrForbidden, ErrUnauthorized, ErrTooManyRequests, informer.ErrExpired),
// *ContentTypeError for a body in neither encoding (an HTML login page;
// ErrUnexpectedContentType), *DecodeError for invalid, truncated or
// oversized JSON or protobuf (ErrMalformed, ErrObjectTooLarge), and an
// error matching informer.ErrWatchListUnsupported when the server cannot
// do a streaming list. Network errors are returned as net/http gives them
// (*url.Error), and an ended context as an error wrapping ctx.Err() and
// its cause.
//
// # Page sizes
//
// Without streaming lists (see informer.ReflectorOptions.WatchList;
// kube-apiserver 1.37 has them on by default) the reflector asks for a
// consistent list, the current state (resourceVersion ""). Paging bounds
// memory: a relist decodes the new state while the cache still holds the
// old one, so relists come in pages, grown to cut round trips (20,000
// ConfigMaps take 12 requests instead of 40 at 500 a page) but no larger
// than 2,000 objects, so that a page beside the cache stays small (4% of
// 50,000 pods; bench/cmd/footprint -relist measured a relist peak of 1.15
// to 1.18x the steady live heap with pages of 2,000, 1.19 to 1.35x with
// 5,000 and 10,000, protobuf, 50,000 pods). The first list has no old state beside it, so it asks
// for everything at once: kube-apiserver 1.37 serves a consistent list
// from its watch cache in one response as fast as client-go's
// resourceVersion "0", while its paged continuations, measured on 1.37.1
// (bench/realserver) once the collection had not changed for a minute,
// took two to three times as long as one response. The cost is on older
// servers, or a resource with its watch cache off, which read the whole
// first list from etcd in one go. Other choices, each one option away:
//
//   - ReflectorOptions.ListResourceVersion "0" (client-go's informers do
//     that) lets the server answer the first list from its watch cache in
//     one response, whatever the limit: fast on every server, but the
//     state may be older than one the program has already seen, and the
//     informer reports synced on it. Relists after an expired version are
//     always consistent.
//   - A negative Options.PageSize: every list in one response, relists
//     too; the whole collection is decoded before the cache takes it.
//   - A fixed positive Options.PageSize: predictable responses, one round
//     trip per page (500, client-go's page size, was the default).
//
// # Sharing
//
// With Options.Sharing on (the default), a slice, map or pointer to a
// struct (a container, an env list, a volume, a toleration list, labels,
// annotations, an owner reference, a managed-fields entry's fields) whose
// JSON or protobuf is byte for byte that of one the Source decoded
// before, and that an object still holds, is decoded into that same
// value; metadata only shares its labels, annotations, owner references
// and managed fields the same way. The table that finds them (one per
// Source, for both encodings) holds, per shared value, a copy of its
// bytes and a weak pointer: it pins nothing objects do not, and forgets
// everything past 64 MiB. What it saves: 20,000 pods of one Deployment
// hold 1.6 KiB each instead of 12.2 KiB, 50,000 pods of 500 Deployments
// 3.1 KiB instead of 12.2 (client-go: 13.4; BENCHMARKS.md, bench/scale);
// in protobuf 3.4 KiB instead of 12.1 (client-go: 13.3), syncing 1.7 to
// 3.3 times faster, since a value found in the table is not decoded
// again. What it costs: a hash of each shareable value's bytes and a
// lookup, about 10% more instructions per object on JSON with nothing to
// share (bench/workload's BenchmarkSharingCost), about 6% in protobuf,
// less than nothing when most of it repeats.
//
// Shared values are read-only, like every cached object, and the Source
// checks them: each value's fingerprint is taken when it enters the
// table and compared each time its bytes come again, before it is handed
// out. A value some program wrote into is never handed out again: the
// object being decoded gets the bytes decoded afresh, the written value
// leaves the table, and the write is reported (a *SharedWriteError,
// matching ErrSharedValueWritten and informer.ErrObjectMutated, naming
// the resource, the object and the field path, never the value: to the
// informer's OnError, its log at Warn, and Health.Mutations). So a write
// into a cached object changes that object and the objects that hold the
// written value at that moment, and nothing decoded after it. The check
// costs a walk of each value found in the table (19% more instructions
// per pod when nearly everything is found, 2,000 JSON pods of one
// Deployment: BenchmarkSharingHits, still less than half of
// SharingOff's; 57% for one protobuf pod decoded again and again, a
// third of SharingOff's), nothing when nothing repeats, no allocation,
// and 24 bytes per table entry (held memory per pod +0.1% at 50,000
// pods; BENCHMARKS.md).
//
// Two limits of the check: a write that puts back equal text (a label
// set again to the same value in a new string) counts as a write (it is
// reported and the value leaves the table; decoded objects stay right);
// and a write into a cached map from one goroutine while the Source
// reads that map (its check, or any other reader of the cache) is a data
// race that Go may stop the program for ("concurrent map iteration and
// map write"), as it would be without sharing.
package kube

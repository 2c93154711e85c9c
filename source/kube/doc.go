// Package kube connects informers to a Kubernetes API server without
// client-go: it finds the server and the credentials the way kubectl and
// in-cluster programs do, builds an *http.Client that talks to it, and
// lists and watches resources through Source, an informer.Source, and
// reads and writes objects through Client.
//
// # Where a Config comes from
//
//   - LoadKubeconfig reads kubeconfig files the way kubectl does: an
//     explicit path, else the files listed in $KUBECONFIG (merged: the first
//     file that defines a cluster, user or context wins, and so does the
//     first file that sets current-context), else ~/.kube/config.
//   - InClusterConfig reads what Kubernetes mounts into every pod: the
//     KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT variables and the
//     service account's token, CA and namespace.
//   - Load picks one of the two: a kubeconfig when one was asked for (a
//     file, context, cluster or user in LoadOptions, or $KUBECONFIG), else
//     in-cluster when running in a pod, else ~/.kube/config. Default is
//     Load with no options.
//
// # Credentials
//
// Config.HTTPClient returns a client whose transport adds the credentials to
// every request: a bearer token, a token file (re-read when it changes, so
// rotated service account tokens are picked up), basic auth, a client
// certificate, or an exec credential plugin (client.authentication.k8s.io
// v1 or v1beta1) whose token or certificate is cached until it expires or
// the server answers 401.
//
// Credentials never reach a log: Config's String, Format and LogValue
// name the kind of credential but never print a token, password, key or
// certificate, and errors never quote them or a plugin's output.
//
// # Listing and watching
//
// Source[T] is an informer.Source over the server's REST API:
// New[*corev1.Pod](cfg, Resource{Version: "v1", Resource: "pods"}, Options{})
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
// # Object data stays out of errors
//
// Errors and logs name objects (namespace/name, resourceVersion, field
// path, byte offset) and never quote their content: a Secret's data must
// not reach a log. An object that does not decode is an *ObjectError; the
// message of an UnmarshalJSON method (apimachinery's Unstructured quotes
// the whole object) is left out.
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
//     with ErrInvalidConfig when Options.Protobuf is not set.
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
// aggregated APIs) works with any setting. Protobuf is smaller on the
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
// do a streaming list.
//
// # Reading and writing objects
//
// Client[T] reads and writes one resource, with the Source's transport,
// decoders and rate limiter: NewClient[T](cfg, res, ClientOptions{}), or
// typed.NewClient(factory, descriptor) to share a factory's connection
// pool, credentials and rate limiter with its informers. Get and List
// (and All, page by page) read from the server; Create, Update,
// UpdateStatus, Patch (JSON merge, JSON patch, strategic merge for
// built-in types), Apply (server-side apply: field manager, Force),
// Delete (UID and resourceVersion preconditions, propagation, grace
// period), DeleteCollection, GetScale, UpdateScale and PatchScale write,
// each with DryRun. Every call takes a context and one options struct of
// its family.
//
// Every write returns the object the server answered with. To read your
// own write from an informer's cache, wait for its resourceVersion:
//
//	wrote, err := client.Update(ctx, cm, kube.WriteOptions{})
//	if err != nil {
//		return err // errors.Is(err, kube.ErrConflict): read again and redo (RetryOnConflict)
//	}
//	if err := inf.WaitForResourceVersion(ctx, wrote.ResourceVersion); err != nil {
//		return err
//	}
//	cached, _ := inf.Lister().Namespace(cm.Namespace).Get(cm.Name) // has the write
//
// The server's refusals are *APIError values, matched with errors.Is:
// ErrNotFound, ErrAlreadyExists, ErrConflict, ErrInvalid (APIError.Causes
// lists the fields), ErrForbidden, ErrUnauthorized, ErrTooManyRequests,
// ErrGone. Their text names the operation, the resource, the path and
// the object (namespace/name), never the object's content: for
// ErrInvalid, the refused fields and their reasons, not the values the
// server's message quotes.
//
// Which calls are repeated: any call the server refused with 429 Too Many
// Requests (it did not do it), after its Retry-After (which holds back
// every request of the rate limiter, up to a minute) or 1 s; Get and List
// also after a failed connection, 502, 503, 504 or another 5xx with
// Retry-After; each at most ClientOptions.MaxRetries times (10). A write
// (Create, Update, UpdateStatus, Patch, Apply, Delete, DeleteCollection,
// UpdateScale, PatchScale) is never repeated after anything else: after
// a connection lost once the request was sent, an ended context or a 5xx
// its outcome is unknown, and its error matches ErrUnknownOutcome. Of
// those, an Update or UpdateScale with a resourceVersion, a Delete with
// a UID precondition, an Apply and a merge patch are safe for the caller
// to repeat (the server refuses a second one with ErrConflict or
// ErrNotFound, or does the same again); a Create may then fail with
// ErrAlreadyExists; a JSON patch that appends is not. A write whose
// success answer cannot be read was applied, and its error says so.
//
// # Errors
//
// Failures wrap sentinel errors (ErrNoKubeconfig, ErrContextNotFound,
// ErrExecNotFound, ...) to be matched with errors.Is; errors about a
// kubeconfig are *KubeconfigError values that name the file, and errors of a
// credential plugin are *ExecError values.
package kube

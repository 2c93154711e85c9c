// Package kube is the connection to a Kubernetes API server, without
// client-go: it finds the server and the credentials the way kubectl and
// in-cluster programs do, builds an *http.Client that talks to it, paces
// requests (RateLimiter), and reads and writes objects through Client.
// The list/watch Source that informers run on is in source/kube, over
// this package:
//
//	import (
//		"github.com/informer-go/informer/kube"
//		kubesrc "github.com/informer-go/informer/source/kube"
//	)
//
//	cfg, err := kube.Default()
//	pods, err := kubesrc.New[*corev1.Pod](cfg, kube.Resource{Version: "v1", Resource: "pods"}, kubesrc.Options{})
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
// From a kubeconfig's cluster come server, certificate-authority(-data),
// insecure-skip-tls-verify, tls-server-name, proxy-url and
// disable-compression; from its user token, tokenFile,
// client-certificate(-data), client-key(-data), username/password and
// exec (an exec command with a slash is resolved like a relative path).
//
// # Credentials
//
// Config.HTTPClient returns a client whose transport adds the credentials to
// every request: a bearer token, a token file (re-read when it changes, so
// rotated service account tokens are picked up), basic auth, a client
// certificate, or an exec credential plugin (client.authentication.k8s.io
// v1 or v1beta1) whose token or certificate is cached until it expires or
// the server answers 401. Client certificate files are re-read for new
// connections when they change, and a new certificate from the plugin
// moves new requests to new connections. A request that got a 401 is not
// retried: the next one carries the new credential.
//
// Credentials never reach a log: Config's String, Format and LogValue
// name the kind of credential but never print a token, password, key or
// certificate, and errors never quote them or a plugin's output.
//
// # Reading and writing objects
//
// Client[T] reads and writes one resource, with the same transport,
// decoders and rate limiter as a source/kube Source: NewClient[T](cfg, res, ClientOptions{}), or
// typed.NewClient(factory, descriptor, opts) to share a factory's connection
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
// # Encodings and errors shared with source/kube
//
// A Client and a Source decode with the same code (internal/kubewire):
// JSON for every T, Kubernetes protobuf for a T whose codec is set
// (Protobuf[*corev1.Pod]() from its struct tags, or ProtobufFunc with a
// generated Unmarshal), chosen by ContentType; the Content-Type of each
// answer decides how it is decoded. Answers that are not what the API
// sends are typed errors, never panics or invented objects: *APIError,
// *ContentTypeError, *DecodeError (with an *ObjectError naming the object
// that did not fit T) and *KindError, declared here for both.
//
// # Object data stays out of errors
//
// Errors and logs name objects (namespace/name, resourceVersion, field
// path, byte offset) and never quote their content: a Secret's data must
// not reach a log. An object that does not decode is an *ObjectError; the
// message of an UnmarshalJSON method (apimachinery's Unstructured quotes
// the whole object) is left out.
//
// # Errors
//
// Failures wrap sentinel errors (ErrNoKubeconfig, ErrContextNotFound,
// ErrExecNotFound, ...) to be matched with errors.Is; errors about a
// kubeconfig are *KubeconfigError values that name the file, and errors of a
// credential plugin are *ExecError values.
package kube

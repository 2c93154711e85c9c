package kube

import (
	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubewire"
)

// The errors of the server's answers, the encodings and the defaults are
// shared by a Client and a source/kube Source, which decode with the same
// code (internal/kubewire); kube names them for both.

// Sentinel errors of the server's answers to a Client or a Source. Match them with errors.Is;
// the errors themselves are *APIError, *ContentTypeError or *DecodeError
// values with the details.
var (
	// ErrNotFound matches an *APIError for HTTP 404 or reason NotFound: the
	// resource, its group or version, or the namespace does not exist.
	ErrNotFound = kubewire.ErrNotFound
	// ErrNamespaceNotFound matches, besides ErrNotFound, an *APIError
	// whose Status names a missing namespace (a create, or a list of a
	// custom resource, in it); a get there matches ErrNotFound only.
	// APIError.NotFound says what the server found missing.
	ErrNamespaceNotFound = kubewire.ErrNamespaceNotFound
	// ErrForbidden matches an *APIError for HTTP 403 or reason Forbidden:
	// the credentials are valid but not allowed to list or watch.
	ErrForbidden = kubewire.ErrForbidden
	// ErrUnauthorized matches an *APIError for HTTP 401 or reason
	// Unauthorized: the server did not accept the credentials.
	ErrUnauthorized = kubewire.ErrUnauthorized
	// ErrTooManyRequests matches an *APIError for HTTP 429 or reason
	// TooManyRequests: the server is throttling this client.
	ErrTooManyRequests = kubewire.ErrTooManyRequests
	// ErrUnexpectedContentType matches a *ContentTypeError: a successful
	// response whose Content-Type is neither JSON nor, for an object type
	// that can decode it, Kubernetes protobuf; like an HTML page from a
	// proxy.
	ErrUnexpectedContentType = kubewire.ErrUnexpectedContentType
	// ErrNotJSON is ErrUnexpectedContentType, under the name it had when
	// JSON was the only encoding: errors.Is(err, ErrNotJSON) goes on
	// matching every *ContentTypeError.
	//
	// Deprecated: use ErrUnexpectedContentType.
	ErrNotJSON = kubewire.ErrNotJSON
	// ErrMalformed matches a *DecodeError about a response that is not
	// what the API sends: invalid or truncated JSON or protobuf, garbage
	// between watch events, an object that does not fit the Go type.
	ErrMalformed = kubewire.ErrMalformed
	// ErrObjectTooLarge matches a *DecodeError about an object (a list item
	// or a watch event) larger than Options.MaxObjectBytes, or a list
	// response larger than Options.MaxResponseBytes. Reading stopped at the
	// limit.
	ErrObjectTooLarge = kubewire.ErrObjectTooLarge
	// ErrRedirect reports a redirect that was not followed: one to another
	// host (it would receive the credentials), or one too many.
	ErrRedirect = kubewire.ErrRedirect
	// ErrConflict matches an *APIError for reason Conflict (or HTTP 409
	// without a reason): a precondition (resourceVersion, UID) no longer
	// holds, or an Apply's fields are another manager's. Read the object
	// again and retry (RetryOnConflict).
	ErrConflict = kubewire.ErrConflict
	// ErrAlreadyExists matches an *APIError for reason AlreadyExists: a
	// Create of a name that is taken.
	ErrAlreadyExists = kubewire.ErrAlreadyExists
	// ErrInvalid matches an *APIError for reason Invalid (or HTTP 422
	// without a reason): the server refused the object's fields.
	// APIError.Causes lists them.
	ErrInvalid = kubewire.ErrInvalid
	// ErrGone matches an *APIError for HTTP 410 or the reasons Expired and
	// Gone: a resourceVersion or continue token too old to serve. It is
	// informer.ErrExpired, under the name of its HTTP status.
	ErrGone = kubewire.ErrGone
	// ErrUnknownOutcome matches the error of a Client's write that may
	// have been applied (the connection failed or the context ended after
	// sending, or a 5xx answer). The Client does not repeat it: read the
	// object and decide (a Create repeated may fail with ErrAlreadyExists).
	ErrUnknownOutcome = kubewire.ErrUnknownOutcome
)

// ErrWrongKind matches a *KindError: the server sent objects of another
// kind than T describes.
var ErrWrongKind = kubewire.ErrWrongKind

// APIError is an error answered by the server: an HTTP status other than
// 2xx, or the ERROR event of a watch, with the Status the server sent.
// errors.Is matches it against ErrNotFound, ErrForbidden,
// ErrUnauthorized, ErrTooManyRequests, ErrConflict, ErrAlreadyExists,
// ErrInvalid, ErrGone and ErrUnknownOutcome. Its Error text never quotes
// the server's message (which may quote an object's content): the whole
// Status is in its Status field, the fields an Invalid answer refused in
// Causes.
type APIError = kubewire.APIError

// ContentTypeError reports a successful response whose body is neither
// JSON nor, for a type that decodes it, Kubernetes protobuf (an HTML page
// from a proxy). It matches ErrUnexpectedContentType.
type ContentTypeError = kubewire.ContentTypeError

// DecodeError reports a response body that could not be decoded, with the
// byte offset and list item where it failed. It matches ErrMalformed, or
// ErrObjectTooLarge for an object over the size limit.
type DecodeError = kubewire.DecodeError

// ObjectError is the cause of a DecodeError about one object that does
// not fit T: it names the object (namespace, name, resourceVersion), the
// Go type and the field, never its content.
type ObjectError = kubewire.ObjectError

// KindError reports objects of another kind than T describes (a
// Source[*corev1.Pod] over "configmaps"). It matches ErrWrongKind.
type KindError = kubewire.KindError

// ContentType is the encoding a Client or Source asks the server for.
// Whatever was asked, each response's Content-Type decides how its body
// is decoded.
type ContentType = kubewire.ContentType

// The encodings a Client or Source can ask for.
const (
	// ContentTypeAuto, the zero value, asks for protobuf, with JSON as
	// the fallback, when the options set Protobuf, and for JSON otherwise.
	ContentTypeAuto = kubewire.ContentTypeAuto
	// ContentTypeJSON asks for JSON only.
	ContentTypeJSON = kubewire.ContentTypeJSON
	// ContentTypeProtobuf asks for Kubernetes protobuf, with JSON as the
	// fallback for the resources a server serves as JSON only; the options
	// must set Protobuf.
	ContentTypeProtobuf = kubewire.ContentTypeProtobuf
)

// ProtobufCodec decodes T from Kubernetes protobuf: Protobuf[T] or
// ProtobufFunc[T].
type ProtobufCodec = kubewire.ProtobufCodec

// Protobuf returns the codec of a type generated from Kubernetes'
// .proto files (k8s.io/api types, *metav1.PartialObjectMetadata): it
// decodes from the struct's protobuf tags.
func Protobuf[T informer.Object]() ProtobufCodec { return kubewire.Protobuf[T]() }

// ProtobufFunc returns the codec that decodes T with decode, such as its
// generated Unmarshal method: (*corev1.Pod).Unmarshal.
func ProtobufFunc[T informer.Object](decode func(obj T, message []byte) error) ProtobufCodec {
	return kubewire.ProtobufFunc(decode)
}

// Defaults of ClientOptions, and of a source/kube Source's Options.
const (
	// DefaultPageSize is the size of the pages of Client.List and All, and
	// of a Source's first relist page.
	DefaultPageSize = kubewire.DefaultPageSize
	// DefaultMaxObjectBytes is the largest object accepted in an answer
	// when the options' MaxObjectBytes is zero.
	DefaultMaxObjectBytes = kubewire.DefaultMaxObjectBytes
	// DefaultQPS is the request rate when the options set neither QPS nor
	// RateLimiter.
	DefaultQPS = kubewire.DefaultQPS
	// DefaultBurst is the burst when the options set neither QPS, Burst
	// nor RateLimiter.
	DefaultBurst = kubewire.DefaultBurst
)

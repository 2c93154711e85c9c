package kubewire

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sentinel errors of the server's answers. kube re-exports them under the
// same names and documents each (kube/wire.go): keep the two in step.
var (
	ErrNotFound              = errors.New("kube: not found")
	ErrNamespaceNotFound     = errors.New("kube: namespace not found")
	ErrForbidden             = errors.New("kube: forbidden")
	ErrUnauthorized          = errors.New("kube: unauthorized")
	ErrTooManyRequests       = errors.New("kube: too many requests")
	ErrUnexpectedContentType = errors.New("kube: unexpected content type")
	// Deprecated: use ErrUnexpectedContentType.
	ErrNotJSON        = ErrUnexpectedContentType
	ErrMalformed      = errors.New("kube: malformed response")
	ErrObjectTooLarge = errors.New("kube: object too large")
	ErrRedirect       = errors.New("kube: redirect not followed")
	ErrConflict       = errors.New("kube: conflict")
	ErrAlreadyExists  = errors.New("kube: already exists")
	ErrInvalid        = errors.New("kube: invalid")
	ErrGone           = informer.ErrExpired
	ErrUnknownOutcome = errors.New("kube: outcome unknown: the write may have been applied")
)

// APIError is an error answered by the server: an HTTP status other than
// 2xx (200 OK for a Source), or the ERROR event of a watch. When the body
// is a Kubernetes Status, Status holds it and Reason and Message come
// from it; otherwise Message is the start of the body (for a Client's
// write, not when it looks like JSON, which may echo the object sent).
//
// errors.Is matches ErrNotFound, ErrForbidden, ErrUnauthorized,
// ErrTooManyRequests, ErrConflict, ErrAlreadyExists, ErrInvalid and
// ErrGone (informer.ErrExpired) by code or reason (see each), and
// ErrUnknownOutcome for a 5xx answer to a write of a Client.
//
// Its Error text names the operation, the path and the object, and for
// ErrInvalid lists the fields the server refused with their reasons, but
// not the server's message, which quotes the refused values: an object's
// content never reaches a log through an error. Programs find the whole
// Status, causes and message included, in Status.
type APIError struct {
	// Op is what was being done: "list" or "watch" for a Source, the
	// Client's method for a Client ("get", "create", "update", "patch",
	// "apply", "delete", ...).
	Op string
	// Path is the request's path and query (no credentials are ever in
	// it).
	Path string
	// Object names the object of a Client's call, "namespace/name" or
	// "name"; "" for a Source or a call on a collection.
	Object string
	// Code is the HTTP status code, or the Status's code for a watch's
	// ERROR event.
	Code int
	// Reason is the Status's machine-readable reason, like "Forbidden" or
	// "Expired"; empty when the body was not a Status.
	Reason metav1.StatusReason
	// Message is the Status's message, or the start of a body that was not
	// a Status.
	Message string
	// Status is the decoded Status, or the zero value.
	Status metav1.Status
	// RetryAfter is how long the server asked the client to wait before
	// trying again (the Retry-After header, or the Status's
	// retryAfterSeconds), or 0. The Source waits it out, up to a minute,
	// before its next request; see Options.RateLimiter.
	RetryAfter time.Duration
	// Hint says what the server's discovery tells of a 404: that the
	// resource is cluster-scoped (errors.Is ErrClusterScoped), or that it
	// is not served (ErrResourceNotServed); "" otherwise.
	Hint   string
	hintIs error
	// write is set for a Client's writes: a 5xx answer leaves their
	// outcome unknown.
	write bool
}

// SetHint sets e's Hint, which errors.Is matches against is.
func SetHint(e *APIError, hint string, is error) {
	e.Hint, e.hintIs = hint, is
}

// MarkWrite marks e as the answer to a write, whose 5xx leaves the
// outcome unknown.
func MarkWrite(e *APIError) { e.write = true }

// Error describes the error: operation, path, status, reason and message.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("kube: ")
	b.WriteString(e.Op)
	if e.Path != "" {
		b.WriteByte(' ')
		b.WriteString(e.Path)
	}
	if e.Object != "" {
		b.WriteString(" (object ")
		b.WriteString(e.Object)
		b.WriteByte(')')
	}
	b.WriteString(": ")
	if e.Code != 0 {
		b.WriteString(strconv.Itoa(e.Code))
		if t := http.StatusText(e.Code); t != "" {
			b.WriteByte(' ')
			b.WriteString(t)
		}
	} else {
		b.WriteString("error")
	}
	if e.Reason != "" && string(e.Reason) != strings.ReplaceAll(http.StatusText(e.Code), " ", "") {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	if causes := e.invalidCauses(); causes != "" {
		b.WriteString(": ")
		b.WriteString(causes)
	} else if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.write && e.Is(ErrUnknownOutcome) {
		b.WriteString(" (the write may have been applied)")
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.Hint != "" {
		b.WriteString(": ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Is reports whether the error matches target: ErrNotFound, ErrForbidden,
// ErrUnauthorized, ErrTooManyRequests, ErrConflict, ErrAlreadyExists,
// ErrInvalid, informer.ErrExpired (ErrGone), ErrUnknownOutcome for a 5xx
// answer to a Client's write, and for an explained 404 ErrClusterScoped
// or ErrResourceNotServed.
func (e *APIError) Is(target error) bool {
	if e.hintIs != nil && target == e.hintIs {
		return true
	}
	switch target {
	case ErrNotFound:
		return e.Code == http.StatusNotFound || e.Reason == metav1.StatusReasonNotFound
	case ErrNamespaceNotFound:
		return e.namespaceNotFound()
	case ErrForbidden:
		return e.Code == http.StatusForbidden || e.Reason == metav1.StatusReasonForbidden
	case ErrUnauthorized:
		return e.Code == http.StatusUnauthorized || e.Reason == metav1.StatusReasonUnauthorized
	case ErrTooManyRequests:
		return e.Code == http.StatusTooManyRequests || e.Reason == metav1.StatusReasonTooManyRequests
	case informer.ErrExpired:
		return e.Code == http.StatusGone || e.Reason == metav1.StatusReasonExpired || e.Reason == metav1.StatusReasonGone
	case ErrConflict:
		return e.Reason == metav1.StatusReasonConflict || (e.Code == http.StatusConflict && e.unknownReason())
	case ErrAlreadyExists:
		return e.Reason == metav1.StatusReasonAlreadyExists
	case ErrInvalid:
		return e.Reason == metav1.StatusReasonInvalid || (e.Code == http.StatusUnprocessableEntity && e.unknownReason())
	case ErrUnknownOutcome:
		return e.write && e.Code >= 500 && e.Code <= 599
	}
	return false
}

// NotFound returns what the server's Status says was not found, for an
// error matching ErrNotFound: the resource ("configmaps", or "namespaces"
// for a missing namespace) and its name; "", "" when it does not say.
func (e *APIError) NotFound() (resource, name string) {
	if !e.Is(ErrNotFound) || e.Status.Details == nil {
		return "", ""
	}
	return e.Status.Details.Kind, e.Status.Details.Name
}

// namespaceNotFound reports a 404 whose Status names a missing namespace
// that the request's path is inside of.
func (e *APIError) namespaceNotFound() bool {
	kind, name := e.NotFound()
	if kind != "namespaces" || name == "" {
		return false
	}
	path, _, _ := strings.Cut(e.Path, "?")
	return strings.Contains(path, "/namespaces/"+name+"/")
}

// unknownReason reports a Status without a reason of its own (or no
// Status): the code alone then classifies the error.
func (e *APIError) unknownReason() bool {
	return e.Reason == "" || e.Reason == metav1.StatusReasonUnknown
}

// Causes returns the causes the server gave, such as the fields an
// ErrInvalid refused (Field, and Type such as FieldValueInvalid; their
// Message quotes the refused value); nil when it gave none.
func (e *APIError) Causes() []metav1.StatusCause {
	if e.Status.Details == nil {
		return nil
	}
	return e.Status.Details.Causes
}

// invalidCauses describes the causes of an ErrInvalid without their
// values: "ConfigMap \"a\" is invalid: metadata.name (FieldValueInvalid),
// data (FieldValueRequired)"; "" for other errors or without causes.
func (e *APIError) invalidCauses() string {
	causes := e.Causes()
	if len(causes) == 0 || !e.Is(ErrInvalid) {
		return ""
	}
	var b strings.Builder
	if d := e.Status.Details; d.Kind != "" || d.Name != "" {
		fmt.Fprintf(&b, "%s %q is invalid: ", d.Kind, d.Name)
	} else {
		b.WriteString("invalid: ")
	}
	for i, c := range causes {
		if i > 0 {
			b.WriteString(", ")
		}
		if c.Field != "" {
			b.WriteString(c.Field)
		} else {
			b.WriteString("(no field)")
		}
		if c.Type != "" {
			fmt.Fprintf(&b, " (%s)", c.Type)
		}
	}
	return b.String()
}

// ContentTypeError reports a successful response whose body is not in
// an encoding the Source decodes (JSON, or Kubernetes protobuf when the
// object type has the generated Unmarshal method): typically an HTML
// page from a proxy or a login portal in front of the server. It matches
// ErrUnexpectedContentType (and so ErrNotJSON).
type ContentTypeError struct {
	// Op is "list" or "watch".
	Op string
	// Path is the request's path and query.
	Path string
	// Code is the HTTP status code.
	Code int
	// ContentType is the Content-Type header as received ("" when absent).
	ContentType string
	// Snippet is the start of the body, for a person to recognise; empty
	// when the body looks like JSON, which may be objects (a Secret's
	// data) that errors never quote.
	Snippet string
	// Expected names the encodings the Source decodes: "JSON", or "JSON
	// or Kubernetes protobuf"; "" means JSON.
	Expected string
}

// Error describes the response: status, Content-Type and the start of the
// body.
func (e *ContentTypeError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "none"
	}
	want := e.Expected
	if want == "" {
		want = "JSON"
	}
	if e.Snippet == "" {
		return fmt.Sprintf("kube: %s %s: server answered %d with Content-Type %s, not %s", e.Op, e.Path, e.Code, ct, want)
	}
	return fmt.Sprintf("kube: %s %s: server answered %d with Content-Type %s, not %s; body starts %q", e.Op, e.Path, e.Code, ct, want, e.Snippet)
}

// Is makes errors.Is(err, ErrUnexpectedContentType) (and ErrNotJSON)
// true.
func (e *ContentTypeError) Is(target error) bool { return target == ErrUnexpectedContentType }

// DecodeError reports a response body that could not be decoded: invalid
// or truncated JSON or protobuf, garbage between watch events, a list whose items are
// not an array, an object that does not fit the Go type, an unknown watch
// event type, an object over the size limit. Err says what; errors.Is
// matches ErrObjectTooLarge for the size limits and ErrMalformed for
// everything else, and Err's own chain (io.ErrUnexpectedEOF for a
// truncated body, informer.ErrUnknownEventType, *json.SyntaxError, ...).
type DecodeError struct {
	// Op is "list" or "watch".
	Op string
	// Resource names the resource, like "pods/v1".
	Resource string
	// Offset is the position in the (decompressed) body where the problem
	// was found.
	Offset int64
	// Item is the index of the list item concerned, or -1.
	Item int
	// Recoverable is true when only this one watch event was unusable (its
	// type is unknown, its object does not fit the Go type) and the stream
	// can be read on: a later Next returns the next event. When false, the
	// stream is over.
	Recoverable bool
	// Err is the underlying problem.
	Err error
}

// Error describes the problem and where in the body it was found.
func (e *DecodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kube: %s %s: ", e.Op, e.Resource)
	if e.Item >= 0 {
		fmt.Fprintf(&b, "item %d: ", e.Item)
	}
	fmt.Fprintf(&b, "at byte %d: %v", e.Offset, e.Err)
	return b.String()
}

// Unwrap returns Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformed) true unless the problem is a size
// limit (ErrObjectTooLarge, matched through Err), and errors.Is(err,
// informer.ErrBadEvent) true when the stream goes on (Recoverable).
func (e *DecodeError) Is(target error) bool {
	switch target {
	case ErrMalformed:
		return !errors.Is(e.Err, ErrObjectTooLarge)
	case informer.ErrBadEvent:
		return e.Recoverable
	}
	return false
}

// statusError turns a Status into an *APIError.
func statusError(op, path string, code int, st *metav1.Status) *APIError {
	e := &APIError{Op: op, Path: path, Code: code}
	if st != nil {
		e.Status = *st
		e.Reason = st.Reason
		e.Message = st.Message
		if e.Code == 0 {
			e.Code = int(st.Code)
		}
		if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
			e.RetryAfter = time.Duration(st.Details.RetryAfterSeconds) * time.Second
		}
	}
	return e
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
func parseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if n, err := strconv.Atoi(h); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, 24*3600)) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}

// WatchListRefused reports whether an error answering a streaming list
// (sendInitialEvents) says that the server cannot do it: the WatchList
// feature is off, or the storage lacks what it needs.
func WatchListRefused(e *APIError) bool {
	switch e.Code {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusForbidden,
		http.StatusInternalServerError, http.StatusNotImplemented, 0:
	default:
		return false
	}
	if d := e.Status.Details; d != nil {
		for _, c := range d.Causes {
			// An API server too old for streaming lists rejects the
			// resourceVersionMatch that comes with them on a watch.
			if c.Field == "sendInitialEvents" || c.Field == "resourceVersionMatch" {
				return true
			}
		}
	}
	m := strings.ToLower(e.Message)
	for _, s := range []string{"sendinitialevents", "watchlist", "requestwatchprogress", "watch stream was requested", "resourceversionmatch is forbidden for watch"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

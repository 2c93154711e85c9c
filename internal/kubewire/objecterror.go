package kubewire

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/informer-go/informer/internal/jsondec"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ObjectError reports an object (a list item or a watched object) whose
// JSON does not decode into the Go type. It names the object and where in
// it decoding failed, and never quotes its content: errors end up in logs,
// and a Secret's data must not. The underlying error is kept only when it
// is one of the decoder's own (syntax and type errors, which carry no
// content); the message of an UnmarshalJSON method (such as
// *unstructured.Unstructured's, which quotes the whole object) is left out.
type ObjectError struct {
	// Namespace, Name and ResourceVersion name the object, as far as its
	// metadata could be read; empty otherwise.
	Namespace, Name, ResourceVersion string
	// Type is the Go type decoded into, like "*v1.Secret".
	Type string
	// Field is the path of the field that did not fit, like
	// "Secret.data", when known.
	Field string
	// Offset is the byte offset in the object's JSON where decoding
	// failed, or -1 when not known.
	Offset int64
	// What says what was wrong, without quoting the object.
	What string
	err  error
}

func (e *ObjectError) Error() string {
	var b strings.Builder
	b.WriteString("the object")
	if e.Name != "" {
		b.WriteByte(' ')
		if e.Namespace != "" {
			b.WriteString(e.Namespace)
			b.WriteByte('/')
		}
		b.WriteString(e.Name)
	}
	if e.ResourceVersion != "" {
		fmt.Fprintf(&b, " (resourceVersion %s)", e.ResourceVersion)
	}
	fmt.Fprintf(&b, " does not decode into %s", e.Type)
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %s", e.Field)
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, ": at byte %d of the object", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.What)
	return b.String()
}

// Unwrap returns the decoder's *jsondec.SyntaxError or
// *json.UnmarshalTypeError, or nil.
func (e *ObjectError) Unwrap() error { return e.err }

// objectName is the part of an object read to name it in an error.
type objectName struct {
	Metadata struct {
		Namespace       string `json:"namespace"`
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// JSONObjectError turns the error of decoding the JSON object v into obj
// into an *ObjectError that names the object and quotes nothing of it.
func JSONObjectError(v []byte, obj any, err error) error {
	e := &ObjectError{Type: fmt.Sprintf("%T", obj), Offset: -1}
	var n objectName
	if jsondec.UnmarshalKube(v, &n) == nil || n.Metadata.Name != "" {
		e.Namespace, e.Name, e.ResourceVersion = n.Metadata.Namespace, n.Metadata.Name, n.Metadata.ResourceVersion
	}
	var (
		se *jsondec.SyntaxError
		te *json.UnmarshalTypeError
		be base64.CorruptInputError
	)
	switch {
	case errors.As(err, &se):
		e.Offset, e.What, e.err = se.Offset, "invalid JSON", se
		if errors.Is(se, jsondec.ErrIncomplete) {
			e.What = "the JSON ends too early"
		}
	case errors.As(err, &te):
		e.Offset, e.err = te.Offset, te
		e.Field = te.Field
		kind, _, _ := strings.Cut(te.Value, " ") // "number 12": the number is content
		e.What = fmt.Sprintf("a JSON %s cannot be stored in a Go %s", kind, te.Type)
	case errors.As(err, &be):
		e.What = fmt.Sprintf("a string is not valid base64 (at its byte %d)", int64(be))
	case errors.Is(err, resource.ErrFormatWrong), errors.Is(err, resource.ErrNumeric), errors.Is(err, resource.ErrSuffix):
		e.What = "a quantity: " + err.Error() // apimachinery's fixed messages
	default:
		// An UnmarshalJSON or UnmarshalText method failed: its message may
		// quote the value (apimachinery's Unstructured quotes the whole
		// object), so only its type is given.
		e.What = fmt.Sprintf("a decoding method failed (%T; its message is left out, as it may quote the object)", err)
	}
	return e
}

// ProtoObjectError names the object whose protobuf message raw did not
// decode into obj, from its metadata (field 1 of every Kubernetes object
// message) when that can be read. The generated code's errors name field
// numbers and wire types, never values, so err's message is kept.
func ProtoObjectError(raw []byte, obj any, err error) error {
	e := &ObjectError{Type: fmt.Sprintf("%T", obj), Offset: -1, What: err.Error()}
	for b := raw; len(b) > 0; {
		f, rest, ferr := nextField(b)
		if ferr != nil {
			break
		}
		b = rest
		if f.num == 1 && f.wire == wireBytes {
			var meta metav1.ObjectMeta
			if Unmarshal(&meta, (*metav1.ObjectMeta).Unmarshal, f.data) == nil {
				e.Namespace, e.Name, e.ResourceVersion = meta.Namespace, meta.Name, meta.ResourceVersion
			}
			break
		}
	}
	return e
}

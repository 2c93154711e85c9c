package httpsrc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
)

// decoder makes a new T and decodes one object into it.
type decoder[T informer.Object] struct {
	elem reflect.Type        // what T points to
	key  informer.KeyFunc[T] // Options.Key; nil: the object must have a name
}

func newDecoder[T informer.Object](key informer.KeyFunc[T]) (decoder[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer {
		return decoder[T]{}, fmt.Errorf("%w: T must be a pointer type, not %s", ErrInvalidOptions, t)
	}
	return decoder[T]{elem: t.Elem(), key: key}, nil
}

// decode decodes raw into a new T with encoding/json's semantics
// (jsondec.Unmarshal, not the Kubernetes UnmarshalKube: the service is not
// Kubernetes). Its error never quotes raw.
func (d decoder[T]) decode(raw []byte) (T, error) {
	obj := reflect.New(d.elem).Interface().(T)
	if err := jsondec.Unmarshal(raw, obj); err != nil {
		var zero T
		msg := reason(err) // not wrapped: it may quote raw
		if name := objectName(raw); name != "" {
			msg = name + ": " + msg
		}
		return zero, errors.New(msg)
	}
	if d.key == nil {
		if obj.GetName() == "" {
			var zero T
			return zero, ErrNoKey
		}
		return obj, nil
	}
	if key, err := d.key(obj); err != nil || key == "" {
		var zero T
		if err != nil {
			return zero, fmt.Errorf("%w: Options.Key: %w", ErrNoKey, err)
		}
		return zero, ErrNoKey
	}
	return obj, nil
}

// reason describes a decoding error without the input it was decoding:
// syntax errors say where, type errors which field and types; any other
// (an UnmarshalJSON method's, which may quote what it read) only its type.
func reason(err error) string {
	var se *jsondec.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, jsondec.ErrIncomplete):
		return "the JSON ends before its value does (a body cut short?)"
	case errors.As(err, &se):
		return se.Error()
	case errors.Is(err, errMalformedList):
		return err.Error()
	case errors.As(err, new(errAfterValue)):
		return err.Error()
	case errors.As(err, &te):
		return fmt.Sprintf("cannot decode a JSON %s into field %q of type %s", te.Value, te.Field, te.Type)
	default:
		return fmt.Sprintf("the object's decoder failed (%T)", err)
	}
}

// objectName returns "namespace/name" (or "name") from the metadata of an
// object that did not decode, for its error, or "" if they are not plain
// names: an error names the object, never its content.
func objectName(raw []byte) string {
	name := metaName(raw, "name")
	if name == "" {
		return ""
	}
	if ns := metaName(raw, "namespace"); ns != "" {
		return ns + "/" + name
	}
	return name
}

// metaName returns metadata.field of raw if it is a string of at most 253
// printable ASCII characters without spaces or quotes, else "".
func metaName(raw []byte, field string) string {
	v, err := pointer{"metadata", field}.find(raw)
	if err != nil || len(v) < 2 || v[0] != '"' || len(v) > 253+2 {
		return ""
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return ""
		}
	}
	return string(s)
}

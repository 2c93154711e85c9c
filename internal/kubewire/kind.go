package kubewire

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrWrongKind matches a *KindError: the server sent objects of another
// kind than the Source expects, because the Resource and the object type
// T do not belong together (kube.New[*corev1.Pod] over "configmaps").
var ErrWrongKind = errors.New("kube: wrong kind")

// KindError reports a list or a watched object whose kind is not the one
// expected: the Resource names another collection than T describes.
// errors.Is(err, ErrWrongKind) is true.
type KindError struct {
	// Op is "list" or "watch".
	Op string
	// Resource names the resource, like "configmaps/v1".
	Resource string
	// Got is the kind the server sent, like "ConfigMapList".
	Got string
	// Want is the kind expected, like "PodList".
	Want string
	// From says where Want comes from: "Resource.Kind" or "the Go type
	// name of T".
	From string
	// inEvent is set when the error is a watch event's, inside a
	// *DecodeError that already names the operation and resource.
	inEvent bool
}

func (e *KindError) Error() string {
	prefix := fmt.Sprintf("kube: %s %s: ", e.Op, e.Resource)
	if e.inEvent {
		prefix = ""
	}
	hint := "check that the Resource and the object type belong together"
	if e.From != "Resource.Kind" {
		hint += ", or set Resource.Kind, or Options.DisableKindCheck when the Go type's name is not the Kind"
	}
	return fmt.Sprintf("%sthe server sent %s, expected %s (from %s): %s", prefix, e.Got, e.Want, e.From, hint)
}

// Is makes errors.Is(err, ErrWrongKind) true.
func (e *KindError) Is(target error) bool { return target == ErrWrongKind }

// KindRule is what a Source expects of the kinds it reads, and how it
// fills those of Unstructured objects.
type KindRule struct {
	res  string // for errors
	Want string // the object kind expected, "" for any
	from string // where want comes from, for errors

	// unstructured is true when T is *unstructured.Unstructured: list items
	// get the list's apiVersion and kind, watched objects without them
	// get fill's.
	Unstructured bool
	fill         schema.GroupVersionKind // from Resource; Kind may be ""

	mu       sync.Mutex
	listKind schema.GroupVersionKind // the item kind of the last list read
}

// NewKindRule returns the rule for objects of type t read from the
// resource res (its group, version and, when known, kind).
func NewKindRule(t reflect.Type, res schema.GroupVersionKind, name string, disable bool) *KindRule {
	r := &KindRule{res: name, fill: res}
	switch t {
	case reflect.TypeFor[*unstructured.Unstructured]():
		r.Unstructured = true
		return r
	case reflect.TypeFor[*metav1.PartialObjectMetadata]():
		return r
	}
	switch {
	case res.Kind != "":
		r.Want, r.from = res.Kind, "Resource.Kind"
	case !disable && t.Kind() == reflect.Pointer && t.Elem().Name() != "":
		name := t.Elem().Name() // widget holds Widgets: compared ignoring case
		r.Want, r.from = strings.ToUpper(name[:1])+name[1:], fmt.Sprintf("the Go type name of T, %s", t)
	}
	return r
}

// checkList checks a list's kind, when the list has one: it must be the
// expected kind + "List". A list of another kind is a *KindError.
func (r *KindRule) checkList(kind string) error {
	// A kind that is no list's is left to the decoder ("not a list").
	if r == nil || r.Want == "" || !strings.HasSuffix(kind, "List") || r.same(kind, r.Want+"List") {
		return nil
	}
	return &KindError{Op: "list", Resource: r.res, Got: kind, Want: r.Want + "List", From: r.from}
}

// checkObject checks a watched object's kind, when it has one.
func (r *KindRule) checkObject(obj any) error {
	if r == nil || r.Want == "" {
		return nil
	}
	k, ok := obj.(Kinded)
	if !ok {
		return nil
	}
	if kind := k.GetObjectKind().GroupVersionKind().Kind; kind != "" && !r.same(kind, r.Want) {
		return &KindError{Op: "watch", Resource: r.res, Got: kind, Want: r.Want, From: r.from, inEvent: true}
	}
	return nil
}

// CheckAnswer checks the kind of an object a Client's call (op) read:
// as checkObject, but the error names op and not a watch event.
func (r *KindRule) CheckAnswer(op string, obj any) error {
	err := r.checkObject(obj)
	if ke, ok := err.(*KindError); ok {
		ke.Op, ke.inEvent = op, false
	}
	return err
}

// same compares a kind the server sent with the one expected: exactly
// for Resource.Kind, ignoring case for a Go type name (an unexported
// type widget holds Widgets).
func (r *KindRule) same(got, want string) bool {
	if r.from == "Resource.Kind" {
		return got == want
	}
	return strings.EqualFold(got, want)
}

// itemKind returns the apiVersion and kind of a list's items from the
// list's: "v1", "ConfigMapList" → "v1", "ConfigMap". It remembers them
// for watched objects.
func (r *KindRule) itemKind(apiVersion, listKind string) (string, string) {
	kind, ok := strings.CutSuffix(listKind, "List")
	if !ok || kind == "" || apiVersion == "" {
		return r.fillFor()
	}
	r.mu.Lock()
	r.listKind = schema.FromAPIVersionAndKind(apiVersion, kind)
	r.mu.Unlock()
	return apiVersion, kind
}

// fillFor returns the apiVersion and kind to give an Unstructured object
// that has none: the last list's, or the Resource's; kind is "" when
// neither is known.
func (r *KindRule) fillFor() (string, string) {
	r.mu.Lock()
	gvk := r.listKind
	r.mu.Unlock()
	if gvk.Kind == "" {
		gvk = r.fill
	}
	if gvk.Kind == "" {
		return "", ""
	}
	return gvk.GroupVersion().String(), gvk.Kind
}

// WithTypeMeta returns the JSON object v with "apiVersion" and "kind"
// members put first; members of v with the same names come later and
// win, so an object that has its own keeps them.
func WithTypeMeta(v []byte, apiVersion, kind string) []byte {
	if kind == "" || len(v) < 2 || v[0] != '{' {
		return v
	}
	b := make([]byte, 0, len(v)+len(apiVersion)+len(kind)+32)
	b = append(b, `{"apiVersion":`...)
	b = appendJSONString(b, apiVersion)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, kind)
	rest := v[1:]
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\r' || rest[i] == '\n') {
		i++
	}
	if i < len(rest) && rest[i] != '}' {
		b = append(b, ',')
	}
	return append(b, rest...)
}

// appendJSONString appends s as a JSON string; kinds and API versions are
// plain ASCII names, anything else is escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			b = fmt.Appendf(b, `\u%04x`, c)
			continue
		}
		b = append(b, c)
	}
	return append(b, '"')
}

package typed

import (
	"fmt"
	"reflect"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// view names what an informer over T caches, for its name: "" for a typed
// one, " (dynamic)" or " (metadata)", and its transform's name if any.
func view[T informer.Object](transformName string) string {
	var s string
	switch any(*new(T)).(type) {
	case *unstructured.Unstructured:
		s = " (dynamic)"
	case *metav1.PartialObjectMetadata:
		s = " (metadata)"
	}
	if transformName != "" {
		s += " transform " + transformName
	}
	return s
}

// uniqueName returns name, or if an informer of the factory has it
// already (the same resource as another Go type, or with an unnamed
// transform), name with the type, then a number; the caller holds f.mu.
func (f *Factory) uniqueName(name string, t reflect.Type) string {
	taken := func(n string) bool {
		for _, e := range f.entries {
			if e.name == n {
				return true
			}
		}
		return false
	}
	if !taken(name) {
		return name
	}
	name += " as " + t.String()
	n := name
	for i := 2; taken(n); i++ {
		n = fmt.Sprintf("%s #%d", name, i)
	}
	return n
}

// transformID names a transform for sharing: its name, or its code.
func transformID[T any](fn func(T) (T, error), name string) string {
	switch {
	case name != "":
		return "name:" + name
	case fn == nil:
		return ""
	default:
		return fmt.Sprintf("func:%#x", reflect.ValueOf(fn).Pointer())
	}
}

func describe(res, ns, labels, fields string) string {
	s := res
	if ns != "" {
		s += " in " + ns
	}
	if labels != "" {
		s += " labels " + labels
	}
	if fields != "" {
		s += " fields " + fields
	}
	return s
}

// managedFieldsSetter is every object whose managedFields can be
// dropped: all metav1.Object types, Unstructured, PartialObjectMetadata.
type managedFieldsSetter interface {
	SetManagedFields([]metav1.ManagedFieldsEntry)
}

// transform returns an informer's transform: managedFields dropped when
// drop is set, then the user's.
func transform[T informer.Object](drop bool, user func(T) (T, error)) func(T) (T, error) {
	if !drop {
		return user
	}
	return func(obj T) (T, error) {
		if m, ok := any(obj).(managedFieldsSetter); ok {
			m.SetManagedFields(nil)
		}
		if user != nil {
			return user(obj)
		}
		return obj, nil
	}
}

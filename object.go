package informer

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// Object is what an informer needs to know about the objects it caches: where
// an object lives (namespace and name), which version of it this is, and its
// labels for selector-based listing.
//
// Every Kubernetes type satisfies Object through metav1.Object (for example
// *corev1.Pod, *metav1.PartialObjectMetadata and *unstructured.Unstructured),
// and any plain struct can implement it with four methods. Cluster-scoped
// objects return an empty namespace.
//
// Objects handed to and returned by this package are shared between the cache,
// every handler and every reader: treat them as immutable. Copy an object
// before changing it.
type Object interface {
	GetNamespace() string
	GetName() string
	GetResourceVersion() string
	GetLabels() map[string]string
}

// KeyFunc returns the key under which obj is stored. Keys must be unique per
// object and stable across versions of the same object. A KeyFunc is user
// code: the library never calls it while holding one of its locks.
type KeyFunc[T Object] func(obj T) (string, error)

// MetaKey is the default KeyFunc: "namespace/name", or "name" for objects
// whose namespace is empty. It returns ErrNilObject for a nil object and
// ErrEmptyName for an object without a name.
func MetaKey[T Object](obj T) (string, error) {
	if isNil(obj) {
		return "", ErrNilObject
	}
	name := obj.GetName()
	if name == "" {
		return "", ErrEmptyName
	}
	ns := obj.GetNamespace()
	if ns == "" {
		return name, nil
	}
	return ns + "/" + name, nil
}

// appendMetaKey appends MetaKey(obj) to dst, and reports false (leaving the
// error to MetaKey) for a nil object or an empty name.
func appendMetaKey[T Object](dst []byte, obj T) ([]byte, bool) {
	return appendMetaKeyAs(false, dst, obj)
}

// appendMetaKeyAs is appendMetaKey for a T known to be a pointer type
// when ptr is true (see isNilAs).
func appendMetaKeyAs[T Object](ptr bool, dst []byte, obj T) ([]byte, bool) {
	if isNilAs(ptr, obj) {
		return dst, false
	}
	name := obj.GetName()
	if name == "" {
		return dst, false
	}
	if ns := obj.GetNamespace(); ns != "" {
		dst = append(dst, ns...)
		dst = append(dst, '/')
	}
	return append(dst, name...), true
}

// SplitKey splits a key made by MetaKey into its namespace and name. The
// namespace is empty for a cluster-scoped key. A key with more than one "/"
// or an empty part is an error wrapping ErrInvalidKey.
func SplitKey(key string) (namespace, name string, err error) {
	ns, n, found := strings.Cut(key, "/")
	switch {
	case !found && key != "":
		return "", key, nil
	case found && ns != "" && n != "" && !strings.Contains(n, "/"):
		return ns, n, nil
	}
	return "", "", fmt.Errorf("%w: %q", ErrInvalidKey, key)
}

// pointerType reports whether T is a pointer type, the usual T: a hot
// path reads it once (a field set by its constructor) and checks for nil
// with isNilAs.
func pointerType[T any]() bool { return reflect.TypeFor[T]().Kind() == reflect.Pointer }

// isNilAs is isNil for a T known to be a pointer type when ptr is true
// (pointerType): one comparison.
func isNilAs[T any](ptr bool, obj T) bool {
	if ptr {
		return *(*unsafe.Pointer)(unsafe.Pointer(&obj)) == nil
	}
	return isNil(obj)
}

// isNil reports whether obj is nil, including a typed nil pointer, map, slice,
// func, chan or interface stored in T.
func isNil[T any](obj T) bool {
	if reflect.TypeFor[T]().Kind() == reflect.Pointer {
		// The usual T, on every event's path: a pointer is one word, read
		// as such (half the instructions of reflect.ValueOf's way).
		return *(*unsafe.Pointer)(unsafe.Pointer(&obj)) == nil
	}
	v := any(obj)
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// keyOf runs keyFunc on obj, refusing nil objects before user code sees them.
func keyOf[T Object](keyFunc KeyFunc[T], obj T) (string, error) {
	if isNil(obj) {
		return "", ErrNilObject
	}
	key, err := keyFunc(obj)
	if err != nil {
		if errors.Is(err, ErrNilObject) || errors.Is(err, ErrEmptyName) {
			return "", err
		}
		return "", &KeyError{Err: err}
	}
	if key == "" {
		return "", &KeyError{Err: ErrEmptyName}
	}
	return key, nil
}

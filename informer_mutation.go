package informer

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
)

// ErrObjectMutated is matched (errors.Is) by a *MutationError.
var ErrObjectMutated = errors.New("informer: a cached object was changed after it was handed over")

// MutationError reports an object that changed after the informer put it
// in the cache and handed it to handlers: someone (a handler, a
// transform, code reading the Lister) wrote into it. With the decoders'
// structural sharing (the Sharing option of source/kube), such a write may
// have changed many objects at once. It names the object; it never
// quotes its content.
type MutationError struct {
	Key             string
	ResourceVersion string
	// When says when it was found: "on a later event for the key" or
	// "when Run ended".
	When string
}

func (e *MutationError) Error() string {
	return fmt.Sprintf("informer: the cached object %q at resourceVersion %q was changed after it was handed over (found %s): objects from the cache are read-only; copy before writing", e.Key, e.ResourceVersion, e.When)
}

// Is makes errors.Is(err, ErrObjectMutated) true.
func (e *MutationError) Is(target error) bool { return target == ErrObjectMutated }

// MutationDetectorEnv is the environment variable that turns the mutation
// detector on for every informer of the process (Options.DetectMutations):
// "1" or "true" reports mutations; "panic" panics at the first one, which
// is what the project's own tests use (test.sh). client-go's
// KUBE_CACHE_MUTATION_DETECTOR=true is honoured too, as "1".
const MutationDetectorEnv = "INFORMER_MUTATION_DETECTOR"

// detectorMode reads the environment: 0 off, 1 report, 2 panic.
func detectorMode(opt bool) int {
	if opt {
		return 1 // asked for in code: report, whatever the environment says
	}
	switch strings.ToLower(os.Getenv(MutationDetectorEnv)) {
	case "panic":
		return 2
	case "1", "true":
		return 1
	}
	if strings.ToLower(os.Getenv("KUBE_CACHE_MUTATION_DETECTOR")) == "true" {
		return 1
	}
	return 0
}

// mutationDetector keeps a deep copy of every object handed to the cache,
// by key, and compares the object with it when the key's next change
// replaces or deletes it, and for every key when Run ends. It is used by
// the process loop only (no lock).
type mutationDetector[T Object] struct {
	panics bool
	copies map[string]snapshot[T]
	copyFn func(T) T
}

type snapshot[T Object] struct {
	obj, copy T
}

func newMutationDetector[T Object](mode int) *mutationDetector[T] {
	if mode == 0 {
		return nil
	}
	return &mutationDetector[T]{panics: mode == 2, copies: map[string]snapshot[T]{}, copyFn: deepCopyFunc[T]()}
}

// handedOver records obj, just put in the cache under key; the object it
// replaces is checked first.
func (m *mutationDetector[T]) handedOver(key string, obj T) error {
	err := m.check(key, "on a later event for the key")
	m.copies[key] = snapshot[T]{obj, m.copyFn(obj)}
	return err
}

// removed checks and forgets the object cached under key.
func (m *mutationDetector[T]) removed(key string) error {
	err := m.check(key, "on a later event for the key")
	delete(m.copies, key)
	return err
}

// checkAll checks every object still recorded.
func (m *mutationDetector[T]) checkAll(when string) []error {
	var errs []error
	for key := range m.copies {
		if err := m.check(key, when); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func (m *mutationDetector[T]) check(key, when string) error {
	s, ok := m.copies[key]
	if !ok || reflect.DeepEqual(s.obj, s.copy) {
		return nil
	}
	err := &MutationError{Key: key, ResourceVersion: s.copy.GetResourceVersion(), When: when}
	if m.panics {
		panic(err)
	}
	return err
}

// deepCopyFunc returns T's DeepCopy method when it has one returning T
// (the types of k8s.io/api do), else a reflect-based deep copy of what
// is exported (unexported fields are copied as they are).
func deepCopyFunc[T Object]() func(T) T {
	if m, ok := reflect.TypeFor[T]().MethodByName("DeepCopy"); ok &&
		m.Type.NumIn() == 1 && m.Type.NumOut() == 1 && m.Type.Out(0) == reflect.TypeFor[T]() {
		return func(obj T) T {
			if isNil(obj) {
				return obj
			}
			return m.Func.Call([]reflect.Value{reflect.ValueOf(obj)})[0].Interface().(T)
		}
	}
	return func(obj T) T {
		v := reflect.ValueOf(&obj).Elem()
		c := reflect.New(v.Type()).Elem()
		deepCopyValue(c, v, map[uintptr]reflect.Value{})
		return c.Interface().(T)
	}
}

// deepCopyValue sets dst (settable) to a deep copy of src; seen maps the
// pointers already copied (cycles, shared values) to their copies.
func deepCopyValue(dst, src reflect.Value, seen map[uintptr]reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			deepCopyPointer(dst, src, seen)
		}
	case reflect.Struct:
		dst.Set(src) // unexported fields as they are
		for i := range src.NumField() {
			if dst.Field(i).CanSet() {
				deepCopyValue(dst.Field(i), src.Field(i), seen)
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		c := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			deepCopyValue(c.Index(i), src.Index(i), seen)
		}
		dst.Set(c)
	case reflect.Array:
		for i := range src.Len() {
			deepCopyValue(dst.Index(i), src.Index(i), seen)
		}
	case reflect.Map:
		if !src.IsNil() {
			deepCopyMap(dst, src, seen)
		}
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		v := reflect.New(src.Elem().Type()).Elem()
		deepCopyValue(v, src.Elem(), seen)
		dst.Set(v)
	default:
		dst.Set(src)
	}
}

// deepCopyPointer copies the non-nil pointer src into dst, once per
// pointer: a second pointer to the same value points to the same copy.
func deepCopyPointer(dst, src reflect.Value, seen map[uintptr]reflect.Value) {
	if c, ok := seen[src.Pointer()]; ok && c.Type() == src.Type() {
		dst.Set(c)
		return
	}
	c := reflect.New(src.Type().Elem())
	seen[src.Pointer()] = c
	deepCopyValue(c.Elem(), src.Elem(), seen)
	dst.Set(c)
}

// deepCopyMap copies the non-nil map src into dst, values deeply.
func deepCopyMap(dst, src reflect.Value, seen map[uintptr]reflect.Value) {
	c := reflect.MakeMapWithSize(src.Type(), src.Len())
	for it := src.MapRange(); it.Next(); {
		v := reflect.New(src.Type().Elem()).Elem()
		deepCopyValue(v, it.Value(), seen)
		c.SetMapIndex(it.Key(), v)
	}
	dst.Set(c)
}

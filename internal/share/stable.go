package share

import (
	"reflect"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Values that change when read. resource.Quantity's String method caches
// the text it formats in the Quantity when the Quantity holds none (a
// quantity parsed from text that is not canonical, such as "1024Mi" or
// "0.5", or a zero one), and fmt, klog and the generated String methods
// of the API types call it through a pointer. Reading one object would
// then write into every object that shares the value (a data race between
// readers of different objects, and a change that a mutation detector
// reports on all of them), so a value that holds such a Quantity where it
// can be addressed (not as a map's value, which is read as a copy), or one
// whose number is an *inf.Dec (shared by copies of it, and changed by
// their Add and Sub), does not enter a table.

var quantityType = reflect.TypeFor[resource.Quantity]()

// The offsets of Quantity's cached text (s) and of its infDecAmount (d),
// whose only field is the *inf.Dec.
var quantityS, quantityD, quantityDec = func() (uintptr, uintptr, []int) {
	s, ok1 := quantityType.FieldByName("s")
	d, ok2 := quantityType.FieldByName("d")
	if !ok1 || !ok2 || s.Type.Kind() != reflect.String || d.Type.NumField() != 1 || d.Type.Field(0).Type.Kind() != reflect.Pointer {
		panic("share: resource.Quantity's layout changed")
	}
	return s.Offset, d.Offset + d.Type.Field(0).Offset, append(d.Index, 0)
}()

// Stable reports whether the value of type t at p (a slice, map or
// pointer variable about to be shared) stays as it is when read: false
// when it holds a Quantity that String would write into (see above).
// Types that cannot hold a Quantity answer at once.
func Stable(t reflect.Type, p unsafe.Pointer) bool {
	if !holdsQuantity(t) {
		return true
	}
	return stable(reflect.NewAt(t, p).Elem())
}

func stable(v reflect.Value) bool {
	t := v.Type()
	if t == quantityType {
		return quantityStable(v)
	}
	if !holdsQuantity(t) {
		return true
	}
	switch v.Kind() {
	case reflect.Pointer:
		return v.IsNil() || stable(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !stable(v.Index(i)) {
				return false
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if !stable(v.Field(i)) {
				return false
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !stable(it.Value()) {
				return false
			}
		}
	}
	return true
}

// quantityStable reports whether reading the Quantity v leaves it as it
// is: its text is cached and its number is not an *inf.Dec.
func quantityStable(v reflect.Value) bool {
	if !v.CanAddr() {
		// A map's value, read as a copy (String writes into the copy),
		// but the copy shares its *inf.Dec.
		return v.FieldByIndex(quantityDec).IsNil()
	}
	p := v.Addr().UnsafePointer()
	return *(*string)(unsafe.Add(p, quantityS)) != "" && *(*unsafe.Pointer)(unsafe.Add(p, quantityD)) == nil
}

// holdsQuantity reports whether a value of type t can hold a Quantity.
func holdsQuantity(t reflect.Type) bool {
	if h, ok := holds.Load(t); ok {
		return h.(bool)
	}
	h := holdsIn(t, map[reflect.Type]bool{})
	holds.Store(t, h)
	return h
}

var holds sync.Map // reflect.Type → bool

func holdsIn(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == quantityType {
		return true
	}
	if h, ok := holds.Load(t); ok {
		return h.(bool)
	}
	if seen[t] {
		return false // a cycle: what it holds is found on the way in
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holdsIn(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsIn(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

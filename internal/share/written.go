package share

import (
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// Written reports a value the table held that was found written into:
// its fingerprint no longer matched when its bytes were met again. The
// table evicted it; the object being decoded got a value of its own,
// decoded from the bytes. It says where, never what the value held.
type Written struct {
	// Type is the value's Go type ([]v1.EnvVar, map[string]string).
	Type reflect.Type
	// Inner is where in the value it first differs from what its bytes
	// decode to, by JSON field names and indices ("[1].value"; ".x" for
	// a map, whose keys are not named); "" when the value is itself
	// what changed (a slice of other length), and "(rewritten with an
	// equal value)" when nothing differs but the memory was written.
	Inner string

	fresh  unsafe.Pointer // the value decoded in its place, if entered
	nFresh int
	old    unsafe.Pointer // the written value
	n      int
	raw    []byte // its bytes, until Seal
	key    Key
}

// Path returns where the value decoded in the written one's place sits
// in obj (a pointer to the decoded object), by JSON field names:
// "spec.containers[0].env"; "" when it cannot be found (the fresh value
// did not enter the table, or obj is another object).
func (w Written) Path(obj any) string {
	if w.fresh == nil {
		return ""
	}
	v := reflect.ValueOf(obj)
	var path []string
	if !locate(v, w.fresh, &path, 0) {
		return ""
	}
	var b strings.Builder
	for i := len(path) - 1; i >= 0; i-- {
		seg := path[i]
		if b.Len() > 0 && !strings.HasPrefix(seg, "[") {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// locate finds the slice, map or pointer in v that refers to target,
// appending the path to it innermost first.
func locate(v reflect.Value, target unsafe.Pointer, path *[]string, depth int) bool {
	if depth > 64 {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return false
		}
		if v.UnsafePointer() == target && depth > 0 {
			return true
		}
		return locate(v.Elem(), target, path, depth+1)
	case reflect.Map:
		if v.IsNil() {
			return false
		}
		if v.UnsafePointer() == target {
			return true
		}
		for it := v.MapRange(); it.Next(); {
			if locate(it.Value(), target, path, depth+1) {
				*path = append(*path, "[…]")
				return true
			}
		}
	case reflect.Slice:
		if v.Len() > 0 && v.UnsafePointer() == target {
			return true
		}
		for i := range v.Len() {
			if locate(v.Index(i), target, path, depth+1) {
				*path = append(*path, "["+strconv.Itoa(i)+"]")
				return true
			}
		}
	case reflect.Interface:
		return !v.IsNil() && locate(v.Elem(), target, path, depth+1)
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if locate(v.Field(i), target, path, depth+1) {
				if name := jsonName(t.Field(i)); name != "" {
					*path = append(*path, name)
				}
				return true
			}
		}
	}
	return false
}

// jsonName is a field's name in JSON, "" for an embedded one.
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	switch {
	case name == "-":
		return f.Name
	case name != "":
		return name
	case f.Anonymous:
		return ""
	}
	return f.Name
}

// refValue is the value of slot type t set to data (n elements for a
// slice).
func refValue(t reflect.Type, data unsafe.Pointer, n int) reflect.Value {
	if t.Kind() == reflect.Slice {
		return reflect.NewAt(t, unsafe.Pointer(&sliceHeader{data, n, n})).Elem()
	}
	return reflect.NewAt(t, unsafe.Pointer(&data)).Elem()
}

// diff returns where a and b first differ ("" if at the top), and false
// when they do not.
func diff(a, b reflect.Value, depth int) (string, bool) {
	if depth > 64 {
		return "", true
	}
	if a.Kind() != b.Kind() {
		return "", true
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return "", a.IsNil() != b.IsNil()
		}
		if a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type() {
			return "", true
		}
		return diff(a.Elem(), b.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return "", true
		}
		for i := range a.Len() {
			if p, ok := diff(a.Index(i), b.Index(i), depth+1); ok {
				return "[" + strconv.Itoa(i) + "]" + p, true
			}
		}
		return "", false
	case reflect.Struct:
		for i := range a.NumField() {
			if p, ok := diff(a.Field(i), b.Field(i), depth+1); ok {
				name := jsonName(a.Type().Field(i))
				if name == "" {
					return p, true
				}
				return "." + name + p, true
			}
		}
		return "", false
	case reflect.Map:
		if a.Len() != b.Len() {
			return "", true
		}
		for it := a.MapRange(); it.Next(); {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() {
				return "", true
			}
			if _, ok := diff(it.Value(), bv, depth+1); ok {
				return "[…]", true // a key is content: not named
			}
		}
		return "", false
	}
	return "", !equalScalar(a, b)
}

// equalScalar compares two values of a kind without references by their
// memory (unexported fields cannot be read through reflect).
func equalScalar(a, b reflect.Value) bool {
	if a.Kind() == reflect.String {
		return stringOf(a) == stringOf(b)
	}
	n := a.Type().Size()
	if !a.CanAddr() || !b.CanAddr() {
		return a.Equal(b)
	}
	return string(unsafe.Slice((*byte)(a.Addr().UnsafePointer()), n)) == string(unsafe.Slice((*byte)(b.Addr().UnsafePointer()), n))
}

func stringOf(v reflect.Value) string {
	if v.CanAddr() {
		return *(*string)(v.Addr().UnsafePointer())
	}
	return v.String()
}

// explain fills w.Inner by comparing the written value with the fresh
// one.
func (w *Written) explain() {
	if w.fresh == nil {
		return
	}
	p, ok := diff(refValue(w.Type, w.old, w.n), refValue(w.Type, w.fresh, w.nFresh), 0)
	switch {
	case !ok:
		w.Inner = "(rewritten with an equal value)"
	default:
		w.Inner = p
	}
}

// Unshare gives the value v (addressable) memory of its own: every
// slice, map and pointer it reaches is replaced by a copy, so that a
// decode into v, which merges into what v refers to as encoding/json
// and protobuf do, writes into nothing another object may share.
func Unshare(v reflect.Value) {
	unshare(v, 0)
}

func unshare(v reflect.Value, depth int) {
	if depth > 10000 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(v.Elem())
		unshare(c.Elem(), depth+1)
		v.Set(c)
	case reflect.Slice:
		if v.IsNil() || !v.CanSet() {
			return
		}
		// The whole capacity: encoding/json decodes into the elements
		// past the length that a longer array reuses.
		c := reflect.MakeSlice(v.Type(), v.Cap(), v.Cap())
		reflect.Copy(c, v.Slice(0, v.Cap()))
		for i := range c.Len() {
			unshare(c.Index(i), depth+1)
		}
		v.Set(c.Slice(0, v.Len()))
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			unshare(e, depth+1)
			c.SetMapIndex(it.Key(), e)
		}
		v.Set(c)
	case reflect.Interface:
		if v.IsNil() || !v.CanSet() {
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		unshare(e, depth+1)
		v.Set(e)
	case reflect.Array:
		for i := range v.Len() {
			unshare(v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			unshare(v.Field(i), depth+1)
		}
	}
}

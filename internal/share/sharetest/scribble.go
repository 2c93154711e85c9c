// Package sharetest writes into decoded values as a careless program
// would, for the tests and fuzzers of structural sharing: whatever such
// writes do to the values decodes share, what a decode gives afterwards
// must equal its bytes.
package sharetest

import (
	"math/rand/v2"
	"reflect"
)

// Scribble makes one write, chosen by r, into what v (a pointer)
// reaches: a string or number set, a map key added or deleted, a slice
// element's string set, a slice shortened in place. It returns what it
// did ("" if v reaches nothing it can write).
func Scribble(v any, r *rand.Rand) string {
	var sites []site
	collect(reflect.ValueOf(v), "", &sites, 0)
	if len(sites) == 0 {
		return ""
	}
	s := sites[r.IntN(len(sites))]
	return s.write(r)
}

type site struct {
	v    reflect.Value // settable, or a map
	path string
}

func (s site) write(r *rand.Rand) string {
	v := s.v
	switch v.Kind() {
	case reflect.Map:
		if v.Len() > 0 && r.IntN(2) == 0 {
			k := v.MapKeys()[r.IntN(v.Len())]
			v.SetMapIndex(k, reflect.Value{})
			return s.path + ": a key deleted"
		}
		if v.Type().Key().Kind() != reflect.String {
			return ""
		}
		k := reflect.New(v.Type().Key()).Elem()
		k.SetString("scribbled")
		v.SetMapIndex(k, reflect.New(v.Type().Elem()).Elem())
		return s.path + ": a key added"
	case reflect.String:
		v.SetString(v.String() + "-scribbled")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Slice:
		v.SetLen(v.Len() - 1)
		return s.path + ": shortened"
	default:
		return ""
	}
	return s.path + ": set"
}

func collect(v reflect.Value, path string, sites *[]site, depth int) {
	if depth > 32 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collect(v.Elem(), path, sites, depth+1)
		}
	case reflect.Map:
		if !v.IsNil() && (v.CanSet() || v.CanInterface()) && v.Type().Key().Kind() == reflect.String {
			*sites = append(*sites, site{v, path})
		}
		for it := v.MapRange(); it.Next(); {
			collect(it.Value(), path+"[]", sites, depth+1) // read-only copies, but what they point to is reachable
		}
	case reflect.Slice:
		if v.Len() > 0 && v.CanSet() {
			*sites = append(*sites, site{v, path})
		}
		for i := range v.Len() {
			collect(v.Index(i), path+"[]", sites, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				collect(v.Field(i), path+"."+v.Type().Field(i).Name, sites, depth+1)
			}
		}
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.CanSet() {
			*sites = append(*sites, site{v, path})
		}
	}
}

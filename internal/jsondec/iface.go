package jsondec

import (
	"reflect"
)

// ifaceDec decodes into an interface. Like encoding/json, a non-nil
// pointer held by the interface is decoded through (except that null
// only goes through a pointer to a pointer); otherwise null sets the
// interface to nil, an empty interface gets a fresh map[string]any,
// []any, string, float64 or bool, and a non-empty one is a type error.
func ifaceDec(t reflect.Type) decFunc {
	empty := t.NumMethod() == 0
	return func(d *decoder, p ptr) error {
		if empty && *(*any)(p) == nil {
			if d.data[d.off] == 'n' {
				return d.null()
			}
			v, err := d.any()
			if err != nil {
				return err
			}
			*(*any)(p) = v
			return nil
		}
		v := reflect.NewAt(t, p).Elem()
		if !v.IsNil() {
			e := v.Elem()
			if e.Kind() == reflect.Pointer && !e.IsNil() && (d.data[d.off] != 'n' || e.Elem().Kind() == reflect.Pointer) {
				return rootCodec(e.Type()).dec(d, e.UnsafePointer())
			}
		}
		return plainIfaceDec(d, v)
	}
}

// plainIfaceDec decodes into the settable interface v, replacing what it
// holds.
func plainIfaceDec(d *decoder, v reflect.Value) error {
	if d.data[d.off] == 'n' {
		if err := d.null(); err != nil {
			return err
		}
		v.SetZero()
		return nil
	}
	if v.NumMethod() != 0 {
		return d.mismatch(v.Type())
	}
	x, err := d.any()
	if err != nil {
		return err
	}
	if x == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(x))
	}
	return nil
}

// any decodes the value at d.off into a map[string]any, []any, string,
// float64 (or int64, see anyNumber), bool or nil, as encoding/json does
// for an empty interface.
func (d *decoder) any() (any, error) {
	data := d.data
	switch c := data[d.off]; c {
	case '{':
		if err := d.open(); err != nil {
			return nil, err
		}
		m := make(map[string]any)
		c, err := d.ws()
		if err != nil {
			return nil, err
		}
		if c == '}' {
			d.off++
			d.depth--
			return m, nil
		}
		for {
			if c != '"' {
				return nil, errChar(d.off, c, "looking for beginning of object key string")
			}
			kb, err := d.str()
			if err != nil {
				return nil, err
			}
			k := string(kb)
			if err := d.colon(); err != nil {
				return nil, err
			}
			v, err := d.any()
			if err != nil {
				return nil, err
			}
			m[k] = v
			var more bool
			if c, more, err = d.next('}', "after object key:value pair"); err != nil {
				return nil, err
			}
			if more {
				continue
			}
			d.off++
			d.depth--
			return m, nil
		}
	case '[':
		if err := d.open(); err != nil {
			return nil, err
		}
		a := make([]any, 0)
		c, err := d.ws()
		if err != nil {
			return nil, err
		}
		if c == ']' {
			d.off++
			d.depth--
			return a, nil
		}
		for {
			v, err := d.any()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			var more bool
			if c, more, err = d.next(']', "after array element"); err != nil {
				return nil, err
			}
			if more {
				continue
			}
			d.off++
			d.depth--
			return a, nil
		}
	case '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return string(s), nil
	case 't':
		end, err := skipLiteral(data, d.off, "true")
		d.off = end
		return true, err
	case 'f':
		end, err := skipLiteral(data, d.off, "false")
		d.off = end
		return false, err
	case 'n':
		return nil, d.null()
	default:
		if c != '-' && c-'0' >= 10 {
			return nil, errChar(d.off, c, "looking for beginning of value")
		}
		start := d.off
		item, isInt, err := d.number()
		if err != nil {
			return nil, err
		}
		return d.anyNumber(item, isInt, start), nil
	}
}

// anyNumber converts the number item (at offset off) for an empty
// interface: a float64, or for UnmarshalKube an int64 when item is an
// integer that fits, as apimachinery does. Out of float64's range it is
// nil and a type error is saved, as in encoding/json.
func (d *decoder) anyNumber(item []byte, isInt bool, off int) any {
	if d.kube && isInt {
		if n, ok := parseInt(item, true); ok {
			return n
		}
	}
	f, ok := parseFloat(item, isInt, 64)
	if !ok {
		d.saveTypeError("number "+string(item), float64Type, off)
		return nil
	}
	return f
}

// colon consumes white space, a ':' and white space, and checks that a
// value follows.
func (d *decoder) colon() error {
	c, err := d.ws()
	if err != nil {
		return err
	}
	if c != ':' {
		return errChar(d.off, c, "after object key")
	}
	d.off++
	_, err = d.ws()
	return err
}

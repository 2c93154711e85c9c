package jsondec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"sync/atomic"
	"unsafe"
)

// sliceDec decodes a JSON array into a slice the way encoding/json does:
// elements already in the slice are decoded into in place, the slice
// grows as needed and is truncated to the array's length; an empty array
// gives an empty non-nil slice; null gives nil. A JSON string into a
// slice of a byte kind is base64.
//
// An empty slice (the usual case) is filled through a scratch slice kept
// by the decoder, then copied into one allocation of the exact size.
func (b *builder) sliceDec(t reflect.Type) decFunc {
	et := t.Elem()
	size := et.Size()
	elem := b.get(et, full)
	isBytes := et.Kind() == reflect.Uint8
	slot := newSlot()
	return func(d *decoder, p ptr) error {
		switch d.data[d.off] {
		case '[':
		case 'n':
			if err := d.null(); err != nil {
				return err
			}
			reflect.NewAt(t, p).Elem().SetZero()
			return nil
		case '"':
			if isBytes {
				return bytesDec(d, t, p)
			}
			return d.mismatch(t)
		default:
			return d.mismatch(t)
		}
		if err := d.open(); err != nil {
			return err
		}
		sv := reflect.NewAt(t, p).Elem()
		c, err := d.ws()
		if err != nil {
			return err
		}
		if c == ']' {
			d.off++
			d.depth--
			sv.Set(reflect.MakeSlice(t, 0, 0))
			return nil
		}
		fresh := sv.Cap() == 0
		dst := sv
		if fresh {
			dst = d.takeSlot(slot, t)
		}
		i := 0
		for {
			if i >= dst.Cap() {
				// Here len == cap == i: growing keeps every element.
				n := dst.Cap()
				if n == 0 {
					n = 4
				}
				dst.Grow(n)
			}
			if i >= dst.Len() {
				dst.SetLen(i + 1)
			}
			if err := elem.dec(d, unsafe.Add(dst.UnsafePointer(), uintptr(i)*size)); err != nil {
				return err
			}
			i++
			var more bool
			if c, more, err = d.next(']', "after array element"); err != nil {
				return err
			}
			if !more {
				break
			}
		}
		d.off++
		d.depth--
		if fresh {
			sv.Grow(i)
			sv.SetLen(i)
			reflect.Copy(sv, dst)
			dst.Clear()
			dst.SetLen(0)
			d.putSlot(slot, dst, size)
			return nil
		}
		if i < sv.Len() {
			sv.SetLen(i)
		}
		return nil
	}
}

// Slots are per-decoder scratch values of a fixed type (a slice to
// decode array elements into, a map element), indexed by a number each
// codec takes when it is built; decoders are pooled, so they are reused.
var slotCount atomic.Int32

func newSlot() int { return int(slotCount.Add(1)) - 1 }

// takeSlot returns the settable scratch value of slot, or a new one of
// type t; it is the caller's until putSlot (a nested use of the same
// codec gets a new one).
func (d *decoder) takeSlot(slot int, t reflect.Type) reflect.Value {
	if slot < len(d.slots) {
		if v := d.slots[slot]; v.IsValid() {
			d.slots[slot] = reflect.Value{}
			return v
		}
	}
	return reflect.New(t).Elem()
}

// putSlot gives a scratch value back, zeroed by the caller; large ones
// are dropped.
func (d *decoder) putSlot(slot int, v reflect.Value, elemSize uintptr) {
	if v.Kind() == reflect.Slice && uintptr(v.Cap())*elemSize > 64<<10 {
		return
	}
	if slot >= len(d.slots) {
		d.slots = append(d.slots, make([]reflect.Value, slot+1-len(d.slots))...)
	}
	d.slots[slot] = v
}

// bytesDec decodes a base64 JSON string into a byte slice.
func bytesDec(d *decoder, t reflect.Type, p ptr) error {
	s, err := d.str()
	if err != nil {
		return err
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		d.saveError(err)
		return nil
	}
	reflect.NewAt(t, p).Elem().SetBytes(b[:n])
	return nil
}

// arrayDec decodes a JSON array into a Go array: extra elements are
// skipped, missing ones zeroed; null leaves it alone.
func (b *builder) arrayDec(t reflect.Type) decFunc {
	et := t.Elem()
	size := et.Size()
	n := t.Len()
	elem := b.get(et, full)
	return func(d *decoder, p ptr) error {
		switch d.data[d.off] {
		case '[':
		case 'n':
			return d.null()
		default:
			return d.mismatch(t)
		}
		if err := d.open(); err != nil {
			return err
		}
		c, err := d.ws()
		if err != nil {
			return err
		}
		i := 0
		if c != ']' {
			for {
				if i < n {
					err = elem.dec(d, unsafe.Add(p, uintptr(i)*size))
				} else {
					err = d.skip()
				}
				if err != nil {
					return err
				}
				i++
				var more bool
				if c, more, err = d.next(']', "after array element"); err != nil {
					return err
				}
				if !more {
					break
				}
			}
		}
		d.off++
		d.depth--
		if i < n {
			av := reflect.NewAt(t, p).Elem()
			for ; i < n; i++ {
				av.Index(i).SetZero()
			}
		}
		return nil
	}
}

// mapDec decodes a JSON object into a map: a nil map is made, an existing
// one is added to; each value is decoded into a fresh zero element. Keys
// are strings, integers (a key that does not parse is a type error and
// its entry is dropped) or types whose pointer has UnmarshalText (or
// UnmarshalJSON, which gets the quoted key, as in encoding/json).
func (b *builder) mapDec(t reflect.Type) decFunc {
	kt, et := t.Key(), t.Elem()
	pk := reflect.PointerTo(kt)
	keyText := pk.Implements(textUnmarshalerType)
	keyJSON := keyText && pk.Implements(unmarshalerType)
	valid := keyText
	switch kt.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		valid = true
	}
	if !valid {
		return func(d *decoder, p ptr) error {
			if d.data[d.off] == 'n' {
				if err := d.null(); err != nil {
					return err
				}
				reflect.NewAt(t, p).Elem().SetZero()
				return nil
			}
			return d.mismatch(t)
		}
	}
	if !keyText && kt == stringType && et == stringType {
		return func(d *decoder, p ptr) error { return mapStringStringDec(d, t, p) }
	}
	elem := b.get(et, full)
	slot := newSlot()
	return func(d *decoder, p ptr) error {
		switch d.data[d.off] {
		case '{':
		case 'n':
			if err := d.null(); err != nil {
				return err
			}
			reflect.NewAt(t, p).Elem().SetZero()
			return nil
		default:
			return d.mismatch(t)
		}
		mv := reflect.NewAt(t, p).Elem()
		if mv.IsNil() {
			mv.Set(reflect.MakeMap(t))
		}
		if err := d.open(); err != nil {
			return err
		}
		ev := d.takeSlot(slot, et)
		ep := ev.Addr().UnsafePointer()
		var kv reflect.Value
		if !keyText {
			kv = reflect.New(kt).Elem()
		}
		c, err := d.ws()
		if err != nil {
			return err
		}
		if c == '}' {
			d.off++
			d.depth--
			return nil
		}
		for {
			if c != '"' {
				return errChar(d.off, c, "looking for beginning of object key string")
			}
			keyStart := d.off
			key, err := d.str()
			if err != nil {
				return err
			}
			keyEnd := d.off
			var ks string
			if kt.Kind() == reflect.String && !keyText {
				ks = intern(key)
			}
			if err := d.colon(); err != nil {
				return err
			}
			ev.SetZero()
			if err := elem.dec(d, ep); err != nil {
				return err
			}
			// The key is converted after the value, as encoding/json does.
			switch {
			case keyText:
				k := reflect.New(kt)
				var err error
				if keyJSON {
					err = k.Interface().(json.Unmarshaler).UnmarshalJSON(d.data[keyStart:keyEnd])
				} else {
					s := append([]byte(nil), d.unquote(d.data[keyStart:keyEnd])...)
					err = k.Interface().(encoding.TextUnmarshaler).UnmarshalText(s)
				}
				if err != nil {
					return err
				}
				mv.SetMapIndex(k.Elem(), ev)
			case kt.Kind() == reflect.String:
				kv.SetString(ks)
				mv.SetMapIndex(kv, ev)
			default:
				s := string(d.unquote(d.data[keyStart:keyEnd]))
				ok := true
				switch kt.Kind() {
				case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
					n, err := strconv.ParseInt(s, 10, 64)
					if ok = err == nil && !kv.OverflowInt(n); ok {
						kv.SetInt(n)
					}
				default:
					n, err := strconv.ParseUint(s, 10, 64)
					if ok = err == nil && !kv.OverflowUint(n); ok {
						kv.SetUint(n)
					}
				}
				if !ok {
					d.saveTypeError("number "+s, kt, keyStart+1)
				} else {
					mv.SetMapIndex(kv, ev)
				}
			}
			var more bool
			if c, more, err = d.next('}', "after object key:value pair"); err != nil {
				return err
			}
			if more {
				continue
			}
			d.off++
			d.depth--
			ev.SetZero()
			d.putSlot(slot, ev, 0)
			return nil
		}
	}
}

// mapStringStringDec is mapDec for map[string]string (labels,
// annotations, selectors), without reflect.
func mapStringStringDec(d *decoder, t reflect.Type, p ptr) error {
	switch d.data[d.off] {
	case '{':
	case 'n':
		if err := d.null(); err != nil {
			return err
		}
		*(*map[string]string)(p) = nil
		return nil
	default:
		return d.mismatch(t)
	}
	m := *(*map[string]string)(p)
	if m == nil {
		m = make(map[string]string)
		*(*map[string]string)(p) = m
	}
	if err := d.open(); err != nil {
		return err
	}
	c, err := d.ws()
	if err != nil {
		return err
	}
	if c == '}' {
		d.off++
		d.depth--
		return nil
	}
	for {
		if c != '"' {
			return errChar(d.off, c, "looking for beginning of object key string")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		k := intern(key)
		if err := d.colon(); err != nil {
			return err
		}
		var v string
		switch d.data[d.off] {
		case '"':
			s, err := d.str()
			if err != nil {
				return err
			}
			v = intern(s)
		case 'n':
			err = d.null()
		default:
			err = d.mismatch(stringType)
		}
		if err != nil {
			return err
		}
		m[k] = v
		var more bool
		if c, more, err = d.next('}', "after object key:value pair"); err != nil {
			return err
		}
		if more {
			continue
		}
		d.off++
		d.depth--
		return nil
	}
}

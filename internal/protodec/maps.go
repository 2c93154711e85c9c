package protodec

import "reflect"

// mapEntries decodes the run of entries of map field f that starts with
// the tag at start, whose first entry starts at i, into the map at p
// (made if nil). An entry is a message {1: key, 2: value}; a missing key
// or value is the zero value (a non-nil empty one for []byte and named
// slices), and a later key or value replaces an earlier one in the same
// entry, as in the generated code.
func (d *decoder) mapEntries(f *fieldCodec, p ptr, start, i, end int) (int, error) {
	n, runEnd := d.run(start, end)
	if d.share == nil {
		return d.entries(f, p, n, i, end)
	}
	mp := (*ptr)(p)
	if *mp != nil {
		// A second run, added to a map that may be shared by now.
		return i, errConflict(start)
	}
	if runEnd-start < f.minRaw {
		return d.entries(f, p, n, i, end)
	}
	return d.sharedRun(f, start, runEnd, p, false, func() (int, error) {
		return d.entries(f, p, n, i, end)
	})
}

// entries decodes the n entries of map field f whose first entry starts
// at i into the map at p.
func (d *decoder) entries(f *fieldCodec, p ptr, n, i, end int) (int, error) {
	if f.mapSS {
		return d.stringMap(f, p, n, i, end)
	}
	mv := reflect.NewAt(f.typ, p).Elem()
	if mv.IsNil() {
		mv.Set(reflect.MakeMapWithSize(f.typ, n))
	}
	kh, vh := d.holder(f.typ)
	kp, vp := kh.Addr().UnsafePointer(), vh.Addr().UnsafePointer()
	direct := d.direct
	d.direct = true // the map copies keys and values: no pending strings
	defer func() {
		d.direct = direct
		kh.SetZero() // the pooled holders keep nothing alive
		vh.SetZero()
	}()
	for k := range n {
		if k > 0 {
			_, j, _ := d.varint(i, end) // the tag, checked by run
			i = j
		}
		s, e, err := d.length(i, end)
		if err != nil {
			return i, err
		}
		kh.SetZero()
		d.initValue(&f.val, vh)
		for j := s; j < e; {
			num, wt, at, err := d.tag(j, e)
			if err != nil {
				return e, err.(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
			}
			var v *valCodec
			var hp ptr
			switch num {
			case 1:
				v, hp = &f.key, kp
			case 2:
				v, hp = &f.val, vp
				d.initValue(v, vh)
			default:
				if j, err = d.skip(wt, num, at, e); err != nil {
					return e, err.(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
				}
				continue
			}
			if w := v.enc.wire(); wt != w {
				return e, wrongWire(j, wt, w).(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
			}
			x, vs, ve, next, err := d.value(wt, at, e)
			if err == nil {
				err = d.set(v, hp, x, vs, ve)
			}
			if err != nil {
				return e, err.(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
			}
			j = next
		}
		mv.SetMapIndex(kh, vh)
		i = e
	}
	return i, nil
}

// holder is a reusable key and value of one map type.
type holder struct {
	t        reflect.Type
	key, val reflect.Value
}

// holder returns the decoder's key and value holders for map type t.
// They are left zero after use, so they keep nothing alive.
func (d *decoder) holder(t reflect.Type) (reflect.Value, reflect.Value) {
	for _, h := range d.holders {
		if h.t == t {
			return h.key, h.val
		}
	}
	h := holder{t, reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()}
	if len(d.holders) < 16 {
		d.holders = append(d.holders, h)
	}
	return h.key, h.val
}

// initValue resets a map value holder to what a missing value decodes to.
func (d *decoder) initValue(v *valCodec, h reflect.Value) {
	h.SetZero()
	switch v.enc {
	case encBytes, encWrappedList:
		h.Set(reflect.MakeSlice(v.typ, 0, 0))
	}
}

// stringMap is mapEntries for a map[string]string, without reflect.
func (d *decoder) stringMap(f *fieldCodec, p ptr, n, i, end int) (int, error) {
	m := *(*map[string]string)(p)
	if m == nil {
		m = make(map[string]string, n)
		*(*map[string]string)(p) = m
	}
	for k := range n {
		if k > 0 {
			_, j, _ := d.varint(i, end) // the tag, checked by run
			i = j
		}
		s, e, err := d.length(i, end)
		if err != nil {
			return i, err
		}
		var key, val string
		for j := s; j < e; {
			num, wt, at, err := d.tag(j, e)
			if err != nil {
				return e, err.(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
			}
			if num > 2 {
				if j, err = d.skip(wt, num, at, e); err != nil {
					return e, err.(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
				}
				continue
			}
			if wt != wireBytes {
				return e, wrongWire(j, wt, wireBytes).(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
			}
			vs, ve, err := d.length(at, e)
			if err != nil {
				return e, err.(*decodeError).in("[entry " + itoa(uint64(k)) + "]")
			}
			if num == 1 {
				key = d.str(vs, ve)
			} else {
				val = d.str(vs, ve)
			}
			j = ve
		}
		m[key] = val
		i = e
	}
	return i, nil
}

// tag reads a field's tag at i and returns its number, wire type and the
// offset of its value.
func (d *decoder) tag(i, end int) (uint64, int, int, error) {
	tag, j, err := d.varint(i, end)
	if err != nil {
		return 0, 0, i, err
	}
	if num := tag >> 3; num == 0 || num > maxFieldNumber {
		return 0, 0, i, errAt(i, ErrMalformed, "invalid field number "+itoa(num))
	}
	return tag >> 3, int(tag & 7), j, nil
}

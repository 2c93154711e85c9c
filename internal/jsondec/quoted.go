package jsondec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// quotedDec decodes a field with the ",string" option: its value is a
// JSON string holding the literal (or null). This rare path is a direct
// port of encoding/json's valueQuoted and literalStore over reflect.
func quotedDec(t reflect.Type) decFunc {
	return func(d *decoder, p ptr) error {
		v := reflect.NewAt(t, p).Elem()
		c := d.data[d.off]
		switch {
		case c == 'n':
			if err := d.null(); err != nil {
				return err
			}
			return d.literalStore([]byte("null"), v, false)
		case c == '"':
			s, err := d.str()
			if err != nil {
				return err
			}
			return d.literalStore(append([]byte(nil), s...), v, true)
		case c == '-' || c-'0' < 10:
			start := d.off
			item, isInt, err := d.number()
			if err != nil {
				return err
			}
			if _, ok := parseFloat(item, isInt, 64); !ok {
				// encoding/json reads the number as a float64, saves the
				// range error and treats the value as null.
				d.saveTypeError("number "+string(item), float64Type, start)
				return d.literalStore([]byte("null"), v, false)
			}
		default:
			if err := d.skip(); err != nil {
				return err
			}
		}
		d.saveError(fmt.Errorf("json: invalid use of ,string struct tag, trying to unmarshal unquoted value into %v", t))
		return nil
	}
}

// indirect is encoding/json's indirect: it walks v through pointers,
// allocating them, until it finds an Unmarshaler or TextUnmarshaler or a
// non-pointer; with decodingNull it stops at the first settable pointer.
func indirect(v reflect.Value, decodingNull bool) (json.Unmarshaler, encoding.TextUnmarshaler, reflect.Value) {
	v0 := v
	haveAddr := false
	if v.Kind() != reflect.Pointer && v.Type().Name() != "" && v.CanAddr() {
		haveAddr = true
		v = v.Addr()
	}
	for {
		if v.Kind() == reflect.Interface && !v.IsNil() {
			e := v.Elem()
			if e.Kind() == reflect.Pointer && !e.IsNil() && (!decodingNull || e.Elem().Kind() == reflect.Pointer) {
				haveAddr = false
				v = e
				continue
			}
		}
		if v.Kind() != reflect.Pointer {
			break
		}
		if decodingNull && v.CanSet() {
			break
		}
		if v.Elem().Kind() == reflect.Interface && v.Elem().Elem().Equal(v) {
			v = v.Elem()
			break
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if v.Type().NumMethod() > 0 && v.CanInterface() {
			if u, ok := reflect.TypeAssert[json.Unmarshaler](v); ok {
				return u, nil, reflect.Value{}
			}
			if !decodingNull {
				if u, ok := reflect.TypeAssert[encoding.TextUnmarshaler](v); ok {
					return nil, u, reflect.Value{}
				}
			}
		}
		if haveAddr {
			v = v0
			haveAddr = false
		} else {
			v = v.Elem()
		}
	}
	return nil, nil, v
}

// literalStore is encoding/json's literalStore: it stores the literal
// item (from inside a ",string" value when fromQuoted) into v.
func (d *decoder) literalStore(item []byte, v reflect.Value, fromQuoted bool) error {
	off := d.off
	if len(item) == 0 {
		d.saveError(fmt.Errorf("json: invalid use of ,string struct tag, trying to unmarshal an empty string into %v", v.Type()))
		return nil
	}
	// Unlike encoding/json, the value is not quoted: errors reach logs.
	invalid := func() error {
		return fmt.Errorf("json: invalid use of ,string struct tag, trying to unmarshal a %d-byte value into %v at offset %d", len(item), v.Type(), off)
	}
	isNull := item[0] == 'n'
	u, ut, pv := indirect(v, isNull)
	if u != nil {
		return u.UnmarshalJSON(item)
	}
	if ut != nil {
		if item[0] != '"' {
			if fromQuoted {
				d.saveError(invalid())
				return nil
			}
			d.saveTypeError(jsonKind(item[0]), v.Type(), off)
			return nil
		}
		s, ok := unquoteItem(item)
		if !ok {
			return invalid()
		}
		return ut.UnmarshalText(s)
	}
	v = pv
	switch c := item[0]; c {
	case 'n':
		if fromQuoted && string(item) != "null" {
			d.saveError(invalid())
			break
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		}
	case 't', 'f':
		value := c == 't'
		if fromQuoted && string(item) != "true" && string(item) != "false" {
			d.saveError(invalid())
			break
		}
		switch v.Kind() {
		default:
			if fromQuoted {
				d.saveError(invalid())
			} else {
				d.saveTypeError("bool", v.Type(), off)
			}
		case reflect.Bool:
			v.SetBool(value)
		case reflect.Interface:
			if v.NumMethod() == 0 {
				v.Set(reflect.ValueOf(value))
			} else {
				d.saveTypeError("bool", v.Type(), off)
			}
		}
	case '"':
		s, ok := unquoteItem(item)
		if !ok {
			return invalid()
		}
		switch v.Kind() {
		default:
			d.saveTypeError("string", v.Type(), off)
		case reflect.Slice:
			if v.Type().Elem().Kind() != reflect.Uint8 {
				d.saveTypeError("string", v.Type(), off)
				break
			}
			b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
			n, err := base64.StdEncoding.Decode(b, s)
			if err != nil {
				d.saveError(err)
				break
			}
			v.SetBytes(b[:n])
		case reflect.String:
			t := string(s)
			if v.Type() == numberType && !validNumber(s) {
				return fmt.Errorf("json: invalid number literal, trying to unmarshal a %d-byte string into Number", len(item))
			}
			v.SetString(t)
		case reflect.Interface:
			if v.NumMethod() == 0 {
				v.Set(reflect.ValueOf(string(s)))
			} else {
				d.saveTypeError("string", v.Type(), off)
			}
		}
	default:
		if c != '-' && (c < '0' || c > '9') {
			return invalid()
		}
		s := string(item)
		switch v.Kind() {
		default:
			if v.Kind() == reflect.String && v.Type() == numberType {
				v.SetString(s)
				break
			}
			if fromQuoted {
				return invalid()
			}
			d.saveTypeError("number", v.Type(), off)
		case reflect.Interface:
			var n any
			if i, err := strconv.ParseInt(s, 10, 64); d.kube && err == nil {
				n = i // UnmarshalKube keeps integers (see anyNumber)
			} else if n, err = strconv.ParseFloat(s, 64); err != nil {
				d.saveTypeError("number "+s, float64Type, off)
				break
			}
			if v.NumMethod() != 0 {
				d.saveTypeError("number", v.Type(), off)
				break
			}
			v.Set(reflect.ValueOf(n))
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v.OverflowInt(n) {
				d.saveTypeError("number "+s, v.Type(), off)
				break
			}
			v.SetInt(n)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil || v.OverflowUint(n) {
				d.saveTypeError("number "+s, v.Type(), off)
				break
			}
			v.SetUint(n)
		case reflect.Float32, reflect.Float64:
			n, err := strconv.ParseFloat(s, v.Type().Bits())
			if err != nil || v.OverflowFloat(n) {
				d.saveTypeError("number "+s, v.Type(), off)
				break
			}
			v.SetFloat(n)
		}
	}
	return nil
}

// unquoteItem is encoding/json's unquoteBytes, for an item that may not
// be valid JSON (the inside of a ",string" value, which the syntax check
// never saw): ok is false unless item is a well-formed string literal; \'
// is accepted as encoding/json does there.
func unquoteItem(s []byte) (t []byte, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return
	}
	s = s[1 : len(s)-1]
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s, true
	}
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	b = append(b, s[0:r]...)
	for r < len(s) {
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return
			}
			switch s[r] {
			default:
				return
			case '"', '\\', '/', '\'':
				b = append(b, s[r])
				r++
			case 'b':
				b = append(b, '\b')
				r++
			case 'f':
				b = append(b, '\f')
				r++
			case 'n':
				b = append(b, '\n')
				r++
			case 'r':
				b = append(b, '\r')
				r++
			case 't':
				b = append(b, '\t')
				r++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			}
		case c == '"', c < ' ':
			return
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b, true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	r, err := hex4(s, 2)
	if err != nil {
		return -1
	}
	return r
}

package jsondec

import (
	"reflect"
	"strconv"
)

// number reads the number at d.off (first byte '-' or a digit) and
// returns its text and whether it is an integer (no fraction, exponent).
func (d *decoder) number() (item []byte, isInt bool, err error) {
	start := d.off
	end, isInt, err := skipNumber(d.data, start)
	if err != nil {
		return nil, false, err
	}
	d.off = end
	return d.data[start:end], isInt, nil
}

// parseInt converts the JSON number item to an int64 as
// strconv.ParseInt(item, 10, 64) does; ok is false where that fails.
func parseInt(item []byte, isInt bool) (int64, bool) {
	if !isInt {
		return 0, false
	}
	neg := item[0] == '-'
	digits := item
	if neg {
		digits = item[1:]
	}
	if len(digits) <= 18 {
		var n int64
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return n, true
	}
	n, err := strconv.ParseInt(string(item), 10, 64)
	return n, err == nil
}

// parseUint is strconv.ParseUint(item, 10, 64) for a JSON number.
func parseUint(item []byte, isInt bool) (uint64, bool) {
	if !isInt || item[0] == '-' {
		return 0, false
	}
	if len(item) <= 19 {
		var n uint64
		for _, c := range item {
			n = n*10 + uint64(c-'0')
		}
		return n, true
	}
	n, err := strconv.ParseUint(string(item), 10, 64)
	return n, err == nil
}

// parseFloat is strconv.ParseFloat(item, bits) for a JSON number, with a
// fast path for integers that convert exactly.
func parseFloat(item []byte, isInt bool, bits int) (float64, bool) {
	if isInt {
		neg := item[0] == '-'
		digits := item
		if neg {
			digits = item[1:]
		}
		if len(digits) <= 15 && (bits == 64 || len(digits) <= 7) {
			var n int64
			for _, c := range digits {
				n = n*10 + int64(c-'0')
			}
			f := float64(n)
			if neg {
				f = -f // -0 stays negative zero, as ParseFloat gives
			}
			return f, true
		}
	}
	f, err := strconv.ParseFloat(string(item), bits)
	return f, err == nil
}

// intDecoder decodes JSON numbers into a signed integer kind.
func intDecoder(t reflect.Type) decFunc {
	kind := t.Kind()
	bits := t.Bits()
	return func(d *decoder, p ptr) error {
		item, isInt, start, ok, err := d.numberFor(t)
		if !ok {
			return err
		}
		n, ok := parseInt(item, isInt)
		if !ok || (bits < 64 && (n < -1<<(bits-1) || n >= 1<<(bits-1))) {
			d.saveTypeError("number "+string(item), t, start)
			return nil
		}
		switch kind {
		case reflect.Int:
			*(*int)(p) = int(n)
		case reflect.Int8:
			*(*int8)(p) = int8(n)
		case reflect.Int16:
			*(*int16)(p) = int16(n)
		case reflect.Int32:
			*(*int32)(p) = int32(n)
		default:
			*(*int64)(p) = n
		}
		return nil
	}
}

// uintDecoder decodes JSON numbers into an unsigned integer kind.
func uintDecoder(t reflect.Type) decFunc {
	kind := t.Kind()
	bits := t.Bits()
	return func(d *decoder, p ptr) error {
		item, isInt, start, ok, err := d.numberFor(t)
		if !ok {
			return err
		}
		n, ok := parseUint(item, isInt)
		if !ok || (bits < 64 && n >= 1<<bits) {
			d.saveTypeError("number "+string(item), t, start)
			return nil
		}
		switch kind {
		case reflect.Uint:
			*(*uint)(p) = uint(n)
		case reflect.Uint8:
			*(*uint8)(p) = uint8(n)
		case reflect.Uint16:
			*(*uint16)(p) = uint16(n)
		case reflect.Uint32:
			*(*uint32)(p) = uint32(n)
		case reflect.Uintptr:
			*(*uintptr)(p) = uintptr(n)
		default:
			*(*uint64)(p) = n
		}
		return nil
	}
}

// floatDecoder decodes JSON numbers into float32 or float64 kinds.
func floatDecoder(t reflect.Type) decFunc {
	bits := t.Bits()
	return func(d *decoder, p ptr) error {
		item, isInt, start, ok, err := d.numberFor(t)
		if !ok {
			return err
		}
		f, ok := parseFloat(item, isInt, bits)
		if !ok {
			d.saveTypeError("number "+string(item), t, start)
			return nil
		}
		if bits == 32 {
			*(*float32)(p) = float32(f)
		} else {
			*(*float64)(p) = f
		}
		return nil
	}
}

// validNumber reports whether s is exactly one JSON number.
func validNumber(s []byte) bool {
	if len(s) == 0 || (s[0] != '-' && s[0]-'0' >= 10) {
		return false
	}
	end, _, err := skipNumber(s, 0)
	return err == nil && end == len(s)
}

// numberFor reads the JSON number at d.off for a value of type t, and
// where it starts. ok is false when there is nothing to store: the value
// was null (consumed), was not a number (err is d.mismatch's), or was
// invalid (err).
func (d *decoder) numberFor(t reflect.Type) (item []byte, isInt bool, start int, ok bool, err error) {
	c := d.data[d.off]
	if c != '-' && c-'0' >= 10 {
		if c == 'n' {
			return nil, false, 0, false, d.null()
		}
		return nil, false, 0, false, d.mismatch(t)
	}
	start = d.off
	item, isInt, err = d.number()
	return item, isInt, start, err == nil, err
}

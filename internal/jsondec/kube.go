package jsondec

// Fast paths for hot apimachinery types. Each gives exactly the result of
// the type's own UnmarshalJSON and falls back to it for anything unusual.

import (
	"reflect"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var (
	timeType        = reflect.TypeFor[metav1.Time]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
	int32Codec      = &codec{typ: reflect.TypeFor[int32](), dec: intDecoder(reflect.TypeFor[int32]())}
)

// kubeDec returns a fast decoder for t if it has one; t's pointer has
// UnmarshalJSON.
func kubeDec(t reflect.Type) decFunc {
	switch t {
	case timeType:
		return timeDec
	case intOrStringType:
		return intOrStringDec
	}
	return nil
}

// timeDec is metav1.Time.UnmarshalJSON (null → zero time, else a string
// parsed as RFC 3339, then .Local()) with the common
// "2006-01-02T15:04:05Z" form parsed by hand.
func timeDec(d *decoder, p ptr) error {
	t := (*metav1.Time)(p)
	data, i := d.data, d.off
	switch data[i] {
	case '"':
		if i+22 <= len(data) && data[i+21] == '"' {
			if tm, ok := parseUTCSeconds(data[i+1 : i+21]); ok {
				t.Time = tm.Local()
				d.off = i + 22
				return nil
			}
		}
	case 'n':
		if err := d.null(); err != nil {
			return err
		}
		t.Time = time.Time{}
		return nil
	}
	raw, err := d.raw()
	if err != nil {
		return err
	}
	return t.UnmarshalJSON(raw)
}

// parseUTCSeconds parses exactly "YYYY-MM-DDTHH:MM:SSZ" with every field
// in range, which time.Parse(time.RFC3339, s) turns into time.Date(...,
// time.UTC); ok is false for anything else.
func parseUTCSeconds(b []byte) (time.Time, bool) {
	if len(b) != 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return time.Time{}, false
	}
	num := func(s []byte) int {
		n := 0
		for _, c := range s {
			if c-'0' >= 10 {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(b[0:4]), num(b[5:7]), num(b[8:10])
	hour, min, sec := num(b[11:13]), num(b[14:16]), num(b[17:19])
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	if day > daysIn(month, year) {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, min, sec, 0, time.UTC), true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// intOrStringDec is intstr.IntOrString.UnmarshalJSON: a string sets
// StrVal, anything else is decoded into IntVal as by json.Unmarshal
// (where a type error is returned, not saved).
func intOrStringDec(d *decoder, p ptr) error {
	v := (*intstr.IntOrString)(p)
	if d.data[d.off] == '"' {
		v.Type = intstr.String
		s, err := d.str()
		if err != nil {
			return err
		}
		v.StrVal = string(s)
		return nil
	}
	v.Type = intstr.Int
	return d.strict(int32Codec, unsafe.Pointer(&v.IntVal))
}

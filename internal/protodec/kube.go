package protodec

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/informer-go/informer/internal/jsondec"
)

// The apimachinery types whose protobuf encoding is written by hand
// rather than generated from tags: metav1.Time and metav1.MicroTime are a
// Timestamp {1: seconds, 2: nanos}, resource.Quantity a message whose
// field 1 is its string form. Each is decoded as its Unmarshal method
// does.

// timestamp decodes a Timestamp at d.data[s:e] into the metav1.Time or
// metav1.MicroTime at p (both a struct holding only a time.Time): empty
// means the zero time; a Time keeps whole seconds, a MicroTime
// microseconds; the result is in time.Local.
func (d *decoder) timestamp(micro bool, p ptr, s, e int) error {
	tp := (*time.Time)(p)
	if s == e {
		*tp = time.Time{}
		return nil
	}
	var sec int64
	var nanos int32
	for i := s; i < e; {
		num, wt, at, err := d.tag(i, e)
		if err != nil {
			return err
		}
		if num > 2 {
			if i, err = d.skip(wt, num, at, e); err != nil {
				return err
			}
			continue
		}
		if wt != wireVarint {
			return wrongWire(i, wt, wireVarint).(*decodeError).in(timestampField[num])
		}
		x, next, err := d.varint(at, e)
		if err != nil {
			return err.(*decodeError).in(timestampField[num])
		}
		if num == 1 {
			sec = int64(x)
		} else {
			nanos = int32(x)
		}
		i = next
	}
	if micro {
		*tp = time.Unix(sec, int64(time.Duration(nanos).Truncate(time.Microsecond))).Local()
	} else {
		*tp = time.Unix(sec, 0).Local()
	}
	return nil
}

var timestampField = [...]string{1: "seconds", 2: "nanos"}

// quantity decodes a resource.Quantity at d.data[s:e] into p: field 1,
// parsed with resource.ParseQuantity; without it, p is left alone.
func (d *decoder) quantity(p ptr, s, e int) error {
	for i := s; i < e; {
		num, wt, at, err := d.tag(i, e)
		if err != nil {
			return err
		}
		if num != 1 {
			if i, err = d.skip(wt, num, at, e); err != nil {
				return err
			}
			continue
		}
		if wt != wireBytes {
			return wrongWire(i, wt, wireBytes).(*decodeError).in("string")
		}
		vs, ve, err := d.length(at, e)
		if err != nil {
			return err.(*decodeError).in("string")
		}
		if jsondec.SlowQuantity(d.data[vs:ve]) {
			// As the JSON decoder: see jsondec.SlowQuantity.
			return errAt(vs, ErrInvalidValue, "a quantity that resource.ParseQuantity could take minutes on").(*decodeError).in("string")
		}
		q, err := resource.ParseQuantity(d.str(vs, ve))
		if err != nil {
			// Not err: it would quote the value.
			return errAt(vs, ErrInvalidValue, "not a valid quantity").(*decodeError).in("string")
		}
		*(*resource.Quantity)(p) = q
		i = ve
	}
	return nil
}

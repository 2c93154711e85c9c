package jsondec

import (
	"math"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxQuantityLen is the longest quantity SlowQuantity lets through: far
// longer than any quantity a real object has, short enough that
// resource.ParseQuantity takes at most tens of milliseconds on it.
const MaxQuantityLen = 128 << 10

// slowQuantityValue is what the type error for a quantity SlowQuantity
// refuses says was found ("json: cannot unmarshal <it> into Go struct
// field ..."). It does not quote the value.
const slowQuantityValue = "quantity that resource.ParseQuantity could take minutes on (longer than 128 KiB, or a huge exponent)"

var quantityType = reflect.TypeFor[resource.Quantity]()

// SlowQuantity reports whether resource.ParseQuantity could take long on
// the quantity b (without JSON quotes). ParseQuantity's time grows with
// the number it builds, and some short strings build enormous ones. On
// apimachinery v0.37, measured: 1e-999999 takes 47 ms and 1e-2147483648
// (or any exponent past the int32 range, which wraps) runs for longer
// than anyone waits; a mantissa of 19 digits or more with the exponent
// e999999 as well, while 18 digits with e2147483647 take 2 µs; a million
// digits take seconds. So SlowQuantity refuses:
//
//   - more than MaxQuantityLen bytes (100,000 digits take 30 ms);
//   - a negative exponent below -999 (kube-apiserver rounds such a value
//     to 1n, so it never sends one);
//   - an exponent past the int32 range;
//   - an exponent above 99,999 on a mantissa of more than 18 digits
//     (counting those after the point).
//
// Everything kube-apiserver stores in canonical form (1n, 500m, 2Gi,
// 1e3, 10e2147483646, a 1,000-digit integer) passes. An 'E' with no digits
// after it is the exa suffix (1E, 1Ei), not an exponent.
func SlowQuantity(b []byte) bool {
	if len(b) > MaxQuantityLen {
		return true
	}
	digits := 0 // of the mantissa
	for i, c := range b {
		if '0' <= c && c <= '9' {
			digits++
			continue
		}
		if c != 'e' && c != 'E' {
			continue
		}
		rest := b[i+1:]
		neg := len(rest) > 0 && rest[0] == '-'
		if len(rest) > 0 && (rest[0] == '-' || rest[0] == '+') {
			rest = rest[1:]
		}
		for len(rest) > 1 && rest[0] == '0' {
			rest = rest[1:]
		}
		if len(rest) > 10 {
			return true
		}
		exp := 0
		for _, d := range rest {
			if d < '0' || d > '9' {
				return false // not an exponent: ParseQuantity refuses it
			}
			exp = exp*10 + int(d-'0')
		}
		switch {
		case neg:
			return exp > 999
		case exp > math.MaxInt32:
			return true
		default:
			return exp > 99_999 && digits > 18
		}
	}
	return false
}

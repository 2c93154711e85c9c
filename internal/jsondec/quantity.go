package jsondec

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxQuantityLen is the longest quantity SlowQuantity lets through: far
// longer than any canonical quantity, short enough to parse in
// microseconds.
const MaxQuantityLen = 1024

// slowQuantityValue is what the type error for a quantity SlowQuantity
// refuses says was found ("json: cannot unmarshal <it> into Go struct
// field ..."). It does not quote the value.
const slowQuantityValue = "quantity longer than 1 KiB or with an exponent beyond ±999 (which resource.ParseQuantity could take minutes on)"

var quantityType = reflect.TypeFor[resource.Quantity]()

// SlowQuantity reports whether resource.ParseQuantity could take long on
// the quantity b (without JSON quotes): b is longer than MaxQuantityLen, or
// its decimal exponent has more than three digits. ParseQuantity's time
// grows with the size of the number it builds: 1e-9999999 takes a second,
// 1e-2147483647 or a 1,000-digit mantissa with e999999999 run for longer
// than anyone waits, and a million-digit mantissa takes seconds. Such
// quantities are refused rather than parsed: kube-apiserver sends quantities
// in their canonical form (1n, 500m, 2Gi, 1e3), a few bytes with small
// exponents, so only a broken or hostile server sends one. An 'E' with no
// digits after it is the exa suffix (1E, 1Ei), not an exponent.
func SlowQuantity(b []byte) bool {
	if len(b) > MaxQuantityLen {
		return true
	}
	for i, c := range b {
		if c != 'e' && c != 'E' {
			continue
		}
		rest := b[i+1:]
		if len(rest) > 0 && (rest[0] == '-' || rest[0] == '+') {
			rest = rest[1:]
		}
		for len(rest) > 1 && rest[0] == '0' {
			rest = rest[1:]
		}
		return len(rest) > 3
	}
	return false
}

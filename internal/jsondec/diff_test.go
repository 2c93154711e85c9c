package jsondec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// target makes a pair of fresh values to decode into: one for
// encoding/json, one for Unmarshal. init, if not nil, fills both first.
type target struct {
	name string
	make func() (a, b any)
}

func targetOf[T any](init func(*T)) target {
	var zero T
	return target{
		name: fmt.Sprintf("%T", zero),
		make: func() (any, any) {
			a, b := new(T), new(T)
			if init != nil {
				init(a)
				init(b)
			}
			return a, b
		},
	}
}

// mode is a decoding mode of this package and the decoder it must agree
// with.
type mode struct {
	name string
	ref  func([]byte, any) error // the reference
	ours func([]byte, any) error
}

// modes: Unmarshal against encoding/json, UnmarshalKube against
// apimachinery's decoder (util/json.Unmarshal, which is sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts).
var modes = []mode{
	{"Unmarshal", json.Unmarshal, Unmarshal},
	{"UnmarshalKube", utiljson.Unmarshal, UnmarshalKube},
}

// compare decodes data in every mode into tg's values. It reports whether
// each mode agrees with its reference: same error-ness, and DeepEqual
// values on success.
func compare(tg target, data []byte) (ok bool, detail string) {
	for _, m := range modes {
		if ok, detail := compareMode(m, tg, data); !ok {
			return false, m.name + ": " + detail
		}
	}
	return true, ""
}

func compareMode(m mode, tg target, data []byte) (ok bool, detail string) {
	a, b := tg.make()
	errB := m.ours(data, b)
	var te *json.UnmarshalTypeError
	if errors.As(errB, &te) && te.Value == slowQuantityValue {
		// The one deliberate difference (see SlowQuantity); the reference
		// could run for hours.
		return true, ""
	}
	errA := m.ref(data, a)
	if (errA == nil) != (errB == nil) {
		return false, fmt.Sprintf("error mismatch: reference %v, jsondec %v", errA, errB)
	}
	if errA == nil && !deepEqual(a, b) {
		return false, fmt.Sprintf("value mismatch:\nreference %s\njsondec   %s", dump(a), dump(b))
	}
	return true, ""
}

// deepEqual is reflect.DeepEqual, except that NaN equals NaN.
func deepEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	sa, sb := dump(a), dump(b)
	return sa == sb && strings.Contains(sa, "NaN")
}

// dump formats v with the dynamic types of interface values (an int64 and
// a float64 of the same value differ).
func dump(v any) string {
	s := fmt.Sprintf("%#v", reflect.ValueOf(v).Elem().Interface())
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}

func checkDiff(t *testing.T, tg target, data string) {
	t.Helper()
	if ok, detail := compare(tg, []byte(data)); !ok {
		t.Errorf("%s ← %q: %s", tg.name, data, detail)
	}
}

var _ = math.NaN

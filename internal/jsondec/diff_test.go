package jsondec

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
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

// compare decodes data with both decoders into tg's values. It reports
// whether they agree: same error-ness, and DeepEqual values on success.
func compare(tg target, data []byte) (ok bool, detail string) {
	a, b := tg.make()
	errA := json.Unmarshal(data, a)
	errB := Unmarshal(data, b)
	if (errA == nil) != (errB == nil) {
		return false, fmt.Sprintf("error mismatch: encoding/json %v, jsondec %v", errA, errB)
	}
	if errA == nil && !deepEqual(a, b) {
		return false, fmt.Sprintf("value mismatch:\nencoding/json %s\njsondec       %s", dump(a), dump(b))
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

func dump(v any) string {
	s := fmt.Sprintf("%+v", reflect.ValueOf(v).Elem().Interface())
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

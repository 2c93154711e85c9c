package jsondec

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// recNode is a recursive type for deep type errors.
type recNode struct {
	Name  string   `json:"name"`
	Child *recNode `json:"child"`
}

// deepTypeError is an object nested depth levels deep in recNode whose
// innermost name is a number: a type error at the bottom.
func deepTypeError(depth int) []byte {
	return []byte(strings.Repeat(`{"child":`, depth) + `{"name":1}` + strings.Repeat(`}`, depth))
}

// innerTypeError is a json.Unmarshaler whose method returns the type error
// of a nested json.Unmarshal, with its own Field.
type innerTypeError struct{ N int8 }

func (v *innerTypeError) UnmarshalJSON(b []byte) error {
	var x struct {
		N int8 `json:"n"`
	}
	err := json.Unmarshal(b, &x)
	v.N = x.N
	return err
}

type pathHolder struct {
	Items []pathItem           `json:"items"`
	M     map[string]pathItem  `json:"m"`
	P     *pathItem            `json:"p"`
	Inner innerTypeError       `json:"inner"`
	IS    []intstr.IntOrString `json:"is"`
	Deep  Deep                 `json:"deep"`
	Embedded
	Anon struct {
		X struct {
			Y int8 `json:"y"`
		} `json:"x"`
	} `json:"anon"`
}

type pathItem struct {
	N  int8     `json:"n"`
	S  []string `json:"s"`
	Up *pathItem
}

// Embedded is promoted into pathHolder: encoding/json names it in the path.
type Embedded struct {
	E int8 `json:"e"`
	Inner
}

// typeErrorPaths are inputs with a type error somewhere in pathHolder.
var typeErrorPaths = []string{
	`{"items":[{"n":1},{"n":300}]}`,
	`{"items":[{"s":["a",1]}]}`,
	`{"items":[{"Up":{"Up":{"n":"x"}}}]}`,
	`{"m":{"k":{"n":true}}}`,
	`{"p":{"Up":{"s":{}}}}`,
	`{"inner":{"n":300}}`,
	`{"p":{"n":1},"inner":{"n":"x"}}`,
	`{"is":[1,"a",2147483648]}`,
	`{"deep":{"A":"x"}}`,
	`{"deep":{"b":1}}`,
	`{"e":"x"}`,
	`{"A":"x"}`,
	`{"x":"x"}`,
	`{"anon":{"x":{"y":1000}}}`,
	`{"items":[{"n":300}],"p":{"n":300}}`,
	`{"items":[{"n":300}],"inner":{"n":"x"}}`,
	`{"inner":{"n":"x"},"items":[{"n":300}]}`,
	`{"is":[true],"items":[{"n":300}]}`,
	`{"items":[{"n":300}],"is":[true]}`,
}

// TestTypeErrorPath checks that a type error names the same struct and
// field path as encoding/json's, wherever it happens: in a slice, map or
// pointer, a promoted field, an anonymous struct, an UnmarshalJSON
// method's own type error, a strictly decoded IntOrString, or after an
// earlier error.
func TestTypeErrorPath(t *testing.T) {
	check := func(t *testing.T, tg target, in []byte) {
		t.Helper()
		a, b := tg.make()
		errA, errB := json.Unmarshal(in, a), Unmarshal(in, b)
		var teA, teB *json.UnmarshalTypeError
		if !errors.As(errA, &teA) || !errors.As(errB, &teB) {
			return
		}
		if teA.Struct != teB.Struct || teA.Field != teB.Field {
			t.Errorf("%s ← %.200s:\nencoding/json Struct %q Field %q\njsondec       Struct %q Field %q",
				tg.name, in, teA.Struct, teA.Field, teB.Struct, teB.Field)
		}
	}
	tg := targetOf[pathHolder](nil)
	seen := 0
	for _, in := range typeErrorPaths {
		var v pathHolder
		var te *json.UnmarshalTypeError
		if err := Unmarshal([]byte(in), &v); !errors.As(err, &te) {
			t.Errorf("%s: %v, want a type error", in, err)
			continue
		}
		seen++
		check(t, tg, []byte(in))
	}
	check(t, targetOf[recNode](nil), deepTypeError(500))
	check(t, targetOf[recNode](nil), deepTypeError(9000))
	for _, c := range semanticCases {
		for _, tg := range c.targets {
			for _, in := range c.inputs {
				check(t, tg, []byte(in))
			}
		}
	}
	for _, in := range podVariants(podJSON(t)) {
		for _, tg := range kubeTargets {
			check(t, tg, []byte(in))
		}
	}
}

// allocBytes returns the bytes allocated by one decode of in into a new
// recNode, averaged over a few runs.
func allocBytes(t *testing.T, in []byte) float64 {
	t.Helper()
	decode := func() {
		var v recNode
		if err := Unmarshal(in, &v); err == nil {
			t.Fatal("no error")
		}
	}
	decode() // warm up: codecs compiled, a pooled decoder
	const runs = 5
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		decode()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / runs
}

// TestTypeErrorPathLinear: a type error at the bottom of a recursive type
// costs allocation linear in the depth. Building the field path at each
// level made it quadratic: twice the depth cost four times the bytes
// (4,000 levels, 40 KB of input: 51 MB).
func TestTypeErrorPathLinear(t *testing.T) {
	const n = 2000
	small, large := allocBytes(t, deepTypeError(n)), allocBytes(t, deepTypeError(2*n))
	if ratio := large / small; ratio > 2.6 {
		t.Errorf("depth %d: %.0f bytes allocated, depth %d: %.0f: ratio %.2f, want about 2 (linear)", n, small, 2*n, large, ratio)
	}
	var v recNode
	err := Unmarshal(deepTypeError(n), &v)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Struct != "recNode" || te.Field != strings.Repeat("child.", n)+"name" {
		t.Errorf("type error = %.200v", err)
	}
}

// BenchmarkTypeErrorDeep decodes an object with a type error at the
// bottom of depth levels of a recursive type (10 bytes a level).
func BenchmarkTypeErrorDeep(b *testing.B) {
	for _, depth := range []int{100, 1000, 9000} {
		in := deepTypeError(depth)
		for _, impl := range []struct {
			name string
			fn   func([]byte, any) error
		}{
			{"jsondec", Unmarshal},
			{"encoding-json", json.Unmarshal},
		} {
			b.Run(fmt.Sprintf("depth=%d/impl=%s", depth, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					var v recNode
					if err := impl.fn(in, &v); err == nil {
						b.Fatal("no error")
					}
				}
			})
		}
	}
}

package share

import (
	"reflect"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestStable(t *testing.T) {
	type sized struct {
		Name string
		Size resource.Quantity
	}
	small := resource.MustParse("0.000000000001") // held as an *inf.Dec
	cases := []struct {
		name string
		v    any // a pointer to the variable to check
		want bool
	}{
		{"no quantity", &[]string{"a"}, true},
		{"canonical", &[]sized{{"a", resource.MustParse("1Gi")}}, true},
		{"not canonical", &[]sized{{"a", resource.MustParse("1024Mi")}}, false},
		{"zero", &[]sized{{Name: "a"}}, false},
		{"pointer, not canonical", &[]*resource.Quantity{new(resource.MustParse("0.5"))}, false},
		{"nil pointer", &[]*resource.Quantity{nil}, true},
		{"map values, not canonical", &map[string]resource.Quantity{"cpu": resource.MustParse("0.5")}, true},
		{"map value, inf.Dec", &map[string]resource.Quantity{"cpu": small}, false},
		{"inf.Dec", &[]sized{{"a", small}}, false},
	}
	for _, c := range cases {
		v := reflect.ValueOf(c.v)
		if got := Stable(v.Type().Elem(), unsafe.Pointer(v.Pointer())); got != c.want {
			t.Errorf("%s: Stable = %v, want %v", c.name, got, c.want)
		}
	}
}

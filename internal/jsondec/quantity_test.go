package jsondec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestSlowQuantity(t *testing.T) {
	long := strings.Repeat("9", 1000)
	tests := []struct {
		q    string
		slow bool
	}{
		{"1", false},
		{"250m", false},
		{"1Gi", false},
		{"1E", false}, // exa
		{"1Ei", false},
		{"1e3", false},
		{"1e-999", false},
		{"1E+999", false},
		{"1e-000000999", false}, // leading zeros do not count
		{"-" + long + "e-999", false},
		{"1e1002", false},        // canonical
		{"10e2147483646", false}, // canonical
		{"999999999999999999e2147483647", false},
		{"9999999999999999999e99999", false},
		{long, false},
		{long + "e99999", false},
		{strings.Repeat("9", MaxQuantityLen), false},
		{"1e-1000", true},
		{"1e-2147483647", true},
		{"1E-9999999", true},
		{"1e2147483648", true},
		{"1e99999999999", true},
		{"9999999999999999999e100000", true},
		{"0.000000000000000000001e999999", true},
		{long + "e999999999", true},
		{strings.Repeat("9", MaxQuantityLen+1), true},
		{"1e-12x", false}, // not a quantity: ParseQuantity says so at once
	}
	for _, tt := range tests {
		name := tt.q
		if len(name) > 24 {
			name = name[:12] + "…" + name[len(name)-12:]
		}
		if got := SlowQuantity([]byte(tt.q)); got != tt.slow {
			t.Errorf("SlowQuantity(%s) = %v, want %v", name, got, tt.slow)
		}
	}
}

// A quantity that resource.ParseQuantity would take minutes or hours on
// (a hostile server's) is refused with an error that names the field and
// does not quote the value; its own UnmarshalJSON would not return (the
// test would time out).
func TestSlowQuantityRefused(t *testing.T) {
	long := strings.Repeat("9", 1000)
	for _, tt := range []struct{ data, field string }{
		{`{"q":"1e-2147483647"}`, "q"},
		{`{"q":1e-2147483647}`, "q"},
		{`{"qp":"` + long + `e999999999"}`, "qp"},
		{`{"qm":{"cpu":"1e-2147483647"}}`, "qm"},
		{`{"ts":[],"q":"` + strings.Repeat("9", 1<<20) + `","t":null}`, "q"},
	} {
		var v kubeFields
		err := UnmarshalKube([]byte(tt.data), &v)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Value != slowQuantityValue || te.Type != quantityType {
			t.Errorf("%.40s…: error %v, want a type error for the quantity", tt.data, err)
			continue
		}
		if te.Field != tt.field {
			t.Errorf("%.40s…: error names field %q, want %q", tt.data, te.Field, tt.field)
		}
		if msg := err.Error(); strings.Contains(msg, "2147483647") || strings.Contains(msg, "99999") {
			t.Errorf("the error quotes the value: %.200s", msg)
		}
	}
	// The same quantities just inside the bounds decode as ParseQuantity has them.
	var v kubeFields
	if err := UnmarshalKube([]byte(`{"q":"1e-999","qp":"`+long+`e999","qm":{"cpu":"1Ei"}}`), &v); err != nil {
		t.Fatal(err)
	}
	if want := resource.MustParse("1e-999"); !v.Q.Equal(want) {
		t.Errorf("q = %v, want %v", &v.Q, &want)
	}
	if want := resource.MustParse(long + "e999"); v.QP == nil || !v.QP.Equal(want) {
		t.Errorf("qp = %v, want %v", v.QP, &want)
	}
	if want := resource.MustParse("1Ei"); !v.QM["cpu"].Equal(want) {
		t.Errorf("qm = %v, want %v", v.QM, &want)
	}
}

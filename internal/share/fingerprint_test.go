package share

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

type fpInner struct {
	Name  string
	N     *int64
	Tags  []string
	Attrs map[string]string
}

type fpOuter struct {
	A    string
	B    int32
	C    bool
	T    time.Time
	In   fpInner
	P    *fpInner
	Many []fpInner
	Nums []int32
	Res  map[string]resource.Quantity
	Any  map[string]any
	M    map[int]string
}

// TestFingerprintSeesWrites: any write into what a value reaches changes
// its fingerprint (so that the table never hands it out again), reading
// it does not, and a copy that leaves the words as they were does not.
func TestFingerprintSeesWrites(t *testing.T) {
	n := int64(1)
	mk := func() *fpOuter {
		return &fpOuter{
			A: "a", B: 2, C: true, T: time.Unix(100, 0),
			In:   fpInner{Name: "in", N: &n, Tags: []string{"x", "y"}, Attrs: map[string]string{"": "", "k": "v"}},
			P:    &fpInner{Name: "p", Tags: []string{"z"}},
			Many: []fpInner{{Name: "m0"}, {Name: "m1", Attrs: map[string]string{"a": "b"}}},
			Nums: []int32{1, 2, 3},
			Res:  map[string]resource.Quantity{"cpu": resource.MustParse("1")},
			Any:  map[string]any{"list": []any{"s", 1.5, map[string]any{"deep": "v"}}, "n": 3.0},
			M:    map[int]string{1: "one"},
		}
	}
	cases := []struct {
		name  string
		write func(o *fpOuter)
	}{
		{"string field", func(o *fpOuter) { o.A = "b" }},
		{"string rewritten with equal text", func(o *fpOuter) { o.A = strings.Clone(o.A) }},
		{"int field", func(o *fpOuter) { o.B++ }},
		{"bool field", func(o *fpOuter) { o.C = false }},
		{"time", func(o *fpOuter) { o.T = o.T.Add(time.Second) }},
		{"nested string", func(o *fpOuter) { o.In.Name = "x" }},
		{"pointee number", func(o *fpOuter) { *o.In.N = 2 }},
		{"slice element", func(o *fpOuter) { o.In.Tags[1] = "w" }},
		{"slice resliced", func(o *fpOuter) { o.In.Tags = o.In.Tags[:1] }},
		{"map key added", func(o *fpOuter) { o.In.Attrs["new"] = "" }},
		{"empty entry deleted", func(o *fpOuter) { delete(o.In.Attrs, "") }},
		{"map value set", func(o *fpOuter) { o.In.Attrs["k"] = "w" }},
		{"pointer set to nil", func(o *fpOuter) { o.P = nil }},
		{"through a pointer", func(o *fpOuter) { o.P.Tags[0] = "q" }},
		{"element of a slice of structs", func(o *fpOuter) { o.Many[1].Attrs["a"] = "c" }},
		{"plain slice element", func(o *fpOuter) { o.Nums[2] = 4 }},
		{"quantity replaced", func(o *fpOuter) { o.Res["cpu"] = resource.MustParse("2") }},
		{"any: nested map", func(o *fpOuter) { o.Any["list"].([]any)[2].(map[string]any)["deep"] = "w" }},
		{"any: list element", func(o *fpOuter) { o.Any["list"].([]any)[1] = 2.5 }},
		{"any: value replaced", func(o *fpOuter) { o.Any["n"] = 4.0 }},
		{"int-keyed map", func(o *fpOuter) { o.M[2] = "two" }},
	}
	s := shapeOf(reflect.TypeFor[*fpOuter]())
	for _, c := range cases {
		o := mk()
		before := fingerprint(7, s, unsafe.Pointer(o), 0)
		_ = fmtAll(o) // reading changes nothing
		if fingerprint(7, s, unsafe.Pointer(o), 0) != before {
			t.Fatalf("%s: reading changed the fingerprint", c.name)
		}
		c.write(o)
		if fingerprint(7, s, unsafe.Pointer(o), 0) == before {
			t.Errorf("%s: the write leaves the fingerprint as it was", c.name)
		}
	}
}

func fmtAll(o *fpOuter) string {
	var b strings.Builder
	for _, q := range o.Res {
		b.WriteString(q.String())
	}
	b.WriteString(o.T.String())
	return b.String()
}

// TestTableEvictsWritten: a hit on a value written into since it
// entered evicts it, admits the fresh value in its place, and Seal
// reports it with where the value differs; a value entered in the decode
// under way is not checked before Seal.
func TestTableEvictsWritten(t *testing.T) {
	tab := New(0)
	raw := []byte("the labels' bytes")
	typ := reflect.TypeFor[map[string]string]()
	m := map[string]string{"app": "web"}
	tab.Lock()
	k := tab.Key(1, raw)
	tab.Find(k, raw)
	if _, _, enter := tab.Find(k, raw); !enter {
		t.Fatal("not admitted")
	}
	tab.Enter(k, raw, typ, *(*unsafe.Pointer)(unsafe.Pointer(&m)), 0)
	m["x"] = "y" // before Seal: the decode's own value, not checked yet
	if v, _, _ := tab.Find(k, raw); v == nil {
		t.Fatal("a value entered in this decode is not found")
	}
	if w := tab.Seal(); w != nil {
		t.Fatalf("Seal reports %v", w)
	}
	if v, _, _ := tab.Find(k, raw); v == nil {
		t.Fatal("not found after Seal")
	}
	m["z"] = "w" // a program's write
	v, _, enter := tab.Find(k, raw)
	if v != nil || !enter {
		t.Fatalf("a written value: found %v, enter %v; want nil, true", v, enter)
	}
	fresh := map[string]string{"app": "web"}
	tab.Enter(k, raw, typ, *(*unsafe.Pointer)(unsafe.Pointer(&fresh)), 0)
	w := tab.Seal()
	if len(w) != 1 || w[0].Type != typ || w[0].Inner != "" {
		t.Fatalf("Seal: %+v", w)
	}
	if v, _, _ := tab.Find(k, raw); v != *(*unsafe.Pointer)(unsafe.Pointer(&fresh)) {
		t.Error("the fresh value is not the one held")
	}
	tab.Unlock()
	if st := tab.Stats(); st.Written != 1 || st.Entries != 1 {
		t.Errorf("stats %+v", st)
	}
	type holder struct{ L map[string]string }
	h := &holder{fresh}
	if p := w[0].Path(h); p != "L" {
		t.Errorf("Path = %q, want L", p)
	}
}

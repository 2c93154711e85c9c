package jsondec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// TestSharedWrittenNotHandedOut: a program writes into a value that
// decoded objects share (a label map, an annotation, a container's env
// slice, a field of a shared struct, a slice resliced); a later decode of
// the same bytes gives what the bytes say, not the written value, reports
// where it found the write (never the value), and shares afresh after.
func TestSharedWrittenNotHandedOut(t *testing.T) {
	data := podJSON(t)
	var want benchPod
	if err := UnmarshalKube(data, &want); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		write func(p *benchPod)
		path  string // where the written value sits in the pod
	}{
		{"label added", func(p *benchPod) { p.Labels["x"] = "y" }, "metadata.labels"},
		{"label deleted", func(p *benchPod) { delete(p.Labels, "tier") }, "metadata.labels"},
		{"label rewritten, same text", func(p *benchPod) { p.Labels["tier"] = strings.Clone(p.Labels["tier"]) }, "metadata.labels"},
		{"annotation set", func(p *benchPod) { p.Annotations["prometheus.io/port"] = "1" }, "metadata.annotations"},
		{"env value", func(p *benchPod) { p.Spec.Containers[0].Env[3].Value = "/tmp" }, "spec.containers"},
		{"env resliced", func(p *benchPod) { p.Spec.Containers[0].Env = p.Spec.Containers[0].Env[:1] }, "spec.containers"},
		{"pointee field", func(p *benchPod) { p.Spec.Containers[0].Env[0].ValueFrom.FieldRef.FieldPath = "x" }, "spec.containers"},
		{"owner reference", func(p *benchPod) { p.OwnerReferences[0].Name = "other" }, "metadata.ownerReferences"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewShared(0)
			var held []*benchPod
			for range 3 {
				p := new(benchPod)
				if w, err := s.UnmarshalKubeChecked(data, p); err != nil || w != nil {
					t.Fatalf("decode: %v, written %v", err, w)
				}
				held = append(held, p)
			}
			c.write(held[2])
			var got benchPod
			written, err := s.UnmarshalKubeChecked(data, &got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&got, &want) {
				t.Fatalf("a decode after the write differs from the bytes")
			}
			if len(written) == 0 {
				t.Fatal("the write was not reported")
			}
			if p := written[0].Path(&got); p != c.path {
				t.Errorf("reported at %q, want %q (inner %q)", p, c.path, written[0].Inner)
			}
			for _, w := range written {
				if strings.Contains(w.Inner, "y") || strings.Contains(w.Inner, "/tmp") || strings.Contains(w.Inner, "other") {
					t.Errorf("the report quotes the value: %q", w.Inner)
				}
			}
			if st := s.Stats(); st.Written == 0 {
				t.Errorf("stats %+v count no write", st)
			}
			// Later decodes share the fresh value, and stay right.
			var again benchPod
			if w, err := s.UnmarshalKubeChecked(data, &again); err != nil || w != nil {
				t.Fatalf("decode: %v, written %v", err, w)
			}
			if !reflect.DeepEqual(&again, &want) {
				t.Fatal("a later decode differs from the bytes")
			}
			if reflect.ValueOf(again.Labels).UnsafePointer() != reflect.ValueOf(got.Labels).UnsafePointer() {
				t.Error("the value decoded afresh is not shared by later decodes")
			}
		})
	}
}

// TestSharedWrittenInner: the report says where in the value the write
// is, by field names and indices, not map keys or values.
func TestSharedWrittenInner(t *testing.T) {
	data := podJSON(t)
	s := NewShared(0)
	var held []*benchPod
	for range 3 {
		p := new(benchPod)
		_ = s.UnmarshalKube(data, p)
		held = append(held, p)
	}
	held[2].Spec.Containers[0].Env[3].Value = "secret"
	var got benchPod
	written, _ := s.UnmarshalKubeChecked(data, &got)
	var inner []string
	for _, w := range written {
		inner = append(inner, w.Path(&got)+" "+w.Inner)
	}
	if !strings.Contains(strings.Join(inner, ";"), "spec.containers [0].env[3].value") {
		t.Errorf("reports %q; want one at spec.containers [0].env[3].value", inner)
	}
}

// TestSharedTargetDecodedTwice: an object decoded through the table is
// decoded into again (a non-zero target, which encoding/json merges
// into): the values it shares with other objects are not written, and
// decodes after it give what their bytes say.
func TestSharedTargetDecodedTwice(t *testing.T) {
	data := podJSON(t)
	other := []byte(strings.Replace(string(data), `"tier":"frontend"`, `"tier":"backend"`, 1))
	other = []byte(strings.Replace(string(other), `"value":"/var/cache/web"`, `"value":"/elsewhere"`, 1))
	s := NewShared(0)
	var held []*benchPod
	for range 3 {
		p := new(benchPod)
		_ = s.UnmarshalKube(data, p)
		held = append(held, p)
	}
	target := held[2]
	var want benchPod
	if err := UnmarshalKube(data, &want); err != nil {
		t.Fatal(err)
	}
	if err := UnmarshalKube(other, &want); err != nil { // merged, as encoding/json
		t.Fatal(err)
	}
	if err := s.UnmarshalKube(other, target); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(target, &want) {
		t.Error("the target decoded twice differs from encoding/json's merge")
	}
	var orig benchPod
	_ = UnmarshalKube(data, &orig)
	for i, p := range held[:2] {
		if !reflect.DeepEqual(p, &orig) {
			t.Errorf("object %d, sharing values with the target, changed", i)
		}
	}
	var got benchPod
	written, _ := s.UnmarshalKubeChecked(data, &got)
	if !reflect.DeepEqual(&got, &orig) || written != nil {
		t.Errorf("a later decode differs from its bytes (written %v)", written)
	}
}

// TestSharedNonZeroRepeatedKey: a target that holds data, decoded from an
// object with a key twice, keeps the fields the input does not name
// (encoding/json merges); only a zero target starts over from zero.
func TestSharedNonZeroRepeatedKey(t *testing.T) {
	type obj struct {
		Name  string            `json:"name"`
		Node  string            `json:"node"`
		Names []string          `json:"names"`
		M     map[string]string `json:"m"`
	}
	s := NewShared(0)
	seed := []byte(`{"names":["a-long-enough-name","b-long-enough-name","c-long-enough-name"],"m":{"k":"v"}}`)
	for range 3 {
		_ = s.Unmarshal(seed, new(obj))
	}
	data := []byte(`{"names":["a-long-enough-name","b-long-enough-name","c-long-enough-name"],"m":{"k":"v"},"name":"x","name":"y"}`)
	start := obj{Node: "n1", M: map[string]string{"old": "1"}}
	want, got := start, start
	want.M = map[string]string{"old": "1"}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if err := s.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, ok := start.M["k"]; ok {
		t.Error("the target's map was written into")
	}
}

// TestSharedSliceCapacity: every slice that decodes share has its length
// as capacity in every holder, so that two holders' appends each copy
// instead of writing into the same spare element. Checked for slices
// found before decoding (the pod's containers) and after (a container's
// env, decoded inside a value the table lacked).
func TestSharedSliceCapacity(t *testing.T) {
	data := podJSON(t)
	s := NewShared(0)
	// Differ in the outer value, so that the containers are decoded and
	// their parts found after decoding.
	var pods []*benchPod
	for i := range 4 {
		d := strings.Replace(string(data), `"image":"registry.example.com/shop/web:v2.14.3"`, `"image":"registry.example.com/shop/web:v`+string(rune('a'+i))+`"`, 1)
		p := new(benchPod)
		if err := s.UnmarshalKube([]byte(d), p); err != nil {
			t.Fatal(err)
		}
		pods = append(pods, p)
	}
	for range 3 {
		p := new(benchPod)
		_ = s.UnmarshalKube(data, p)
		pods = append(pods, p)
	}
	a, b := pods[2], pods[3]
	ea, eb := a.Spec.Containers[0].Env, b.Spec.Containers[0].Env
	if unsafe.SliceData(ea) != unsafe.SliceData(eb) {
		t.Fatal("the env slices are not shared")
	}
	checkCaps(t, reflect.ValueOf(pods[5]), "pod")
	checkCaps(t, reflect.ValueOf(pods[6]), "pod")
	checkCaps(t, reflect.ValueOf(a), "pod")
	n := len(ea)
	ea = append(ea, ea[0])
	eb = append(eb, eb[1])
	if ea[n].Name != a.Spec.Containers[0].Env[0].Name || eb[n].Name != b.Spec.Containers[0].Env[1].Name {
		t.Error("two holders' appends to a shared slice overwrote each other")
	}
	c, d := pods[5].Spec.Containers, pods[6].Spec.Containers
	if unsafe.SliceData(c) != unsafe.SliceData(d) {
		t.Fatal("the containers are not shared")
	}
	c = append(c, benchContainer{Name: "c"})
	d = append(d, benchContainer{Name: "d"})
	if c[len(c)-1].Name != "c" || d[len(d)-1].Name != "d" {
		t.Error("two holders' appends to shared containers overwrote each other")
	}
}

// checkCaps fails for any non-empty slice in v with spare capacity.
func checkCaps(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkCaps(t, v.Elem(), path)
		}
	case reflect.Slice:
		if v.Len() > 0 && v.Cap() != v.Len() && v.Type().Elem().Kind() != reflect.Uint8 {
			t.Errorf("%s: capacity %d for %d elements", path, v.Cap(), v.Len())
		}
		for i := range v.Len() {
			checkCaps(t, v.Index(i), path+"[]")
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			checkCaps(t, it.Value(), path+"[k]")
		}
	case reflect.Struct:
		for i := range v.NumField() {
			checkCaps(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	}
}

// TestSharedSliceSpareCapacity: a slice whose allocation the runtime
// rounds up (7 int32s: 28 bytes in a 32-byte size class, capacity 8) is
// shared with its length as capacity in every holder, looked up before
// its decode (A) or after (N, inside a pointer the table lacks): two
// holders' appends each copy.
func TestSharedSliceSpareCapacity(t *testing.T) {
	type inner struct {
		Name string  `json:"name"`
		N    []int32 `json:"n"`
	}
	// A type of its own: its codec's lookups before decoding are on
	// (see preGate), whatever other tests decoded.
	type spareNums []int32
	type obj struct {
		A spareNums `json:"a"`
		P *inner    `json:"p"`
	}
	nums := `[1000000001, 1000000002, 1000000003, 1000000004, 1000000005, 1000000006, 1000000007]`
	s := NewShared(0)
	var held []*obj
	for i := range 5 {
		o := new(obj)
		data := `{"a":` + nums + `,"p":{"name":"object-` + strings.Repeat("x", i) + `","n":` + nums + `}}`
		if err := s.Unmarshal([]byte(data), o); err != nil {
			t.Fatal(err)
		}
		held = append(held, o)
	}
	if unsafe.SliceData(held[3].A) != unsafe.SliceData(held[4].A) || unsafe.SliceData(held[3].P.N) != unsafe.SliceData(held[4].P.N) {
		t.Fatal("the slices are not shared")
	}
	for i, o := range held[1:] {
		if cap(o.A) != len(o.A) || cap(o.P.N) != len(o.P.N) {
			t.Errorf("holder %d: capacities %d and %d for %d elements", i+1, cap(o.A), cap(o.P.N), len(o.A))
		}
	}
	a := append(held[1].P.N, 7)
	b := append(held[2].P.N, 8)
	if a[7] != 7 || b[7] != 8 {
		t.Error("two holders' appends to a shared slice overwrote each other")
	}
}

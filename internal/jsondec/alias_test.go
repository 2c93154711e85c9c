package jsondec

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// reentrantUnmarshal is what reentrant.UnmarshalJSON decodes with.
var reentrantUnmarshal func([]byte, any) error

// reentrant decodes itself with a nested Unmarshal of the same shape, as
// types with custom UnmarshalJSON often do.
type reentrant struct {
	Name string
	Kids []reentrant
	M    map[string]reentrant
}

func (n *reentrant) UnmarshalJSON(b []byte) error {
	type plain reentrant
	return reentrantUnmarshal(b, (*plain)(n))
}

// TestReentrant has UnmarshalJSON methods call Unmarshal on the same
// types while the outer call is decoding slices and maps of them (whose
// scratch values belong to the outer decoder).
func TestReentrant(t *testing.T) {
	type wrap struct {
		A []reentrant
		B reentrant
		C map[string][]reentrant
	}
	in := []byte(`{"A":[{"Name":"a","Kids":[{"Name":"b","Kids":[{"Name":"c"}]},{"Name":"d"}]},{"Name":"e"}],` +
		`"B":{"Name":"x","M":{"k":{"Name":"y","Kids":[{"Name":"z"}]}}},"C":{"q":[{"Name":"1"},{"Name":"2","Kids":[{"Name":"3"}]}]}}`)
	defer func() { reentrantUnmarshal = nil }()
	var a, b wrap
	reentrantUnmarshal = json.Unmarshal
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	reentrantUnmarshal = Unmarshal
	if err := Unmarshal(in, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("encoding/json %+v\njsondec       %+v", a, b)
	}
}

// TestNoAliasing overwrites the input after decoding: nothing decoded may
// share its bytes (source/kube reuses the buffer for the next value).
func TestNoAliasing(t *testing.T) {
	type all struct {
		S   string
		B   []byte
		R   json.RawMessage
		RP  *json.RawMessage
		RS  []json.RawMessage
		RM  map[string]json.RawMessage
		N   json.Number
		X   runtime.RawExtension
		XS  []runtime.RawExtension
		F   metav1.FieldsV1
		Q   resource.Quantity
		IS  intstr.IntOrString
		A   any
		M   map[string]string
		MK  map[string]int
		T   metav1.Time
		Txt upper
		MT  map[keyPair]upper
	}
	in := `{"S":"hello world string","B":"aGVsbG8=","R":{"a":[1,2,"x"]},"RP":[1,2],"RS":[{"z":1},"s"],"RM":{"k":{"v":true}},` +
		`"N":"123.5","X":{"kind":"K","x":"yyyyyyyyyyyyyyy"},"XS":[{"a":1},{"b":2}],"F":{"f:metadata":{}},"Q":"100Mi","IS":"50%",` +
		`"A":{"k":["v",{"w":"u"}]},"M":{"lk":"lv","esc\u0041":"v\u0042"},"MK":{"key":1},"T":"2024-01-02T03:04:05Z","Txt":"abc","MT":{"a:b":"c"}}`
	var want all
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	buf := []byte(in)
	var got all
	if err := Unmarshal(buf, &got); err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'X'
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the input changed:\njsondec       %+v\nencoding/json %+v", got, want)
	}
}

package kubewire

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// freeform is a custom resource with free-form parts, where apimachinery
// keeps integers as int64, and a field whose name differs from a key of
// the input only in case.
type freeform struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Params map[string]any `json:"params"`
		Color  string         `json:"color"`
	} `json:"spec"`
}

// TestJSONKubernetesSemantics: list items and watch objects decode as
// client-go decodes them (apimachinery's util/json: case-sensitive keys,
// integers in interfaces as int64), not as encoding/json.
func TestJSONKubernetesSemantics(t *testing.T) {
	const obj = `{"metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"spec":{"params":{"n":3,"big":9223372036854775808,"f":1.5,"l":[1,2]},"Color":"ignored"}}`
	var want freeform
	if err := utiljson.Unmarshal([]byte(obj), &want); err != nil {
		t.Fatal(err)
	}
	if _, ok := want.Spec.Params["n"].(int64); !ok || want.Spec.Color != "" {
		t.Fatalf("apimachinery decodes %#v: the test's premise is wrong", want.Spec)
	}
	newObj, err := ObjectFactory[*freeform]()
	if err != nil {
		t.Fatal(err)
	}
	d := ListDecoder[*freeform]{NewObj: newObj, MaxObject: 1 << 20, Res: "freeforms"}
	page, err := d.Decode(strings.NewReader(`{"metadata":{"resourceVersion":"5"},"items":[`+obj+`]}`), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || !reflect.DeepEqual(*page.Items[0], want) {
		t.Errorf("list item = %#v\nwant %#v", page.Items, want)
	}
	w := newWatchDecoder(strings.NewReader(`{"type":"ADDED","object":`+obj+`}`), newObj, 1<<20, "freeforms", "/freeforms", false)
	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*ev.Object, want) {
		t.Errorf("watch object = %#v\nwant %#v", ev.Object, want)
	}
}

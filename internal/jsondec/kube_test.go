package jsondec

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func podJSON(t testing.TB) []byte {
	data, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(data)
}

type kubeFields struct {
	T    metav1.Time                  `json:"t"`
	TP   *metav1.Time                 `json:"tp"`
	TS   []metav1.Time                `json:"ts"`
	Q    resource.Quantity            `json:"q"`
	QP   *resource.Quantity           `json:"qp"`
	QM   map[string]resource.Quantity `json:"qm"`
	IS   intstr.IntOrString           `json:"is"`
	ISP  *intstr.IntOrString          `json:"isp"`
	Raw  runtime.RawExtension         `json:"raw"`
	RawP *runtime.RawExtension        `json:"rawp"`
	MT   metav1.MicroTime             `json:"mt"`
	D    metav1.Duration              `json:"d"`
}

// kubeTargets are the Kubernetes-shaped types the pod and its variants
// are decoded into.
var kubeTargets = []target{
	targetOf[benchPod](nil),
	targetOf[metav1.ObjectMeta](nil),
	targetOf[metav1.PartialObjectMetadata](nil),
	targetOf[metav1.Status](nil),
	targetOf[unstructured.Unstructured](nil),
	targetOf[map[string]any](nil),
	targetOf[any](nil),
}

// podVariants returns the pod and edits of it that exercise other paths:
// nulls, escapes, white space, unusual times and numbers, duplicates.
func podVariants(pod []byte) []string {
	p := string(pod)
	r := func(old, new string) string { return strings.Replace(p, old, new, 1) }
	return []string{
		p,
		r(`"name":"web-1"`, `"name":"w\u00e9b-\"1\""`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":null`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-11-02T10:04:31.123456Z"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-11-02T10:04:31+02:00"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-02-30T10:04:31Z"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2024-02-29T23:59:59Z"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-11-02T24:04:31Z"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-11-02t10:04:31z"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-11-02T10:04:31\u005a"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":12`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":""`),
		r(`"port":"http"`, `"port":8081`),
		r(`"port":"http"`, `"port":null`),
		r(`"port":"http"`, `"port":1.5`),
		r(`"port":"http"`, `"port":4294967296`),
		r(`"port":"http"`, `"port":true`),
		r(`"port":"http"`, `"port":{}`),
		r(`"port":"http"`, `"port":"h\u0074tp"`),
		r(`"cpu":"250m"`, `"cpu":"250x"`),
		r(`"cpu":"250m"`, `"cpu":250`),
		r(`"cpu":"250m"`, `"cpu":null`),
		r(`"sizeLimit":"1Gi"`, `"sizeLimit":null`),
		r(`"labels":{`, `"labels":{"dup":"1","dup":"2",`),
		r(`"labels":{`, `"labels":null,"labels":{`),
		r(`"priority":100000`, `"priority":1e5`),
		r(`"priority":100000`, `"priority":2147483648`),
		r(`"priority":100000`, `"priority":"100000"`),
		r(`"restartCount":0`, `"restartCount":-0`),
		r(`"ready":true`, `"Ready":false`),
		r(`"spec":{`, `"SPEC":{"nodeName":"first"},"spec":{`),
		r(`"fieldsV1":{`, `"fieldsV1":null,"x":{`),
		r(`{"kind":"Pod"`, `{"kind":"Pod","unknown":[1,{"a":null},"s"]`),
		r(`{"kind":"Pod"`, `{"kind":"Status","code":410,"reason":"Expired","details":{"causes":[{"field":"x"}]}`),
		strings.ReplaceAll(p, `,"`, `, "`),
		"\n\t " + strings.ReplaceAll(strings.ReplaceAll(p, `:`, ` : `), `{`, "{\n  ") + " \r\n",
		p[:len(p)/2],
		p + `}`,
		strings.Replace(p, `"apiVersion":"v1",`, ``, 1),
	}
}

func TestPodDecode(t *testing.T) {
	for _, in := range podVariants(podJSON(t)) {
		for _, tg := range kubeTargets {
			checkDiff(t, tg, in)
		}
	}
}

func TestKubeFields(t *testing.T) {
	tg := targetOf[kubeFields](nil)
	for _, in := range []string{
		`{"t":"2026-11-02T10:04:31Z","tp":"2026-11-02T10:04:31Z","ts":["2000-01-01T00:00:00Z",null,"1999-12-31T23:59:59Z"]}`,
		`{"t":null,"tp":null}`, `{"t":"0000-01-01T00:00:00Z"}`, `{"t":"9999-12-31T23:59:59Z"}`, `{"t":"2026-13-02T10:04:31Z"}`, `{"t":"2026-11-00T10:04:31Z"}`,
		`{"t":"2026-11-02T10:60:31Z"}`, `{"t":"2026-11-02T10:04:60Z"}`, `{"t":"2100-02-29T00:00:00Z"}`, `{"t":"2000-02-29T00:00:00Z"}`, `{"t":"20a6-11-02T10:04:31Z"}`,
		`{"t":"2026-11-02 10:04:31Z"}`, `{"t":[]}`, `{"t":{}}`, `{"t":true}`,
		`{"q":"1Gi","qp":"500m","qm":{"cpu":"2","memory":"1Gi"}}`, `{"q":"x"}`, `{"q":null,"qp":null}`, `{"q":1}`, `{"q":" 1 "}`, `{"qm":{"a":null}}`, `{"q":"1e3"}`,
		`{"is":"x","isp":5}`, `{"is":5,"isp":"x"}`, `{"is":null,"isp":null}`, `{"is":2147483648}`, `{"is":-2147483648}`, `{"is":[1]}`, `{"is":false}`, `{"is":"a\u00e9"}`,
		`{"raw":{"a":[1,2, 3]},"rawp":[1]}`, `{"raw":null,"rawp":null}`, `{"raw":"x"}`,
		`{"mt":"2026-11-02T10:04:31.123456Z"}`, `{"mt":"bad"}`, `{"d":"5s"}`, `{"d":"x"}`,
	} {
		checkDiff(t, tg, in)
	}
}

// crdObject is shaped like a custom resource's Go type: free-form parts
// are any, map[string]any or []any, where apimachinery keeps integers as
// int64.
type crdObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              crdSpec        `json:"spec"`
	Status            map[string]any `json:"status,omitempty"`
}

type crdSpec struct {
	Replicas *int32         `json:"replicas,omitempty"`
	Config   any            `json:"config,omitempty"`
	Values   []any          `json:"values,omitempty"`
	Params   map[string]any `json:"params,omitempty"`
	Ratio    float64        `json:"ratio,omitempty"`
	Quoted   int64          `json:"quoted,omitempty,string"`
}

// kubeModeInputs exercise what differs between the modes: integers in
// interfaces at the edges of int64, and keys that match only ignoring case.
var kubeModeInputs = []string{
	`{"spec":{"config":1,"values":[1,-2,0,-0,1.0,1e2,1E+2,2.5,-0.0],"params":{"a":9223372036854775807,"b":-9223372036854775808,"c":9223372036854775808,"d":-9223372036854775809,"e":1e400}}}`,
	`{"spec":{"config":{"nested":[{"n":12345678901234567890}]},"ratio":3}}`,
	`{"spec":{"Replicas":3,"REPLICAS":4,"replicas":5},"Status":{"x":1}}`,
	`{"spec":{"replicas":5,"Replicas":3},"status":{"x":1},"Status":{"y":2}}`,
	`{"Spec":{"replicas":3},"METADATA":{"name":"x"},"metadata":{"Name":"y","labels":{"A":"b"}}}`,
	`{"apiversion":"v1","Kind":"X","apiVersion":"v2"}`,
	`{"spec":{"quoted":"12"}}`, `{"spec":{"Quoted":"12"}}`, `{"spec":{"quoted":12}}`,
	`{"status":{"a":[1,{"b":2}],"c":"3","d":true,"e":null}}`,
	`{"spec":{"config":1e400,"replicas":"x"}}`,
}

func TestKubeMode(t *testing.T) {
	targets := append([]target{targetOf[crdObject](nil), targetOf[kubeFields](nil), targetOf[basic](nil), targetOf[tagged](nil), targetOf[embedded](nil)}, kubeTargets...)
	for _, in := range kubeModeInputs {
		for _, tg := range targets {
			checkDiff(t, tg, in)
		}
	}
}

// TestUnmarshalKube states what UnmarshalKube does, apart from agreeing
// with apimachinery (which TestKubeMode checks).
func TestUnmarshalKube(t *testing.T) {
	var o crdObject
	in := `{"metadata":{"name":"a","Namespace":"ignored"},"Spec":{"ratio":1},"spec":{"config":7,"values":[1,2.5,1e2,9223372036854775808],"ratio":2},"status":{"n":-3}}`
	if err := UnmarshalKube([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	want := crdObject{
		ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Spec:       crdSpec{Config: int64(7), Values: []any{int64(1), 2.5, 100.0, 9223372036854775808.0}, Ratio: 2},
		Status:     map[string]any{"n": int64(-3)},
	}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("UnmarshalKube = %#v\nwant %#v", o, want)
	}
	var p crdObject
	if err := Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if p.Namespace != "ignored" || p.Spec.Config != 7.0 || p.Status["n"] != -3.0 {
		t.Errorf("Unmarshal = %#v, want encoding/json's case-insensitive keys and float64", p)
	}
}

package workload

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/informer-go/informer/internal/jsondec"
	corev1 "k8s.io/api/core/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// jsondecPod is PodJSON with its placeholders filled in.
var jsondecPod = []byte(strings.NewReplacer("NAME", "web-1", "UID", "u-1", "RV", "12").Replace(PodJSON))

// jsondecPodVariants are the pod and edits of it that take other paths:
// escapes, nulls, numbers as strings for IntOrString, unusual times and
// quantities, duplicate and case-folded keys, white space, errors.
func jsondecPodVariants() []string {
	p := string(jsondecPod)
	r := func(old, new string) string {
		if !strings.Contains(p, old) {
			return p
		}
		return strings.Replace(p, old, new, 1)
	}
	return []string{
		p,
		r(`"name":"web-1"`, `"name":"w\u00e9b-\"1\"\ud83d\ude00"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":null`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-11-02T10:04:31.5+01:00"`),
		r(`"creationTimestamp":"2026-11-02T10:04:31Z"`, `"creationTimestamp":"2026-02-30T10:04:31Z"`),
		r(`"port":"http"`, `"port":8081`),
		r(`"port":"http"`, `"port":1.5`),
		r(`"cpu":"250m"`, `"cpu":"0.25"`),
		r(`"cpu":"250m"`, `"cpu":"lots"`),
		r(`"labels":{`, `"labels":{"dup":"1","dup":"2",`),
		r(`"ready":true`, `"READY":false`),
		r(`"priority":100000`, `"priority":2147483648`),
		r(`"spec":{`, `"spec":{"unknownField":{"a":[1,2,{"b":null}]},`),
		r(`"volumes":[`, `"volumes":null,"volumes":[`),
		strings.ReplaceAll(p, `,"`, ",\n  \""),
		p[:len(p)-10],
	}
}

// TestJSONDecCorev1Pod decodes the pod and its variants into corev1.Pod
// with encoding/json and with internal/jsondec's Unmarshal, and with
// apimachinery's util/json (client-go's decoding) and UnmarshalKube, and
// compares: the same error-ness, and reflect.DeepEqual pods when both
// succeed.
func TestJSONDecCorev1Pod(t *testing.T) {
	seen := map[string]int{}
	for i, in := range jsondecPodVariants() {
		if j, ok := seen[in]; ok {
			t.Errorf("variant %d is variant %d: PodJSON changed, update the edits", i, j)
		}
		seen[in] = i
	}
	for i, in := range jsondecPodVariants() {
		for _, m := range []struct {
			name      string
			ref, ours func([]byte, any) error
		}{
			{"encoding/json", json.Unmarshal, jsondec.Unmarshal},
			{"apimachinery", utiljson.Unmarshal, jsondec.UnmarshalKube},
		} {
			var a, b corev1.Pod
			errA := m.ref([]byte(in), &a)
			errB := m.ours([]byte(in), &b)
			if (errA == nil) != (errB == nil) {
				t.Errorf("variant %d: %s: %v, jsondec: %v", i, m.name, errA, errB)
				continue
			}
			if errA == nil && !reflect.DeepEqual(a, b) {
				t.Errorf("variant %d: pods differ:\n%s %+v\njsondec       %+v", i, m.name, a, b)
			}
		}
	}
	// Decoding into a pod that already holds one (as a watch update into
	// a reused object would) must agree too.
	for i, in := range jsondecPodVariants()[:4] {
		var a, b corev1.Pod
		if err := json.Unmarshal(jsondecPod, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(jsondecPod, &b); err != nil {
			t.Fatal(err)
		}
		errA := json.Unmarshal([]byte(in), &a)
		errB := jsondec.Unmarshal([]byte(in), &b)
		if (errA == nil) != (errB == nil) || (errA == nil && !reflect.DeepEqual(a, b)) {
			t.Errorf("variant %d into a filled pod: %v / %v", i, errA, errB)
		}
	}
}

// BenchmarkPodDecode decodes the realistic pod into corev1.Pod: with
// encoding/json's semantics, and with apimachinery's (what source/kube and
// client-go use).
func BenchmarkPodDecode(b *testing.B) {
	for _, impl := range []struct {
		name string
		fn   func([]byte, any) error
	}{
		{"jsondec", jsondec.Unmarshal},
		{"encoding-json", json.Unmarshal},
		{"jsondec-kube", jsondec.UnmarshalKube},
		{"apimachinery", utiljson.Unmarshal},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(jsondecPod)))
			for b.Loop() {
				var p corev1.Pod
				if err := impl.fn(jsondecPod, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

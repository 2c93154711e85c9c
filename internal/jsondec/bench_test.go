package jsondec

import (
	"encoding/json"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// BenchmarkUnmarshalPod decodes the realistic 5.2 KiB pod into the
// pod-shaped benchPod with both modes and their references.
func BenchmarkUnmarshalPod(b *testing.B) {
	data := podJSON(b)
	for _, impl := range []struct {
		name string
		fn   func([]byte, any) error
	}{
		{"jsondec", Unmarshal},
		{"encoding-json", json.Unmarshal},
		{"jsondec-kube", UnmarshalKube},
		{"apimachinery", utiljson.Unmarshal},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var p benchPod
				if err := impl.fn(data, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValueEnd finds the end of the pod.
func BenchmarkValueEnd(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if n, err := ValueEnd(data); err != nil || n != len(data) {
			b.Fatal(n, err)
		}
	}
}

package workload

import (
	"reflect"
	"testing"

	"github.com/informer-go/informer/internal/protodec"
	corev1 "k8s.io/api/core/v1"
)

// TestProtodecCorev1Pod decodes the benchmark's protobuf pod with the
// generated Unmarshal and with internal/protodec and wants the same pod.
func TestProtodecCorev1Pod(t *testing.T) {
	data := appendProtobufPod(nil, 7, 12)
	var a, b corev1.Pod
	if err := a.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	if err := protodec.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("protodec decodes\n%#v\nthe generated Unmarshal\n%#v", b, a)
	}
}

// BenchmarkPodProtobufDecode decodes the benchmark's protobuf pod (the
// message of PodJSON's pod, without its envelope) into a new corev1.Pod:
// with the generated Unmarshal, as client-go does, and with
// internal/protodec, as kube.Protobuf does.
func BenchmarkPodProtobufDecode(b *testing.B) {
	data := appendProtobufPod(nil, 7, 12)
	b.Run("generated", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			p := new(corev1.Pod)
			if err := p.Unmarshal(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protodec", func(b *testing.B) {
		c, err := protodec.For(reflect.TypeFor[corev1.Pod]())
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			p := new(corev1.Pod)
			if err := c.Decode(data, reflect.ValueOf(p).UnsafePointer()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

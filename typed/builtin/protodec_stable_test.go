package builtin_test

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/informer-go/informer/internal/protodec"
	"github.com/informer-go/informer/internal/share"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestProtodecSharedQuantityReadOnly: Quantity.String caches its text in a
// Quantity parsed from text that is not canonical ("1024Mi" is "1Gi"), so
// reading one pod's volume size (fmt, klog and the generated String
// methods call it) wrote into every pod that shared the volumes. Such
// values are not shared; resource maps (read as copies) still are.
func TestProtodecSharedQuantityReadOnly(t *testing.T) {
	size := resource.MustParse("1Gi")
	// The text as a client that is not kube-apiserver may send it: not
	// canonical (Marshal writes the cached text as it is).
	sf, _ := reflect.TypeFor[resource.Quantity]().FieldByName("s")
	*(*string)(unsafe.Add(unsafe.Pointer(&size), sf.Offset)) = "1024Mi"
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "cache-of-the-web-frontend-in-memory", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: "Memory", SizeLimit: &size}}},
				{Name: "scratch-space-of-the-web-frontend", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
			Overhead: corev1.ResourceList{"cpu": resource.MustParse("250m"), "memory": resource.MustParse("120Mi")},
		},
	}
	data, err := pod.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	codec, err := protodec.For(reflect.TypeFor[corev1.Pod]())
	if err != nil {
		t.Fatal(err)
	}
	var want corev1.Pod
	if err := codec.Decode(data, unsafe.Pointer(&want)); err != nil {
		t.Fatal(err)
	}
	tab := share.New(0)
	pods := make([]corev1.Pod, 4)
	for i := range pods {
		if err := codec.DecodeShared(tab, data, unsafe.Pointer(&pods[i])); err != nil {
			t.Fatal(err)
		}
	}
	_ = pods[3].Spec.Volumes[0].EmptyDir.SizeLimit.String() // caches "1Gi" in it
	for i := range pods[:3] {
		if !reflect.DeepEqual(pods[i], want) {
			t.Fatalf("pod %d changed when another pod's volume size was read: %#v, want %#v",
				i, *pods[i].Spec.Volumes[0].EmptyDir.SizeLimit, *want.Spec.Volumes[0].EmptyDir.SizeLimit)
		}
	}
	if reflect.ValueOf(pods[2].Spec.Overhead).UnsafePointer() != reflect.ValueOf(pods[3].Spec.Overhead).UnsafePointer() {
		t.Error("a resource map is not shared: its values are read as copies")
	}
}

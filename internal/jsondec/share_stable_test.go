package jsondec

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// stableVolume is a volume whose size is a *resource.Quantity, as in
// corev1.EmptyDirVolumeSource.
type stableVolume struct {
	Name     string `json:"name"`
	EmptyDir *struct {
		Medium    string             `json:"medium,omitempty"`
		SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
	} `json:"emptyDir,omitempty"`
}

type stablePod struct {
	Volumes []stableVolume               `json:"volumes"`
	Limits  map[string]resource.Quantity `json:"limits"`
}

// TestSharedQuantityReadOnly: Quantity.String caches its text in a
// Quantity parsed from text that is not canonical ("1024Mi" is "1Gi"), so
// reading one pod's volume size (fmt, klog and the generated String
// methods call it) wrote into every pod that shared the volumes, which
// then differed from their decode without sharing. Such values are not
// shared; a quantity in canonical form, or one in a map (read as a copy),
// still is.
func TestSharedQuantityReadOnly(t *testing.T) {
	const data = `{"volumes":[{"name":"cache","emptyDir":{"medium":"Memory","sizeLimit":"1024Mi"}},{"name":"tmp","emptyDir":{}}],` +
		`"limits":{"cpu":"0.5","memory":"1024Mi","ephemeral-storage":"2048Mi"}}`
	s := NewShared(0)
	var want stablePod
	if err := UnmarshalKube([]byte(data), &want); err != nil {
		t.Fatal(err)
	}
	pods := make([]stablePod, 4)
	for i := range pods {
		if err := s.UnmarshalKube([]byte(data), &pods[i]); err != nil {
			t.Fatal(err)
		}
	}
	_ = pods[3].Volumes[0].EmptyDir.SizeLimit.String() // caches "1Gi" in it
	for i, p := range pods[:3] {
		if !reflect.DeepEqual(p, want) {
			t.Fatalf("pod %d changed when another pod's volume size was read:\n%#v\nwant\n%#v", i, p.Volumes[0].EmptyDir.SizeLimit, want.Volumes[0].EmptyDir.SizeLimit)
		}
	}
	if reflect.ValueOf(pods[2].Limits).UnsafePointer() != reflect.ValueOf(pods[3].Limits).UnsafePointer() {
		t.Error("a map of quantities is not shared: its values are read as copies")
	}

	// In canonical form the text is cached when parsed: shared.
	const canonical = `{"volumes":[{"name":"cache","emptyDir":{"medium":"Memory","sizeLimit":"1Gi"}},{"name":"tmp","emptyDir":{}}]}`
	pods = make([]stablePod, 3)
	for i := range pods {
		if err := s.UnmarshalKube([]byte(canonical), &pods[i]); err != nil {
			t.Fatal(err)
		}
	}
	if &pods[1].Volumes[0] != &pods[2].Volumes[0] {
		t.Error("volumes whose quantities are canonical are not shared")
	}
}

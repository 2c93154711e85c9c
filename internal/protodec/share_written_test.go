package protodec

import (
	"reflect"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/internal/share"
)

// TestSharedWrittenNotHandedOut: a program writes into values decoded
// objects share (labels, annotations, an owner reference, managed
// fields' raw bytes, a slice resliced); a later decode of the same bytes
// gives what they say, reports where the write was found, and shares
// afresh after.
func TestSharedWrittenNotHandedOut(t *testing.T) {
	cases := []struct {
		name  string
		write func(m *metav1.PartialObjectMetadata)
		path  string
	}{
		{"label added", func(m *metav1.PartialObjectMetadata) { m.Labels["x"] = "y" }, "metadata.labels"},
		{"annotation set", func(m *metav1.PartialObjectMetadata) { m.Annotations["note"] = "n" }, "metadata.annotations"},
		{"owner name", func(m *metav1.PartialObjectMetadata) { m.OwnerReferences[0].Name = "other" }, "metadata.ownerReferences"},
		{"owner pointee", func(m *metav1.PartialObjectMetadata) { *m.OwnerReferences[0].Controller = false }, "metadata.ownerReferences"},
		{"fields bytes", func(m *metav1.PartialObjectMetadata) { m.ManagedFields[0].FieldsV1.Raw[2] = 'x' }, "metadata.managedFields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := share.New(0)
			codec, err := For(reflect.TypeFor[metav1.PartialObjectMetadata]())
			if err != nil {
				t.Fatal(err)
			}
			var held []*metav1.PartialObjectMetadata
			for i := range 3 {
				m := new(metav1.PartialObjectMetadata)
				if w, err := codec.DecodeSharedChecked(tab, sharedMeta(t, i), unsafe.Pointer(m)); err != nil || w != nil {
					t.Fatalf("decode: %v, written %v", err, w)
				}
				held = append(held, m)
			}
			c.write(held[2])
			data := sharedMeta(t, 7)
			var want metav1.PartialObjectMetadata
			if err := Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			got := new(metav1.PartialObjectMetadata)
			written, err := codec.DecodeSharedChecked(tab, data, unsafe.Pointer(got))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, &want) {
				t.Fatal("a decode after the write differs from the bytes")
			}
			if len(written) == 0 {
				t.Fatal("the write was not reported")
			}
			if p := written[0].Path(got); p != c.path {
				t.Errorf("reported at %q, want %q", p, c.path)
			}
			again := new(metav1.PartialObjectMetadata)
			if w, err := codec.DecodeSharedChecked(tab, sharedMeta(t, 8), unsafe.Pointer(again)); err != nil || w != nil {
				t.Fatalf("decode: %v, written %v", err, w)
			}
			if !reflect.DeepEqual(again.Labels, want.Labels) || !reflect.DeepEqual(again.OwnerReferences, want.OwnerReferences) {
				t.Fatal("a later decode differs from the bytes")
			}
		})
	}
}

// TestSharedTargetDecodedTwice: protobuf merges into a target that is
// not zero; one that holds shared values gets memory of its own first,
// so the objects that share them keep theirs, and later decodes give
// what their bytes say.
func TestSharedTargetDecodedTwice(t *testing.T) {
	tab := share.New(0)
	var held []*metav1.PartialObjectMetadata
	for i := range 3 {
		m := new(metav1.PartialObjectMetadata)
		if err := UnmarshalShared(tab, sharedMeta(t, i), m); err != nil {
			t.Fatal(err)
		}
		held = append(held, m)
	}
	other := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Labels:          map[string]string{"app": "other", "extra": "1"},
		OwnerReferences: []metav1.OwnerReference{{Name: "second-owner"}},
	}}
	data, err := other.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	target := held[2]
	if err := UnmarshalShared(tab, data, target); err != nil {
		t.Fatal(err)
	}
	if target.Labels["app"] != "other" || len(target.OwnerReferences) != 2 {
		t.Fatalf("not merged: %v, %d owners", target.Labels, len(target.OwnerReferences))
	}
	var orig metav1.PartialObjectMetadata
	_ = Unmarshal(sharedMeta(t, 1), &orig)
	if !reflect.DeepEqual(held[1].Labels, orig.Labels) || !reflect.DeepEqual(held[1].OwnerReferences, orig.OwnerReferences) {
		t.Error("an object sharing values with the target changed")
	}
	got := new(metav1.PartialObjectMetadata)
	codec, _ := For(reflect.TypeFor[metav1.PartialObjectMetadata]())
	written, err := codec.DecodeSharedChecked(tab, sharedMeta(t, 4), unsafe.Pointer(got))
	if err != nil || written != nil || !reflect.DeepEqual(got.Labels, orig.Labels) {
		t.Errorf("a later decode: %v, written %v, labels %v", err, written, got.Labels)
	}
}

// TestSharedRunCapacity: a shared run (a repeated field) has its length
// as capacity in every holder: two holders' appends do not overwrite each
// other.
func TestSharedRunCapacity(t *testing.T) {
	tab := share.New(0)
	var held []*metav1.PartialObjectMetadata
	for i := range 4 {
		m := new(metav1.PartialObjectMetadata)
		_ = UnmarshalShared(tab, sharedMeta(t, i), m)
		held = append(held, m)
	}
	a, b := held[2].OwnerReferences, held[3].OwnerReferences
	if unsafe.SliceData(a) != unsafe.SliceData(b) {
		t.Fatal("not shared")
	}
	for i, m := range held[1:] {
		for _, s := range []int{cap(m.OwnerReferences) - len(m.OwnerReferences), cap(m.ManagedFields) - len(m.ManagedFields)} {
			if s != 0 {
				t.Errorf("object %d: a shared slice has %d spare elements", i, s)
			}
		}
	}
	a = append(a, metav1.OwnerReference{Name: "a"})
	b = append(b, metav1.OwnerReference{Name: "b"})
	if a[len(a)-1].Name != "a" || b[len(b)-1].Name != "b" {
		t.Error("two holders' appends overwrote each other")
	}
}

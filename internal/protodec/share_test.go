package protodec

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-go/informer/internal/share"
)

// sharedMeta is the metadata of a pod of a Deployment: the labels,
// annotations, owner reference and managed fields repeat from pod to pod,
// the name, UID and resourceVersion do not.
func sharedMeta(t testing.TB, i int) []byte {
	t.Helper()
	m := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: "web-7f9c-" + strings.Repeat("x", i), Namespace: "shop", UID: types.UID("u-" + strings.Repeat("1", i)), ResourceVersion: "12",
		DeletionGracePeriodSeconds: new(int64(30)),
		Labels:                     map[string]string{"app": "web", "pod-template-hash": "7f9c", "team": "storefront"},
		Annotations:                map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-02T10:04:31Z", "note": "an annotation of some length, as objects have"},
		OwnerReferences:            []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7f9c-owner", UID: "0b8f1c2e-5d7a-4e0b-9a55-3c1f0d2b7e61", Controller: new(true), BlockOwnerDeletion: new(true)}},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}},"f:ownerReferences":{}}}`)}}},
	}}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSharedMetadata decodes the metadata of pods of one Deployment
// through a table: each equals its decode without the table; from the
// third on, the labels, annotations, owner references and managed fields
// are the table's values (those of the second, the first sighting only
// being recorded), and a shared slice's capacity is its length.
func TestSharedMetadata(t *testing.T) {
	tab := share.New(0)
	var got []*metav1.PartialObjectMetadata
	for i := range 5 {
		data := sharedMeta(t, i)
		var want metav1.PartialObjectMetadata
		if err := Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		m := new(metav1.PartialObjectMetadata)
		if err := UnmarshalShared(tab, data, m); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, &want) {
			t.Fatalf("object %d decoded through the table:\n%#v\nwithout:\n%#v", i, m, &want)
		}
		got = append(got, m)
	}
	same := func(a, b *metav1.PartialObjectMetadata) []string {
		var differ []string
		if reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
			differ = append(differ, "labels")
		}
		if reflect.ValueOf(a.Annotations).UnsafePointer() != reflect.ValueOf(b.Annotations).UnsafePointer() {
			differ = append(differ, "annotations")
		}
		if unsafe.SliceData(a.OwnerReferences) != unsafe.SliceData(b.OwnerReferences) {
			differ = append(differ, "ownerReferences")
		}
		if unsafe.SliceData(a.ManagedFields) != unsafe.SliceData(b.ManagedFields) {
			differ = append(differ, "managedFields")
		}
		return differ
	}
	if d := same(got[1], got[4]); len(d) > 0 {
		t.Errorf("not shared: %v", d)
	}
	if d := same(got[0], got[4]); len(d) != 4 {
		t.Errorf("the first decode's values are shared (%d of 4 not): the table admits a value on its second sighting", len(d))
	}
	if r := got[4].OwnerReferences; cap(r) != len(r) {
		t.Errorf("a shared slice has capacity %d for %d elements: an append would write into it", cap(r), len(r))
	}
	if st := tab.Stats(); st.Hits < 12 {
		t.Errorf("stats %+v: want at least 12 hits", st)
	}
}

// TestSharedValuesOwnTheirMemory: a value that enters the table is
// allocated on its own, so it does not keep alive the strings, numbers
// and pooled values of the object it was first decoded for: once that
// object is gone, its memory is collected even while other objects hold
// the shared value.
func TestSharedValuesOwnTheirMemory(t *testing.T) {
	tab := share.New(0)
	decode := func(i int) *metav1.PartialObjectMetadata {
		m := new(metav1.PartialObjectMetadata)
		if err := UnmarshalShared(tab, sharedMeta(t, i), m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	_ = decode(1)       // first sighting
	second := decode(2) // enters the table
	name := weak.Make(unsafe.StringData(second.Name))
	grace := weak.Make(second.DeletionGracePeriodSeconds)
	third := decode(3)
	if unsafe.SliceData(third.OwnerReferences) != unsafe.SliceData(second.OwnerReferences) {
		t.Fatal("the owner references are not shared")
	}
	second = nil
	runtime.GC()
	runtime.GC()
	if name.Value() != nil {
		t.Error("the strings of the object a shared value was decoded for are kept alive by it")
	}
	if grace.Value() != nil {
		t.Error("the numbers of the object a shared value was decoded for are kept alive by it")
	}
	runtime.KeepAlive(third)
}

// TestSharedMerge: a message whose fields come twice (protobuf merges
// them: a message field into the first, a map's entries added, a
// repeated field's run appended) decodes through a table as without it,
// and never writes into a value other objects share; nor does a decode
// into a value of the caller's that is not zero.
func TestSharedMerge(t *testing.T) {
	long := strings.Repeat("long enough to share ", 4)
	for _, c := range []struct {
		name         string
		first, again msg
	}{
		{"map", msg(nil).bytes(22, entry(msg(nil).str(1, "a"), msg(nil).str(2, long))),
			msg(nil).bytes(22, entry(msg(nil).str(1, "b"), msg(nil).str(2, "2")))},
		{"pointer", msg(nil).bytes(15, msg(nil).str(1, long).varint(2, 1)),
			msg(nil).bytes(15, msg(nil).varint(2, 5))},
		{"repeated", msg(nil).bytes(20, msg(nil).str(1, long)).bytes(20, msg(nil).str(1, long+"2")),
			msg(nil).bytes(20, msg(nil).str(1, "third"))},
		{"strings", msg(nil).str(19, long).str(19, long), msg(nil).str(19, "more")},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Another field between the two, so that the second is
			// not part of the first's run.
			merged := append(append(append([]byte(nil), c.first...), msg(nil).varint(1, 1)...), c.again...)
			tab := share.New(0)
			var held []*kinds
			for range 3 {
				k := new(kinds)
				if err := UnmarshalShared(tab, c.first, k); err != nil {
					t.Fatal(err)
				}
				held = append(held, k)
			}
			if tab.Stats().Hits == 0 {
				t.Fatal("nothing shared")
			}
			var want, was kinds
			if err := Unmarshal(merged, &want); err != nil {
				t.Fatal(err)
			}
			if err := Unmarshal(c.first, &was); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				var got kinds
				if err := UnmarshalShared(tab, merged, &got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("merged through the table:\n%#v\nwithout:\n%#v", got, want)
				}
			}
			// Into a value of the caller's own that is not zero: merged
			// into, as without the table. (Into one that holds shared
			// values, that would write into them: what the contract of
			// sharing forbids.)
			k := new(kinds)
			if err := Unmarshal(c.first, k); err != nil {
				t.Fatal(err)
			}
			if err := UnmarshalShared(tab, append(msg(nil).varint(1, 1), c.again...), k); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*k, want) {
				t.Fatalf("decoded into a value that is not zero:\n%#v\nwant:\n%#v", *k, want)
			}
			for i, h := range held {
				if !reflect.DeepEqual(*h, was) {
					t.Fatalf("object %d, which shares values, changed:\n%#v\nwas:\n%#v", i, *h, was)
				}
			}
		})
	}
}

// TestSharedTargetZero: whether the target is zero is checked without
// reading past it, whatever its size and alignment: decoding into each
// 4-byte element of a 16-byte slice (the last ends its allocation) with
// go test -race, whose checkptr died on a *uint64 made from the
// element's address; and a target that is not zero is merged into.
func TestSharedTargetZero(t *testing.T) {
	type small struct {
		A int16 `protobuf:"varint,1,opt,name=a"`
		B int16 `protobuf:"varint,2,opt,name=b"`
	}
	tab := share.New(0)
	vals := make([]small, 4)
	vals[1].B = 7 // not zero: merged into
	for i := range vals {
		if err := UnmarshalShared(tab, msg(nil).varint(1, uint64(i+1)), &vals[i]); err != nil {
			t.Fatal(err)
		}
	}
	if want := []small{{A: 1}, {A: 2, B: 7}, {A: 3}, {A: 4}}; !reflect.DeepEqual(vals, want) {
		t.Fatalf("got %+v, want %+v", vals, want)
	}
	for _, c := range []struct {
		b    []byte
		zero bool
	}{{make([]byte, 13), true}, {append(make([]byte, 12), 1), false}, {append([]byte{1}, make([]byte, 12)...), false}} {
		for off := range 2 { // aligned, and not
			buf := append(make([]byte, off, 16+off), c.b...)
			if got := isZero(unsafe.Pointer(&buf[off]), uintptr(len(c.b))); got != c.zero {
				t.Errorf("isZero(%v at offset %d) = %v", c.b, off, got)
			}
		}
	}
}

package jsondec

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// sharedFuzzTargets are the types FuzzSharedKeepsValues decodes into: the
// ones with shareable parts (slices, maps, pointers to structs).
var sharedFuzzTargets = []reflect.Type{
	reflect.TypeFor[benchPod](),
	reflect.TypeFor[metav1.ObjectMeta](),
	reflect.TypeFor[kubeFields](),
	reflect.TypeFor[crdObject](),
	reflect.TypeFor[unstructured.Unstructured](),
	reflect.TypeFor[map[string]any](),
	reflect.TypeFor[[]map[string][]string](),
}

// sharedKept is what FuzzSharedKeepsValues decoded for earlier inputs: each
// value decoded through the table, beside the same input decoded without
// one (which shares nothing, so no later decode can write into it).
type sharedKept struct {
	got, want any
}

// FuzzSharedKeepsValues is the differential fuzzer of sharing against no
// sharing, input after input through one table: a decode through the table
// fails exactly when the decode without one does and gives an equal value,
// and no later decode (of this input or of the ones after it) changes a
// value decoded before, which would be a write into a value the table
// shares. FuzzUnmarshal compares each decode with encoding/json once; this
// one keeps the decoded values and checks them again later.
func FuzzSharedKeepsValues(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(uint8(i), i%2 == 0, s)
	}
	pod := podJSON(f)
	for i := range sharedFuzzTargets {
		f.Add(uint8(i), true, pod)
	}
	// A field repeated: merged into the value the first one set, which
	// must not be a shared one (the next input would find it changed).
	f.Add(uint8(0), true, []byte(`{"metadata":{"labels":{"a":"b","c":"d"}},"metadata":{"labels":{"e":"f"}}}`))
	f.Add(uint8(0), true, []byte(`{"metadata":{"labels":{"a":"b","c":"d"}}}`))
	f.Add(uint8(5), false, []byte(`{"a":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25],"b":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]}`))
	s := NewShared(0)
	var kept []sharedKept
	next := 0
	f.Fuzz(func(t *testing.T, which uint8, kube bool, data []byte) {
		typ := sharedFuzzTargets[int(which)%len(sharedFuzzTargets)]
		dec, shared := Unmarshal, s.Unmarshal
		if kube {
			dec, shared = UnmarshalKube, s.UnmarshalKube
		}
		want := reflect.New(typ).Interface()
		wantErr := dec(data, want)
		for i := range 3 {
			got := reflect.New(typ).Interface()
			gotErr := shared(data, got)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("%v ← %q: decode %d through the table: error %v; without: %v", typ, data, i, gotErr, wantErr)
			}
			if wantErr != nil || !reflect.DeepEqual(want, want) {
				continue // an error, or a NaN, equal to nothing
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%v ← %q: decode %d through the table gives\n%s\nwithout\n%s", typ, data, i, dump(got), dump(want))
			}
			if len(kept) < 64 {
				kept = append(kept, sharedKept{got, want})
			} else {
				kept[next] = sharedKept{got, want}
				next = (next + 1) % len(kept)
			}
		}
		for _, k := range kept {
			if !reflect.DeepEqual(k.got, k.want) {
				t.Fatalf("%T decoded through the table earlier was changed by a later decode (this one: %v ← %q): now\n%s\nwithout sharing\n%s",
					k.got, typ, data, dump(k.got), dump(k.want))
			}
		}
	})
}

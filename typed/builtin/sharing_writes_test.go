package builtin_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/informer-go/informer/internal/jsondec"
	"github.com/informer-go/informer/internal/protodec"
	"github.com/informer-go/informer/internal/share"
	"github.com/informer-go/informer/internal/share/sharetest"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TestSharingDifferentialWithWrites is the differential of issue 34 over
// every k8s.io/api type (prototypes_test.go), JSON and protobuf through
// one share.Table for the whole run: each value is decoded through the
// table three times and the decodes are kept (so the table holds their
// parts), then written into as a careless program would
// (sharetest.Scribble), then decoded again through the table, and into
// a target decoded into twice (the second value merged into the first,
// as encoding/json and protobuf merge): every decode after the writes
// equals the decode of the same bytes without a table.
func TestSharingDifferentialWithWrites(t *testing.T) {
	tab := share.New(0)
	js := jsondec.SharedBy(tab)
	r := rand.New(rand.NewPCG(34, 1))
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	var held []any // decodes kept, so that the table keeps their parts
	writes, found := 0, 0
	for i, v := range protoTypes {
		typ := reflect.TypeOf(v).Elem()
		if typ.Kind() != reflect.Struct {
			continue
		}
		codec, err := protodec.For(typ)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		f := filler(int64(3400 + i))
		for round := range rounds {
			a, b := reflect.New(typ).Interface(), reflect.New(typ).Interface()
			f.Fill(a)
			f.Fill(b)
			what := fmt.Sprintf("%v round %d", typ, round)
			pa, err1 := a.(generated).Marshal()
			pb, err2 := b.(generated).Marshal()
			ja, err3 := json.Marshal(a)
			jb, err4 := json.Marshal(b)
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
				continue
			}
			protoDec := func(data []byte, into any) ([]share.Written, error) {
				return codec.DecodeSharedChecked(tab, data, reflect.ValueOf(into).UnsafePointer())
			}
			jsonDec := func(data []byte, into any) ([]share.Written, error) {
				return js.UnmarshalKubeChecked(data, into)
			}
			protoPlain := func(data []byte, into any) error { return codec.Decode(data, reflect.ValueOf(into).UnsafePointer()) }
			for _, enc := range []struct {
				name   string
				a, b   []byte
				shared func([]byte, any) ([]share.Written, error)
				plain  func([]byte, any) error
			}{
				{"protobuf", pa, pb, protoDec, protoPlain},
				{"json", ja, jb, jsonDec, jsondec.UnmarshalKube},
			} {
				want := reflect.New(typ).Interface()
				if err := enc.plain(enc.a, want); err != nil {
					continue
				}
				if !reflect.DeepEqual(want, want) { // a NaN
					continue
				}
				var kept []any
				for range 3 {
					got := reflect.New(typ).Interface()
					if _, err := enc.shared(enc.a, got); err != nil {
						t.Fatalf("%s %s: %v", what, enc.name, err)
					}
					kept = append(kept, got)
				}
				held = append(held, kept...)
				var did []string
				for range 1 + r.IntN(3) {
					if d := sharetest.Scribble(kept[1+r.IntN(2)], r); d != "" {
						writes++
						did = append(did, d)
					}
				}
				got := reflect.New(typ).Interface()
				w, err := enc.shared(enc.a, got)
				if err != nil {
					t.Fatalf("%s %s: %v", what, enc.name, err)
				}
				found += len(w)
				if !reflect.DeepEqual(got, want) || !equality.Semantic.DeepEqual(got, want) {
					t.Fatalf("%s %s: a decode after writes into earlier decodes differs from its bytes (writes %q; first difference %s)", what, enc.name, did, firstDiff(reflect.ValueOf(got), reflect.ValueOf(want), ""))
				}
				// A target decoded into twice: the first decode's
				// (maybe shared) values are not written by the merge.
				twice := reflect.New(typ).Interface()
				if _, err := enc.shared(enc.a, twice); err != nil {
					t.Fatal(err)
				}
				wantTwice := reflect.New(typ).Interface()
				_ = enc.plain(enc.a, wantTwice)
				errWant := enc.plain(enc.b, wantTwice)
				_, errGot := enc.shared(enc.b, twice)
				if (errWant == nil) != (errGot == nil) {
					t.Fatalf("%s %s, decoded twice: %v without a table, %v with", what, enc.name, errWant, errGot)
				}
				if errWant == nil && reflect.DeepEqual(wantTwice, wantTwice) && !reflect.DeepEqual(twice, wantTwice) {
					t.Fatalf("%s %s: a target decoded twice differs from the same without a table", what, enc.name)
				}
				again := reflect.New(typ).Interface()
				if _, err := enc.shared(enc.a, again); err != nil || !reflect.DeepEqual(again, want) {
					t.Fatalf("%s %s: a decode after a target was decoded into twice differs from its bytes (%v)", what, enc.name, err)
				}
			}
		}
	}
	st := tab.Stats()
	if st.Hits == 0 || writes == 0 || found == 0 {
		t.Fatalf("hits %d, writes %d, writes found %d: the test does not test the guard", st.Hits, writes, found)
	}
	t.Logf("%d values held, %d writes, %d written values found (%d hits)", len(held), writes, found, st.Hits)
}

// FuzzProtodecPodWrites is FuzzProtodecPod with a write step (issue 34):
// input after input through one table, the pods decoded through it are
// kept and written into (sharetest.Scribble, seeded by the input); every
// decode after the writes must equal the decode of its bytes without a
// table.
func FuzzProtodecPodWrites(f *testing.F) {
	fill := filler(34)
	for i := range 6 {
		p := new(corev1.Pod)
		fill.Fill(p)
		data, err := p.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint64(i), data)
		f.Add(uint64(i+100), data) // the same bytes again: found in the table
	}
	codec, err := protodec.For(reflect.TypeFor[corev1.Pod]())
	if err != nil {
		f.Fatal(err)
	}
	tab := share.New(0)
	var held []*corev1.Pod
	next := 0
	f.Fuzz(func(t *testing.T, seed uint64, data []byte) {
		r := rand.New(rand.NewPCG(seed, uint64(len(data))))
		want := new(corev1.Pod)
		if codec.Decode(data, unsafe.Pointer(want)) != nil || !reflect.DeepEqual(want, want) {
			return
		}
		for i := range 4 {
			got := new(corev1.Pod)
			if err := codec.DecodeShared(tab, data, unsafe.Pointer(got)); err != nil {
				t.Fatalf("decode %d through the table: %v; without: none", i, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decode %d through the table, after writes into pods decoded before, differs from its bytes at %s", i, firstDiff(reflect.ValueOf(got), reflect.ValueOf(want), ""))
			}
			if len(held) < 64 {
				held = append(held, got)
			} else {
				held[next] = got
				next = (next + 1) % len(held)
			}
			sharetest.Scribble(held[r.IntN(len(held))], r)
		}
	})
}

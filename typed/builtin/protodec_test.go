package builtin_test

//go:generate ./gen_prototypes.sh

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/protodec"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// generated is what the generated protobuf code of a type offers.
type generated interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// filler returns a randfill.Filler that makes values the generated
// Marshal accepts and that round-trip through it: valid quantities, times
// within Timestamp's range, RawExtensions without an Object.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.25).NumElements(0, 3).MaxDepth(8).Funcs(
		func(t *metav1.Time, c randfill.Continue) {
			if c.Intn(4) > 0 {
				*t = metav1.Unix(c.Int63n(1<<34)-(1<<33), c.Int63n(1e9))
			}
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			if c.Intn(4) > 0 {
				*t = metav1.NewMicroTime(time.Unix(c.Int63n(1<<34)-(1<<33), c.Int63n(1e9)))
			}
		},
		func(q *resource.Quantity, c randfill.Continue) {
			formats := []resource.Format{resource.DecimalSI, resource.BinarySI, resource.DecimalExponent}
			*q = *resource.NewScaledQuantity(c.Int63n(1<<40)-(1<<39), resource.Scale(c.Intn(19)-9))
			q.Format = formats[c.Intn(len(formats))]
			_ = q.String() // caches the string form, which Marshal sends
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(12))
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			if c.Intn(3) > 0 {
				r.Raw = []byte(c.String(40))
			}
		},
	)
}

// TestProtodecMatchesGenerated decodes random values of every k8s.io/api
// type with a generated Unmarshal (prototypes_test.go) with both decoders
// and wants the same result: a value alone, and two values concatenated
// (protobuf merges them: scalars replaced, repeated fields appended, maps
// and nested messages merged).
func TestProtodecMatchesGenerated(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	compiled, bytes := 0, 0
	for i, v := range protoTypes {
		typ := reflect.TypeOf(v).Elem()
		if typ.Kind() != reflect.Struct {
			continue // named slices such as Verbs: decoded as fields, below
		}
		t.Run(typ.PkgPath()+"."+typ.Name(), func(t *testing.T) {
			codec, err := protodec.For(typ)
			if err != nil {
				t.Fatalf("For: %v", err)
			}
			compiled++
			f := filler(int64(i))
			for r := range rounds {
				a := reflect.New(typ).Interface()
				f.Fill(a)
				data, err := a.(generated).Marshal()
				if err != nil {
					t.Fatalf("round %d: Marshal: %v", r, err)
				}
				bytes += len(data)
				compare(t, codec, typ, data, fmt.Sprintf("round %d", r))
				b := reflect.New(typ).Interface()
				f.Fill(b)
				more, err := b.(generated).Marshal()
				if err != nil {
					t.Fatalf("round %d: Marshal: %v", r, err)
				}
				compare(t, codec, typ, append(data, more...), fmt.Sprintf("round %d, merged", r))
			}
		})
	}
	t.Logf("%d types compiled and compared, %d bytes of messages", compiled, bytes)
}

// compare decodes data with the generated Unmarshal and with codec and
// wants the same value, or both to fail.
func compare(t *testing.T, codec *protodec.Codec, typ reflect.Type, data []byte, what string) {
	t.Helper()
	want := reflect.New(typ)
	wantErr := want.Interface().(generated).Unmarshal(data)
	got := reflect.New(typ)
	gotErr := codec.Decode(data, got.UnsafePointer())
	switch {
	case wantErr != nil && gotErr != nil:
	case wantErr != nil:
		t.Fatalf("%s: the generated Unmarshal fails (%v), protodec does not", what, wantErr)
	case gotErr != nil:
		t.Fatalf("%s: protodec fails: %v", what, gotErr)
	case !reflect.DeepEqual(want.Interface(), got.Interface()):
		t.Fatalf("%s: protodec decodes\n%#v\nthe generated Unmarshal\n%#v", what, got.Interface(), want.Interface())
	}
}

// FuzzProtodecPod feeds hostile input to the decoder of corev1.Pod (and
// Secret, for map[string][]byte): it must never panic, its errors must
// match protodec.ErrMalformed, and when it succeeds and the generated
// Unmarshal too, both must decode the same.
func FuzzProtodecPod(f *testing.F) {
	fill := filler(1)
	for range 4 {
		for _, v := range []generated{new(corev1.Pod), new(corev1.Secret)} {
			fill.Fill(v)
			data, err := v.Marshal()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	pod, err := protodec.For(reflect.TypeFor[corev1.Pod]())
	if err != nil {
		f.Fatal(err)
	}
	secret, err := protodec.For(reflect.TypeFor[corev1.Secret]())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzCompare(t, pod, data)
		fuzzCompare(t, secret, data)
	})
}

func fuzzCompare(t *testing.T, codec *protodec.Codec, data []byte) {
	got := reflect.New(codec.Type())
	gotErr := codec.Decode(data, got.UnsafePointer())
	if gotErr != nil && !errors.Is(gotErr, protodec.ErrMalformed) {
		t.Fatalf("error %v does not match ErrMalformed", gotErr)
	}
	if gotErr != nil {
		// Only then: on some malformed input the generated code runs
		// for hours (resource.ParseQuantity on a quantity with a huge
		// negative exponent, which protodec refuses).
		return
	}
	want := reflect.New(codec.Type())
	wantErr := want.Interface().(generated).Unmarshal(data)
	if wantErr == nil && !reflect.DeepEqual(want.Interface(), got.Interface()) {
		t.Fatalf("protodec decodes\n%#v\nthe generated Unmarshal\n%#v", got.Interface(), want.Interface())
	}
}

package builtin_test

//go:generate ./gen_prototypes.sh

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/protodec"
	"github.com/informer-go/informer/internal/share"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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
// and nested messages merged). protodec decodes each also through one
// share.Table, three times (so that its parts come from the table), and
// that must give the same values again (reflect.DeepEqual and
// equality.Semantic.DeepEqual).
func TestProtodecMatchesGenerated(t *testing.T) {
	tab := share.New(0)
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
				compare(t, tab, codec, typ, data, fmt.Sprintf("round %d", r))
				b := reflect.New(typ).Interface()
				f.Fill(b)
				more, err := b.(generated).Marshal()
				if err != nil {
					t.Fatalf("round %d: Marshal: %v", r, err)
				}
				compare(t, tab, codec, typ, append(data, more...), fmt.Sprintf("round %d, merged", r))
			}
		})
	}
	st := tab.Stats()
	if st.Hits == 0 {
		t.Fatal("nothing was shared: the test does not test sharing")
	}
	t.Logf("%d types compiled and compared, %d bytes of messages, %d parts shared", compiled, bytes, st.Hits)
}

// compare decodes data with the generated Unmarshal and with codec and
// wants the same value, or both to fail; then with codec through tab.
func compare(t *testing.T, tab *share.Table, codec *protodec.Codec, typ reflect.Type, data []byte, what string) {
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
	if gotErr == nil {
		sharedMatches(t, tab, codec, data, got.Interface(), what)
	}
}

// sharedMatches decodes data with codec through tab three times and
// wants what want (decoded without a table) holds.
func sharedMatches(t *testing.T, tab *share.Table, codec *protodec.Codec, data []byte, want any, what string) {
	t.Helper()
	for k := range 3 {
		got := reflect.New(codec.Type())
		if err := codec.DecodeShared(tab, data, got.UnsafePointer()); err != nil {
			t.Fatalf("%s: shared decode %d fails (%v), not without sharing", what, k, err)
		}
		if !reflect.DeepEqual(got.Interface(), want) || !equality.Semantic.DeepEqual(got.Interface(), want) {
			t.Fatalf("%s: shared decode %d gives\n%#v\nwithout sharing\n%#v", what, k, got.Interface(), want)
		}
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
	// A message concatenated to another merges into it: the labels of
	// the second are added to the first's map, which must not be a shared
	// one by then (the next input, the first alone, would find it changed).
	labels := func(l map[string]string) []byte {
		b, err := (&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: l}}).Marshal()
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	first := labels(map[string]string{"app": "web", "tier": "front"})
	f.Add(append(append([]byte(nil), first...), labels(map[string]string{"e": "f"})...))
	f.Add(first)
	pod, err := protodec.For(reflect.TypeFor[corev1.Pod]())
	if err != nil {
		f.Fatal(err)
	}
	secret, err := protodec.For(reflect.TypeFor[corev1.Secret]())
	if err != nil {
		f.Fatal(err)
	}
	tab := share.New(0)
	var kept keptDecodes
	f.Fuzz(func(t *testing.T, data []byte) {
		kept.add(fuzzCompare(t, tab, pod, data))
		kept.add(fuzzCompare(t, tab, secret, data))
		kept.check(t, data)
	})
}

// keptDecodes are values decoded through a table for earlier fuzz inputs,
// each beside the same input decoded without one (which shares nothing):
// a later decode that changed one wrote into a value the table shares.
type keptDecodes struct {
	pairs [][2]any // got, want
	next  int
}

func (k *keptDecodes) add(got, want any) {
	switch {
	case got == nil:
	case len(k.pairs) < 64:
		k.pairs = append(k.pairs, [2]any{got, want})
	default:
		k.pairs[k.next] = [2]any{got, want}
		k.next = (k.next + 1) % len(k.pairs)
	}
}

func (k *keptDecodes) check(t *testing.T, data []byte) {
	t.Helper()
	for _, p := range k.pairs {
		if !reflect.DeepEqual(p[0], p[1]) {
			t.Fatalf("%T decoded through the table earlier was changed by a later decode (this input: %q): now\n%#v\nwithout sharing\n%#v", p[0], data, p[0], p[1])
		}
	}
}

// fuzzCompare decodes data with codec, without a table and through tab,
// and with the generated Unmarshal. It returns one more decode through tab
// and the decode without (nil, nil if the decode fails), for keptDecodes.
func fuzzCompare(t *testing.T, tab *share.Table, codec *protodec.Codec, data []byte) (shared, unshared any) {
	got := reflect.New(codec.Type())
	gotErr := codec.Decode(data, got.UnsafePointer())
	if gotErr != nil && !errors.Is(gotErr, protodec.ErrMalformed) {
		t.Fatalf("error %v does not match ErrMalformed", gotErr)
	}
	if gotErr != nil {
		// Only then: on some malformed input the generated code runs
		// for hours (resource.ParseQuantity on a quantity with a huge
		// negative exponent, which protodec refuses).
		return nil, nil
	}
	sharedMatches(t, tab, codec, data, got.Interface(), "fuzz input")
	if reflect.DeepEqual(got.Interface(), got.Interface()) { // no NaN
		sh := reflect.New(codec.Type())
		if err := codec.DecodeShared(tab, data, sh.UnsafePointer()); err == nil {
			shared, unshared = sh.Interface(), got.Interface()
		}
	}
	want := reflect.New(codec.Type())
	wantErr := want.Interface().(generated).Unmarshal(data)
	if wantErr == nil && !reflect.DeepEqual(want.Interface(), got.Interface()) {
		t.Fatalf("protodec decodes\n%#v\nthe generated Unmarshal\n%#v", got.Interface(), want.Interface())
	}
	return shared, unshared
}

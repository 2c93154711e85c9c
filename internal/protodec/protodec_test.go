package protodec

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// wrappedList is a named slice with its own Unmarshal, as ExtraValue: a
// message {1: repeated string}.
type wrappedList []string

func (*wrappedList) Unmarshal([]byte) error { panic("protodec must not call it") }

type inner struct {
	Name string `protobuf:"bytes,1,opt,name=name"`
	N    int32  `protobuf:"varint,2,opt,name=n"`
}

// kinds has a field of every encoding the decoder knows.
type kinds struct {
	Bool      bool                            `protobuf:"varint,1,opt,name=bool"`
	Int32     int32                           `protobuf:"varint,2,opt,name=int32"`
	Int64     int64                           `protobuf:"varint,3,opt,name=int64"`
	Uint32    uint32                          `protobuf:"varint,4,opt,name=uint32"`
	Uint64    uint64                          `protobuf:"varint,5,opt,name=uint64"`
	Sint32    int32                           `protobuf:"zigzag32,6,opt,name=sint32"`
	Sint64    int64                           `protobuf:"zigzag64,7,opt,name=sint64"`
	Fixed32   uint32                          `protobuf:"fixed32,8,opt,name=fixed32"`
	Fixed64   int64                           `protobuf:"fixed64,9,opt,name=fixed64"`
	Float     float32                         `protobuf:"fixed32,10,opt,name=float"`
	Double    float64                         `protobuf:"fixed64,11,opt,name=double"`
	String    string                          `protobuf:"bytes,12,opt,name=string"`
	Bytes     []byte                          `protobuf:"bytes,13,opt,name=bytes"`
	Inner     inner                           `protobuf:"bytes,14,opt,name=inner"`
	InnerPtr  *inner                          `protobuf:"bytes,15,opt,name=innerPtr"`
	IntPtr    *int32                          `protobuf:"varint,16,opt,name=intPtr"`
	StrPtr    *string                         `protobuf:"bytes,17,opt,name=strPtr"`
	Ints      []int32                         `protobuf:"varint,18,rep,name=ints"`
	Strings   []string                        `protobuf:"bytes,19,opt,name=strings"` // "opt", as some k8s tags say
	Inners    []inner                         `protobuf:"bytes,20,rep,name=inners"`
	InnerPtrs []*inner                        `protobuf:"bytes,21,rep,name=innerPtrs"`
	Labels    map[string]string               `protobuf:"bytes,22,rep,name=labels"`
	ByInt     map[int32]string                `protobuf:"bytes,23,rep,name=byInt"`
	ByName    map[string]inner                `protobuf:"bytes,24,rep,name=byName"`
	Data      map[string][]byte               `protobuf:"bytes,25,rep,name=data"`
	Wrapped   wrappedList                     `protobuf:"bytes,26,opt,name=wrapped"`
	Extra     map[string]wrappedList          `protobuf:"bytes,27,rep,name=extra"`
	Time      metav1.Time                     `protobuf:"bytes,28,opt,name=time"`
	TimePtr   *metav1.Time                    `protobuf:"bytes,29,opt,name=timePtr"`
	Micro     metav1.MicroTime                `protobuf:"bytes,30,opt,name=micro"`
	Quantity  resource.Quantity               `protobuf:"bytes,31,opt,name=quantity"`
	UID       types.UID                       `protobuf:"bytes,32,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Resources map[types.UID]resource.Quantity `protobuf:"bytes,33,rep,name=resources,castkey=k8s.io/apimachinery/pkg/types.UID"`
	Big       int64                           `protobuf:"varint,600,opt,name=big"` // past the dense table
	Untagged  string
}

func TestDecodeKinds(t *testing.T) {
	ts := time.Date(2026, 11, 2, 10, 4, 31, 0, time.UTC)
	data := msg(nil).
		varint(1, 1).varint(2, uint64(0xFFFFFFFFFFFFFFFF)). // -1 as int32, 10 bytes
		varint(3, 1<<40).varint(4, 7).varint(5, 1<<63).
		zigzag(6, -5).zigzag(7, -1<<40).
		fixed32(8, 0xDEADBEEF).fixed64(9, 42).
		fixed32(10, 0x3FC00000). // 1.5
		double(11, 2.25).
		str(12, "hello").bytes(13, []byte{}).
		bytes(14, msg(nil).str(1, "in").varint(2, 3)).
		bytes(15, msg(nil).str(1, "ptr")).
		varint(16, 9).str(17, "sp").
		varint(18, 1).packed(18, 2, 3).varint(18, 4).
		str(19, "a").str(19, "b").
		bytes(20, msg(nil).str(1, "i0")).bytes(20, msg(nil).varint(2, 1)).
		bytes(21, msg(nil).str(1, "p0")).
		bytes(22, entry(msg(nil).str(1, "app"), msg(nil).str(2, "web"))).
		bytes(22, entry(msg(nil).str(1, "empty"), nil)).
		bytes(23, entry(msg(nil).varint(1, 7), msg(nil).str(2, "seven"))).
		bytes(24, entry(msg(nil).str(1, "k"), msg(nil).bytes(2, msg(nil).str(1, "v")))).
		bytes(25, entry(msg(nil).str(1, "none"), nil)).
		bytes(25, entry(msg(nil).str(1, "pw"), msg(nil).bytes(2, []byte("s3cr3t")))).
		bytes(26, msg(nil).str(1, "w1").str(1, "w2")).
		bytes(27, entry(msg(nil).str(1, "e"), nil)).
		bytes(28, msg(nil).varint(1, uint64(ts.Unix())).varint(2, 999)).
		bytes(29, nil).
		bytes(30, msg(nil).varint(1, uint64(ts.Unix())).varint(2, 123456789)).
		bytes(31, msg(nil).str(1, "250m")).
		str(32, "u-1").
		bytes(33, entry(msg(nil).str(1, "cpu"), msg(nil).bytes(2, msg(nil).str(1, "2")))).
		varint(600, 6).
		varint(99, 1).fixed64(98, 1).bytes(97, []byte("unknown")).fixed32(96, 1). // skipped
		tag(95, wireStartGroup).varint(1, 1).tag(95, wireEndGroup)
	var got kinds
	if err := Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	i32, sp := int32(9), "sp"
	want := kinds{
		Bool: true, Int32: -1, Int64: 1 << 40, Uint32: 7, Uint64: 1 << 63,
		Sint32: -5, Sint64: -1 << 40, Fixed32: 0xDEADBEEF, Fixed64: 42, Float: 1.5, Double: 2.25,
		String: "hello", Bytes: []byte{},
		Inner: inner{"in", 3}, InnerPtr: &inner{Name: "ptr"}, IntPtr: &i32, StrPtr: &sp,
		Ints: []int32{1, 2, 3, 4}, Strings: []string{"a", "b"},
		Inners: []inner{{Name: "i0"}, {N: 1}}, InnerPtrs: []*inner{{Name: "p0"}},
		Labels:  map[string]string{"app": "web", "empty": ""},
		ByInt:   map[int32]string{7: "seven"},
		ByName:  map[string]inner{"k": {Name: "v"}},
		Data:    map[string][]byte{"none": {}, "pw": []byte("s3cr3t")},
		Wrapped: wrappedList{"w1", "w2"}, Extra: map[string]wrappedList{"e": {}},
		Time: metav1.NewTime(ts.Local()), TimePtr: &metav1.Time{},
		Micro:    metav1.NewMicroTime(time.Unix(ts.Unix(), 123456000).Local()),
		Quantity: resource.MustParse("250m"), UID: "u-1",
		Resources: map[types.UID]resource.Quantity{"cpu": resource.MustParse("2")},
		Big:       6,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%#v\nwant\n%#v", got, want)
	}
	if got.Data["none"] == nil || got.Extra["e"] == nil || got.Bytes == nil {
		t.Error("missing []byte and named slice values must be empty, not nil, as in the generated code")
	}
}

// TestDecodeKeepsNothingOfInput overwrites the input after decoding: no
// string may change, including those set before a slice grew (a repeated
// field that comes back after another field) and in maps.
func TestDecodeKeepsNothingOfInput(t *testing.T) {
	data := msg(nil).
		str(12, "string-one").
		bytes(20, msg(nil).str(1, "first-inner")).
		str(19, "s0").
		bytes(20, msg(nil).str(1, "second-inner")). // the slice grows: its strings move
		bytes(20, msg(nil).str(1, "third-inner")).
		bytes(22, entry(msg(nil).str(1, "label-key"), msg(nil).str(2, "label-value"))).
		bytes(24, entry(msg(nil).str(1, "map-key"), msg(nil).bytes(2, msg(nil).str(1, "map-inner")))).
		str(17, "string-pointer").
		bytes(26, msg(nil).str(1, "wrapped-one"))
	var got kinds
	if err := Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := kinds{
		String: "string-one", Strings: []string{"s0"},
		Inners:  []inner{{Name: "first-inner"}, {Name: "second-inner"}, {Name: "third-inner"}},
		Labels:  map[string]string{"label-key": "label-value"},
		ByName:  map[string]inner{"map-key": {Name: "map-inner"}},
		StrPtr:  new("string-pointer"),
		Wrapped: wrappedList{"wrapped-one"},
	}
	for i := range data {
		data[i] = 'X'
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the input was overwritten:\n%#v\nwant\n%#v", got, want)
	}
}

// TestDecodeMerges: as the generated code, decoding into a value merges.
func TestDecodeMerges(t *testing.T) {
	got := kinds{String: "old", Int32: 1, Ints: []int32{1}, Labels: map[string]string{"a": "1"}, InnerPtr: &inner{Name: "keep"}}
	data := msg(nil).varint(18, 2).bytes(22, entry(msg(nil).str(1, "b"), msg(nil).str(2, "2"))).bytes(15, msg(nil).varint(2, 5))
	if err := Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := kinds{String: "old", Int32: 1, Ints: []int32{1, 2}, Labels: map[string]string{"a": "1", "b": "2"}, InnerPtr: &inner{Name: "keep", N: 5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%#v\nwant\n%#v", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	secret := "s3cr3t-value"
	good := msg(nil).str(12, secret)
	tests := []struct {
		name string
		data []byte
		is   error
		path string
		off  int
	}{
		{"truncated varint", msg(nil).tag(2, wireVarint).append(0x80), ErrTruncated, "int32", 1},
		{"truncated tag", []byte{0x80}, ErrTruncated, "", 0},
		{"varint over 10 bytes", append(msg(nil).tag(2, wireVarint), bytes.Repeat([]byte{0xff}, 11)...), ErrBadVarint, "int32", 1},
		{"length past the end", append(msg(nil).tag(12, wireBytes), 50, 's'), ErrTruncated, "string", 1},
		{"huge length", append(msg(nil).tag(12, wireBytes), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), ErrTruncated, "string", 1},
		{"wrong wire type", msg(nil).varint(12, 1), ErrWireType, "string", 0},
		{"wrong wire type, nested", msg(nil).bytes(14, msg(nil).str(2, secret)), ErrWireType, "inner.n", 2},
		{"in a repeated message", append(good, msg(nil).bytes(20, nil).bytes(20, msg(nil).tag(1, wireBytes).append(40))...), ErrTruncated, "inners[1].name", len(good) + 7},
		{"in a map entry", msg(nil).bytes(22, entry(msg(nil).str(1, "k"), msg(nil).varint(2, 1))), ErrWireType, "labels[entry 0]", 6},
		{"field number 0", []byte{0x02, 0x00}, ErrMalformed, "", 0},
		{"wire type 6", msg(nil).tag(50, 6), ErrMalformed, "", 2},
		{"end group alone", msg(nil).tag(50, wireEndGroup), ErrMalformed, "", 2},
		{"unterminated group", msg(nil).tag(50, wireStartGroup).varint(1, 1), ErrTruncated, "", 4},
		{"bad quantity", msg(nil).bytes(31, msg(nil).str(1, secret)), ErrInvalidValue, "quantity.string", 5},
		{"slow quantity", msg(nil).bytes(31, msg(nil).str(1, "1e-2147483648")), ErrInvalidValue, "quantity.string", 5},
		{"slow quantity, positive exponent", msg(nil).bytes(31, msg(nil).str(1, strings.Repeat("9", 1000)+"e999999999")), ErrInvalidValue, "quantity.string", 7},
		{"slow quantity, long", msg(nil).bytes(31, msg(nil).str(1, strings.Repeat("9", 1<<20))), ErrInvalidValue, "quantity.string", 9},
		{"bad packed", msg(nil).bytes(18, []byte{0x80}), ErrTruncated, "ints", 3},
		{"time with a wrong wire type", msg(nil).bytes(28, msg(nil).str(1, secret)), ErrWireType, "time.seconds", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v kinds
			err := Unmarshal(tt.data, &v)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if !errors.Is(err, tt.is) || !errors.Is(err, ErrMalformed) {
				t.Errorf("%v: not %v and ErrMalformed", err, tt.is)
			}
			if e.Path != tt.path || e.Offset != tt.off {
				t.Errorf("%v: path %q at %d, want %q at %d", err, e.Path, e.Offset, tt.path, tt.off)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error quotes the input: %v", err)
			}
		})
	}
}

func (m msg) append(b ...byte) msg { return append(m, b...) }

// deep is a recursive message type.
type deep struct {
	Next *deep `protobuf:"bytes,1,opt,name=next"`
}

func TestDecodeTooDeep(t *testing.T) {
	var data []byte
	for range maxDepth + 1 {
		data = msg(nil).bytes(1, data)
	}
	var v deep
	err := Unmarshal(data, &v)
	if !errors.Is(err, ErrTooDeep) {
		t.Fatalf("got %v, want ErrTooDeep", err)
	}
	if e := new(Error); errors.As(err, &e) && len(e.Path) > 100_000 {
		t.Errorf("path of %d bytes", len(e.Path))
	}
}

func TestForErrors(t *testing.T) {
	type noTags struct{ A string }
	type badTag struct {
		A string   `protobuf:"varint,1,opt,name=a"` // a string cannot be a varint... the Go type decides
		B chan int `protobuf:"bytes,2,opt,name=b"`
	}
	type dup struct {
		A string `protobuf:"bytes,1,opt,name=a"`
		B string `protobuf:"bytes,1,opt,name=b"`
	}
	type custom struct {
		A string
	}
	tests := []struct {
		t  reflect.Type
		is error
	}{
		{reflect.TypeFor[noTags](), ErrNoTags},
		{reflect.TypeFor[int](), ErrNoTags},
		{reflect.TypeFor[badTag](), ErrUnsupported},
		{reflect.TypeFor[dup](), ErrUnsupported},
		{reflect.TypeFor[customEncoding](), ErrUnsupported},
	}
	for _, tt := range tests {
		if _, err := For(tt.t); !errors.Is(err, tt.is) {
			t.Errorf("For(%s): %v, want %v", tt.t, err, tt.is)
		}
	}
	if _, err := For(reflect.TypeFor[struct{}]()); err != nil {
		t.Errorf("an empty struct is an empty message: %v", err)
	}
	if _, err := For(reflect.TypeFor[*metav1.PartialObjectMetadata]()); err != nil {
		t.Errorf("For(*PartialObjectMetadata): %v", err)
	}
}

// customEncoding has fields but no tags and an Unmarshal of its own.
type customEncoding struct{ A string }

func (*customEncoding) Unmarshal([]byte) error { return nil }

// pooled has fields whose values come from one pool of the decoder.
type pooled struct {
	A []string `protobuf:"bytes,1,rep,name=a"`
	B []string `protobuf:"bytes,2,rep,name=b"`
	P *inner   `protobuf:"bytes,3,opt,name=p"`
	Q *inner   `protobuf:"bytes,4,opt,name=q"`
}

// TestDecodePooledValuesApart: slices and pointees of one type share an
// allocation within a call (after a first call taught the decoder how
// many), but appending to one slice, or writing through one pointer,
// must not change another.
func TestDecodePooledValuesApart(t *testing.T) {
	data := msg(nil).str(1, "a0").str(1, "a1").str(2, "b0").str(2, "b1").
		bytes(3, msg(nil).str(1, "p")).bytes(4, msg(nil).str(1, "q"))
	for range 3 {
		var got pooled
		if err := Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		_ = append(got.A, "appended")
		got.P.N = 7
		want := pooled{A: []string{"a0", "a1"}, B: []string{"b0", "b1"}, P: &inner{Name: "p", N: 7}, Q: &inner{Name: "q"}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got\n%#v\nwant\n%#v", got, want)
		}
	}
}

// TestDecodeSpareBounded: a decoder that decoded a message with many
// values of one type allocates spare values of that type in later calls,
// but no more than a few times the later input's size.
func TestDecodeSpareBounded(t *testing.T) {
	c, err := For(reflect.TypeFor[pooled]())
	if err != nil {
		t.Fatal(err)
	}
	var big msg
	for range 1000 {
		big = big.str(1, "x")
	}
	small := msg(nil).str(1, "a").str(2, "b")
	d := new(decoder)
	decode := func(data []byte) uint64 {
		var v pooled
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d.data = data
		if err := d.decode(c.m, unsafe.Pointer(&v)); err != nil {
			t.Fatal(err)
		}
		d.reset()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	decode(big)
	if n := decode(small); n > 256 {
		t.Fatalf("decoding %d bytes after a large message allocated %d bytes", len(small), n)
	}
}

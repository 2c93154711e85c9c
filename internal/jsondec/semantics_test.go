package jsondec

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

type basic struct {
	B    bool
	I    int
	I8   int8
	I16  int16
	I32  int32
	I64  int64
	U    uint
	U8   uint8
	U16  uint16
	U32  uint32
	U64  uint64
	Uptr uintptr
	F32  float32
	F64  float64
	S    string
	P    *int
	PP   **string
	Sl   []int
	Ar   [3]int
	M    map[string]int
	Any  any
	Byt  []byte
	Raw  json.RawMessage
	Num  json.Number
	C    complex128
	Ch   chan int
	Fn   func()
	Str  fmt.Stringer
}

type tagged struct {
	A      int      `json:"a"`
	Hidden int      `json:"-"`
	Dash   int      `json:"-,"`
	Omit   int      `json:",omitempty"`
	E      int      `json:"e,string"`
	F      *int     `json:"f,string"`
	G      bool     `json:",string"`
	H      string   `json:",string"`
	Fl     float64  `json:",string"`
	U8     uint8    `json:",string"`
	Ptr    *float32 `json:",string"`
	NotQ   []int    `json:",string"`
	Bad    int      `json:"bad\"name"`
	Uni    int      `json:"ünï"`
	Kelvin int      `json:"k"`
	Sharp  int      `json:"ſ"`
	hidden int
}

type Inner struct {
	A int
	B string `json:"b"`
	X int    `json:"x"`
}

type InnerPtr struct {
	P  int `json:"p"`
	PX int `json:"x"`
}

type inner struct {
	Q int `json:"q"`
}

type innerPtr struct {
	R int `json:"r"`
}

type Deep struct {
	Inner
	D int `json:"d"`
}

type embedded struct {
	Inner
	*InnerPtr
	inner
	*innerPtr
	X      int `json:"x"`
	Named  Inner
	Inline Deep `json:",inline"`
}

// dupTags and conflict have fields whose JSON names collide; they are
// built with reflect so that go vet does not object to the tags.
var (
	dupTags = reflect.StructOf([]reflect.StructField{
		{Name: "Dup1", Type: reflect.TypeFor[int](), Tag: `json:"dup"`},
		{Name: "Dup2", Type: reflect.TypeFor[int](), Tag: `json:"dup"`},
		{Name: "Dup3", Type: reflect.TypeFor[int](), Tag: `json:"DUP"`},
	})
	conflict = reflect.StructOf([]reflect.StructField{
		{Name: "Inner", Type: reflect.TypeFor[Inner](), Anonymous: true},
		{Name: "InnerPtr", Type: reflect.TypeFor[InnerPtr](), Anonymous: true},
	})
)

// targetType is targetOf for a type built at run time.
func targetType(t reflect.Type) target {
	return target{name: t.String(), make: func() (any, any) {
		return reflect.New(t).Interface(), reflect.New(t).Interface()
	}}
}

type upper string

func (u *upper) UnmarshalText(b []byte) error {
	if string(b) == "bad" {
		return errors.New("bad text")
	}
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

type rawLen struct{ N int }

func (v *rawLen) UnmarshalJSON(b []byte) error {
	if string(b) == `"bad"` {
		return errors.New("bad json")
	}
	v.N = len(b)
	return nil
}

type valRecv map[string]int

func (v valRecv) UnmarshalJSON(b []byte) error { return nil }

type keyPair struct{ A, B string }

func (k *keyPair) UnmarshalText(b []byte) error {
	a, c, ok := strings.Cut(string(b), ":")
	if !ok {
		return errors.New("no colon")
	}
	k.A, k.B = a, c
	return nil
}

type jsonKey string

func (k *jsonKey) UnmarshalJSON(b []byte) error { *k = jsonKey("J" + string(b)); return nil }
func (k *jsonKey) UnmarshalText(b []byte) error { *k = jsonKey("T" + string(b)); return nil }

type intKey int

type methods struct {
	T     upper
	TP    *upper
	TS    []upper
	J     rawLen
	JP    *rawLen
	JS    []rawLen
	V     valRecv
	MK    map[keyPair]int
	MJ    map[jsonKey]int
	MI    map[int]string
	MI8   map[int8]string
	MU    map[uint16]string
	MIK   map[intKey]string
	MB    map[bool]int
	MU2   map[upper]int
	Anon  struct{ rawLen }
	AnonP *struct{ rawLen }
}

type node struct {
	Name string
	Kids []node
	Next *node
	M    map[string]*node
}

type strings2 struct {
	S  string
	SS []string
	M  map[string]string
	A  any
}

// cases: name, targets, inputs. Every input is tried on every target.
var semanticCases = []struct {
	name    string
	targets []target
	inputs  []string
}{
	{"scalars", []target{targetOf[basic](nil)}, []string{
		`{}`, `null`, `{"B":true,"I":-12,"I8":127,"I16":-32768,"I32":2147483647,"I64":-9223372036854775808,"U":1,"U8":255,"U16":65535,"U32":4294967295,"U64":18446744073709551615,"Uptr":7,"F32":1.5,"F64":-2.25e-3,"S":"x"}`,
		`{"I8":128}`, `{"I8":-129}`, `{"U8":256}`, `{"U":-1}`, `{"U":-0}`, `{"I":-0}`, `{"I":1.0}`, `{"I":1e2}`, `{"I64":9223372036854775808}`,
		`{"U64":18446744073709551616}`, `{"F32":3.5e38}`, `{"F32":1e39}`, `{"F64":1e400}`, `{"F64":-0}`, `{"F64":-0.0}`, `{"F32":16777217}`,
		`{"F64":123456789012345678}`, `{"F64":0.1}`, `{"F64":1E+2}`, `{"F64":1e-400}`,
		`{"I":"1"}`, `{"S":1}`, `{"B":"true"}`, `{"B":1}`, `{"S":null,"I":null,"B":null,"F64":null}`, `{"I":true}`, `{"I":{}}`, `{"I":[]}`,
		`{"P":1}`, `{"P":null}`, `{"PP":"x"}`, `{"PP":null}`, `{"P":"x"}`,
		`{"Sl":[1,2,3]}`, `{"Sl":[]}`, `{"Sl":null}`, `{"Sl":[1,"x",3]}`, `{"Sl":{}}`, `{"Sl":"AQI="}`,
		`{"Ar":[1]}`, `{"Ar":[1,2,3,4,5]}`, `{"Ar":[]}`, `{"Ar":null}`, `{"Ar":[1,[2],{"a":3}]}`,
		`{"M":{"a":1,"b":2}}`, `{"M":{}}`, `{"M":null}`, `{"M":{"a":"x"}}`, `{"M":{"a":null}}`, `{"M":[]}`,
		`{"Any":{"a":[1,"x",true,null,{"b":1.5}]}}`, `{"Any":[]}`, `{"Any":1e400}`, `{"Any":-0}`, `{"Any":null}`, `{"Any":"s"}`,
		`{"Byt":"aGVsbG8="}`, `{"Byt":"aGVsbG8"}`, `{"Byt":"!!"}`, `{"Byt":""}`, `{"Byt":null}`, `{"Byt":[1,2,300]}`, `{"Byt":"aGVs\nbG8="}`, `{"Byt":"aGVs\\nbG8="}`,
		`{"Raw":{"a": [1, 2]}}`, `{"Raw":null}`, `{"Raw":"x"}`,
		`{"Num":12.5e3}`, `{"Num":"12"}`, `{"Num":"x"}`, `{"Num":null}`, `{"Num":""}`,
		`{"C":1}`, `{"C":null}`, `{"Ch":null}`, `{"Ch":1}`, `{"Fn":null}`, `{"Fn":{}}`,
		`{"Str":null}`, `{"Str":"x"}`, `{"Str":{}}`,
		`{"s":"lower","b":true,"i8":1}`, `{"S":"a","S":"b"}`, `{"M":{"a":1},"M":{"b":2}}`, `{"Sl":[1,2,3],"Sl":[4]}`, `{"Ar":[1,2,3],"Ar":[4]}`,
		`{"unknown":{"deep":[1,2,{"x":null}]},"S":"after"}`,
		` {"S" : "spaced" , "I" :	1 }	`, `{"S":"x"} x`, `{"S":"x"}}`, `{"S":"x",}`, `{,}`, `{"S"}`, `{"S":}`, `{"S" "x"}`, `{"S":"x" "I":1}`, `[`, ``, `   `, `{`, `{"S":"x"`, `{"S":"x`, `nul`, `nulL`,
	}},
	{"strings", []target{targetOf[strings2](nil)}, []string{
		`{"S":"a\"b\\c\/d\be\ff\ng\rh\ti"}`, `{"S":"\u00e9\u4e2d\ud83d\ude00"}`, `{"S":"\ud83d"}`, `{"S":"\ud83dx"}`, `{"S":"\ude00"}`, `{"S":"\ud83d\u0041"}`,
		`{"S":"\ud83d\ud83d\ude00"}`, `{"S":"\uD83D\uDE00"}`, `{"S":"\u0000"}`, "{\"S\":\"\xff\xfe\"}", "{\"S\":\"a\xc3\"}", "{\"S\":\"\xed\xa0\x80\"}", "{\"S\":\"é中😀\"}",
		"{\"S\":\"\xef\xbf\xbd\"}", `{"S":"\x"}`, `{"S":"\'"}`, `{"S":"\u12"}`, `{"S":"\u12g4"}`, "{\"S\":\"a\nb\"}", "{\"S\":\"a\x7fb\"}",
		`{"SS":["a","b\n",null,"\u0041"]}`, `{"M":{"k\u0041":"v\"","\ud800":"x"}}`, `{"A":"\ud800\udc00"}`, `{"A":{"\u00e9":"\u00e9"}}`,
		`{"\u0053":"key escaped"}`, `{"\u0073":"key escaped folded"}`, "{\"S\xff\":\"bad key\"}",
		`{"S":"` + strings.Repeat("long string without escapes ", 20) + `"}`, `{"S":"` + strings.Repeat("é", 100) + `"}`, `{"S":"` + strings.Repeat("x\\n", 100) + `"}`,
	}},
	{"tags", []target{targetOf[tagged](nil)}, []string{
		`{"a":1,"A":2}`, `{"A":2,"a":1}`, `{"Hidden":1,"-":2}`, `{"Omit":3}`, `{"e":"12"}`, `{"e":12}`, `{"e":"x"}`, `{"e":null}`, `{"e":"null"}`, `{"e":" 1"}`, `{"e":"1 "}`, `{"e":"+1"}`, `{"e":"01"}`, `{"e":""}`,
		`{"f":"5"}`, `{"f":null}`, `{"f":"null"}`, `{"f":5}`, `{"G":"true"}`, `{"G":"false"}`, `{"G":"tru"}`, `{"G":true}`, `{"G":"null"}`, `{"G":"1"}`,
		`{"H":"\"quoted\""}`, `{"H":"plain"}`, `{"H":"null"}`, `{"H":"\"bad"}`, `{"H":"\"a\\'b\""}`, `{"H":"true"}`, `{"H":1}`, `{"H":{}}`, `{"H":[1]}`, `{"H":"\"\\u00e9\""}`,
		`{"Fl":"1.5"}`, `{"Fl":"0x1p4"}`, `{"Fl":"-inf"}`, `{"Fl":"1e400"}`, `{"Fl":"nan"}`, `{"Fl":"-"}`, `{"Fl":1e400}`, `{"U8":"300"}`, `{"U8":"-1"}`, `{"Ptr":"2.5"}`, `{"Ptr":"x"}`,
		`{"NotQ":[1]}`, `{"NotQ":"[1]"}`, `{"bad\"name":1,"Bad":2}`, `{"ünï":1}`, `{"ÜNÏ":1}`, `{"K":1}`, "{\"\u212a\":1}", `{"S":1}`, "{\"\u017f\":1}", `{"hidden":1}`,
	}},
	{"duplicate names", []target{targetType(dupTags)}, []string{
		`{"dup":1}`, `{"Dup1":1,"Dup2":2}`, `{"DUP":3}`, `{"Dup":3}`,
	}},
	{"embedded", []target{targetOf[embedded](nil), targetType(conflict), targetOf[Deep](nil)}, []string{
		`{"A":1,"b":"x","x":2,"p":3,"q":4,"r":5,"Named":{"A":6},"d":7}`, `{"x":1}`, `{"p":1}`, `{"r":1}`, `{"Inner":{"A":1}}`, `{"InnerPtr":{"p":1}}`, `{"Inline":{"d":1}}`, `{"a":1,"B":"y"}`,
	}},
	{"methods", []target{targetOf[methods](nil)}, []string{
		`{"T":"abc","TP":"def","TS":["x","y"]}`, `{"T":null,"TP":null}`, `{"T":1}`, `{"T":{}}`, `{"T":[]}`, `{"T":true}`, `{"T":"bad"}`, `{"TP":"bad"}`, `{"T":"a\u00e9"}`,
		`{"J":{"a":[1, 2]},"JP":[1],"JS":[1,"x",null]}`, `{"J":null,"JP":null}`, `{"J":"bad"}`, `{"JP":"bad"}`,
		`{"V":{"a":1}}`, `{"MK":{"a:b":1,"c:d":2}}`, `{"MK":{"nocolon":1}}`, `{"MJ":{"k":1,"k\u0041":2}}`,
		`{"MI":{"1":"a","-2":"b","01":"c","+3":"d"}}`, `{"MI":{"x":"a"}}`, `{"MI":{"1.5":"a"}}`, `{"MI8":{"127":"a","128":"b"}}`, `{"MU":{"65535":"a","65536":"b","-1":"c"}}`, `{"MIK":{"7":"seven"}}`,
		`{"MB":{"true":1}}`, `{"MB":null}`, `{"MB":[]}`, `{"MU2":{"abc":1}}`, `{"MU2":{"bad":1}}`,
		`{"Anon":{"N":1}}`, `{"AnonP":{"N":1}}`, `{"AnonP":null}`,
	}},
	{"recursive", []target{targetOf[node](nil)}, []string{
		`{"Name":"a","Kids":[{"Name":"b","Kids":[{"Name":"c"}]}],"Next":{"Name":"n","Next":{"Name":"m"}},"M":{"x":{"Name":"x"},"y":null}}`,
		strings.Repeat(`{"Next":`, 100) + `null` + strings.Repeat(`}`, 100),
	}},
	{"top-level", []target{targetOf[any](nil), targetOf[*int](nil), targetOf[**int](nil), targetOf[[]any](nil), targetOf[map[string]any](nil), targetOf[string](nil), targetOf[upper](nil), targetOf[*upper](nil), targetOf[rawLen](nil), targetOf[*rawLen](nil), targetOf[[2]bool](nil), targetOf[json.RawMessage](nil)}, []string{
		`null`, `1`, `"abc"`, `true`, `[1,"a"]`, `{"a":1}`, ` 1 `, `-`, `01`, `1.`, `1e`, `.5`, `[1,]`, `[,1]`, `{"a":1,}`, `"\u00e9"`, `tru`, `truex`, `[true,false]`, `"bad"`, `[[]]`,
		strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000), strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001),
		strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat(`}`, 10000), strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001),
	}},
}

func TestSemantics(t *testing.T) {
	for _, c := range semanticCases {
		t.Run(c.name, func(t *testing.T) {
			for _, tg := range c.targets {
				for _, in := range c.inputs {
					checkDiff(t, tg, in)
				}
			}
		})
	}
}

// TestReuse decodes into values that already hold data: slices are
// truncated and their elements decoded into in place, maps are added to,
// pointers are followed, interfaces holding pointers are decoded through.
func TestReuse(t *testing.T) {
	type elem struct {
		A int
		B string
		M map[string]int
	}
	type holder struct {
		S   []elem
		Arr [2]elem
		M   map[string]elem
		MP  map[string]*elem
		P   *elem
		I   any
		IP  any
		IPP any
		E   fmt.Stringer
	}
	x := 5
	px := &x
	fill := func(h *holder) {
		h.S = make([]elem, 3, 10)
		h.S[0] = elem{A: 1, B: "one", M: map[string]int{"k": 1}}
		h.S[1] = elem{A: 2}
		h.S[2] = elem{A: 3}
		h.S = h.S[:1]
		h.Arr[1] = elem{A: 9}
		h.M = map[string]elem{"old": {A: 1}, "keep": {A: 2, B: "b"}}
		h.MP = map[string]*elem{"keep": {A: 7}}
		h.P = &elem{A: 4, B: "p"}
		h.I = map[string]any{"old": 1.0}
		h.IP = &elem{A: 8}
		px2 := new(int)
		*px2 = 3
		h.IPP = &px2
		_ = px
	}
	tg := targetOf[holder](fill)
	for _, in := range []string{
		`{"S":[{"B":"x"}]}`, `{"S":[{"B":"x"},{"B":"y"},{}]}`, `{"S":[{"M":{"j":2}}]}`, `{"S":[]}`, `{"S":null}`,
		`{"Arr":[{"B":"x"}]}`, `{"Arr":[]}`, `{"M":{"keep":{"A":5}}}`, `{"MP":{"keep":{"B":"x"}}}`, `{"P":{"B":"q"}}`, `{"P":null}`,
		`{"I":{"new":2}}`, `{"I":null}`, `{"IP":{"B":"x"}}`, `{"IP":null}`, `{"IP":"str"}`, `{"IPP":5}`, `{"IPP":null}`, `{"E":null}`,
	} {
		checkDiff(t, tg, in)
	}
	// A pointer decoded through at the top level, and an interface that
	// holds a pointer to itself.
	var ai any = new(int)
	var bi any = new(int)
	if errA, errB := json.Unmarshal([]byte(`7`), &ai), Unmarshal([]byte(`7`), &bi); errA != nil || errB != nil || *ai.(*int) != *bi.(*int) {
		t.Errorf("interface holding *int: %v %v %v %v", errA, errB, ai, bi)
	}
	var sa, sb any
	sa, sb = &sa, &sb
	if errA, errB := json.Unmarshal([]byte(`{"a":1}`), &sa), Unmarshal([]byte(`{"a":1}`), &sb); (errA == nil) != (errB == nil) || !deepEqual(&sa, &sb) {
		t.Errorf("self-referencing interface: %v %v %v %v", errA, errB, sa, sb)
	}
}

func TestInvalidUnmarshal(t *testing.T) {
	var s string
	for _, v := range []any{nil, s, (*string)(nil), 1} {
		err := Unmarshal([]byte(`"x"`), v)
		var ie *json.InvalidUnmarshalError
		if !errors.As(err, &ie) {
			t.Errorf("Unmarshal(%T) = %v, want *json.InvalidUnmarshalError", v, err)
		}
	}
}

// TestErrors checks that errors say where and what.
func TestErrors(t *testing.T) {
	type in struct {
		N int8 `json:"n"`
	}
	type out struct {
		Items []in `json:"items"`
	}
	var o out
	err := Unmarshal([]byte(`{"items":[{"n":1},{"n":300}]}`), &o)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "items.n" || te.Struct != "in" || te.Value != "number" {
		t.Errorf("type error = %#v", err)
	} else if !strings.Contains(err.Error(), "items.n") || !strings.Contains(err.Error(), "int8") {
		t.Errorf("type error message %q", err)
	}
	err = Unmarshal([]byte(`{"items":[{"n":1} {"n":2}]}`), &o)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 18 || !strings.Contains(err.Error(), "after array element") {
		t.Errorf("syntax error = %v", err)
	}
	err = Unmarshal([]byte(`{"items":[{"n":1}`), &o)
	if !errors.Is(err, ErrIncomplete) {
		t.Errorf("truncated: %v, want ErrIncomplete", err)
	}
	for _, s := range []string{`{"a":"\x"}`, `[1,2`, `{"a" 1}`, `tru`, `01`} {
		var v any
		err := Unmarshal([]byte(s), &v)
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want *SyntaxError", s, err)
		} else if off := strconv.FormatInt(se.Offset, 10); !strings.Contains(err.Error(), off) {
			t.Errorf("%q: %v lacks offset", s, err)
		}
	}
}

package jsondec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// comparePrefix checks UnmarshalKubePrefix(data) against ValueEnd(data)
// followed by UnmarshalKube(data[:n]), decoding into tg's values: when
// ValueEnd finds a whole value, the same length, the same error (or none)
// and equal values; when the value is cut short, an error that wraps
// ErrIncomplete or is not a syntax error (one found before the end);
// when it is malformed, an error.
func comparePrefix(tg target, data []byte) (ok bool, detail string) {
	a, b := tg.make()
	n, errEnd := ValueEnd(data)
	var errA error
	if errEnd == nil {
		errA = UnmarshalKube(data[:n], a)
	}
	m, errB := UnmarshalKubePrefix(data, b)
	var se *SyntaxError
	switch {
	case errB != nil && m != 0:
		return false, fmt.Sprintf("n = %d with error %v", m, errB)
	case errors.Is(errEnd, ErrIncomplete):
		if errB == nil || (errors.As(errB, &se) && !errors.Is(errB, ErrIncomplete)) {
			return false, fmt.Sprintf("ValueEnd: incomplete; UnmarshalKubePrefix: %d, %v", m, errB)
		}
	case errEnd != nil:
		if errB == nil {
			return false, fmt.Sprintf("ValueEnd: %v; UnmarshalKubePrefix: %d, no error", errEnd, m)
		}
	case (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()):
		return false, fmt.Sprintf("ValueEnd+UnmarshalKube: %d, %v; UnmarshalKubePrefix: %d, %v", n, errA, m, errB)
	case errA == nil && m != n:
		return false, fmt.Sprintf("ValueEnd: %d; UnmarshalKubePrefix: %d", n, m)
	case errA == nil && !deepEqual(a, b):
		return false, fmt.Sprintf("value mismatch:\nUnmarshalKube       %s\nUnmarshalKubePrefix %s", dump(a), dump(b))
	}
	return true, ""
}

func checkPrefix(t *testing.T, tg target, data []byte) {
	t.Helper()
	if ok, detail := comparePrefix(tg, data); !ok {
		t.Errorf("%s ← %q: %s", tg.name, data, detail)
	}
}

// prefixTargets are the types the prefix tests decode into.
var prefixTargets = []target{
	targetOf[any](nil),
	targetOf[benchPod](nil),
	targetOf[kubeFields](nil),
	targetOf[recNode](nil),
}

func TestUnmarshalKubePrefix(t *testing.T) {
	tests := []struct {
		in   string
		n    int    // want n; -1: an error
		want string // the error's text contains this
	}{
		{`{}`, 2, ""},
		{`  {"a":1}`, 9, ""},
		{`{"a":1},{"b":2}`, 7, ""},
		{`{"a":[1,2,{"b":"}"}]}garbage`, 21, ""},
		{`{"a":"\"}"} `, 11, ""},
		{`[1,2]]`, 5, ""},
		{`"x"y`, 3, ""},
		{`null,`, 4, ""},
		{`12`, 2, ""}, // a number at the end is whole, as for ValueEnd
		{`12 `, 2, ""},
		{`-1.5e3]`, 6, ""},
		{``, -1, "unexpected end"},
		{`   `, -1, "unexpected end"},
		{`{"a":1`, -1, "unexpected end"},
		{`{"a":"x`, -1, "unexpected end"},
		{`[1,{"a":[`, -1, "unexpected end"},
		{`tru`, -1, "unexpected end"},
		{`}`, -1, "invalid character '}'"},
		{`{"a":1,}`, -1, "invalid character '}'"},
		{`{"a" 1}`, -1, "invalid character '1'"},
		{`{"a":01}`, -1, "invalid character '1'"},
		{`{"a":"` + "\x01" + `"}`, -1, "invalid character"},
		{`{"a":tx}`, -1, "invalid character"},
		{`{"a":[1 2]}`, -1, "invalid character '2'"},
		{`{"metadata":{"name":5}}`, -1, "metadata.name"},
		{`{"metadata":{"name":5}},`, -1, "metadata.name"},
	}
	for _, tt := range tests {
		var generic any
		v := any(&generic)
		if strings.Contains(tt.in, "metadata") {
			v = new(benchPod)
		}
		n, err := UnmarshalKubePrefix([]byte(tt.in), v)
		switch {
		case tt.n >= 0 && (err != nil || n != tt.n):
			t.Errorf("%q: %d, %v; want %d", tt.in, n, err, tt.n)
		case tt.n < 0 && (err == nil || n != 0 || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %d, %v; want an error with %q", tt.in, n, err, tt.want)
		case tt.n < 0 && strings.Contains(tt.want, "unexpected end") && !errors.Is(err, ErrIncomplete):
			t.Errorf("%q: %v does not wrap ErrIncomplete", tt.in, err)
		}
		for _, tg := range prefixTargets {
			checkPrefix(t, tg, []byte(tt.in))
		}
	}
	var p benchPod
	if _, err := UnmarshalKubePrefix([]byte(`{}`), p); err == nil {
		t.Error("decoding into a non-pointer: no error")
	}
}

// TestUnmarshalKubePrefixTruncated cuts the pod at every byte: every
// prefix short of the whole object is incomplete, and the whole one, with
// anything after it, decodes to the pod.
func TestUnmarshalKubePrefixTruncated(t *testing.T) {
	pod := podJSON(t)
	for i := range len(pod) {
		var p benchPod
		n, err := UnmarshalKubePrefix(pod[:i], &p)
		if !errors.Is(err, ErrIncomplete) || n != 0 {
			t.Fatalf("cut at %d of %d: %d, %v; want ErrIncomplete", i, len(pod), n, err)
		}
		if i%16 == 0 {
			checkPrefix(t, targetOf[any](nil), pod[:i])
		}
	}
	for _, tail := range []string{"", " ", ",", `,{"kind":`, "]", "}", "garbage", "\x00"} {
		data := append(pod[:len(pod):len(pod)], tail...)
		for _, tg := range prefixTargets {
			checkPrefix(t, tg, data)
		}
		var p benchPod
		if n, err := UnmarshalKubePrefix(data, &p); err != nil || n != len(pod) {
			t.Errorf("pod + %q: %d, %v; want %d", tail, n, err, len(pod))
		}
	}
}

// TestUnmarshalKubePrefixDepth checks the nesting limit: 10000 open
// arrays decode, 10001 do not, and a cut deep value is incomplete.
func TestUnmarshalKubePrefixDepth(t *testing.T) {
	for _, tt := range []struct {
		depth int
		tail  string
		ok    bool
	}{
		{maxDepth, "", true},
		{maxDepth, ",[", true},
		{maxDepth + 1, "", false},
	} {
		data := []byte(strings.Repeat("[", tt.depth) + strings.Repeat("]", tt.depth) + tt.tail)
		var v any
		n, err := UnmarshalKubePrefix(data, &v)
		if (err == nil) != tt.ok || (tt.ok && n != 2*tt.depth) {
			t.Errorf("depth %d + %q: %d, %v", tt.depth, tt.tail, n, err)
		}
		checkPrefix(t, targetOf[any](nil), data)
		checkPrefix(t, targetOf[recNode](nil), data)
	}
	deep := []byte(strings.Repeat(`{"a":`, 500) + strings.Repeat("[", 500))
	var v any
	if _, err := UnmarshalKubePrefix(deep, &v); !errors.Is(err, ErrIncomplete) {
		t.Errorf("cut deep value: %v; want ErrIncomplete", err)
	}
	checkPrefix(t, targetOf[recNode](nil), deep)
}

// FuzzUnmarshalKubePrefix checks UnmarshalKubePrefix against ValueEnd and
// UnmarshalKube (see comparePrefix), decoding into the target type chosen
// by which.
func FuzzUnmarshalKubePrefix(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(uint8(i), s)
		f.Add(uint8(i), append(s[:len(s):len(s)], `,{"x":1}`...))
		f.Add(uint8(i), s[:len(s)/2])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tg := fuzzTargets[int(which)%len(fuzzTargets)]
		if ok, detail := comparePrefix(tg, data); !ok {
			t.Errorf("%s ← %q: %s", tg.name, data, detail)
		}
	})
}

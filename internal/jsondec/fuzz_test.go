package jsondec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fuzzTargets are the types FuzzUnmarshal decodes into.
var fuzzTargets = []target{
	targetOf[any](nil),
	targetOf[basic](nil),
	targetOf[tagged](nil),
	targetOf[embedded](nil),
	targetOf[methods](nil),
	targetOf[strings2](nil),
	targetOf[node](nil),
	targetOf[[]int8](nil),
	targetOf[map[string]*float32](nil),
	targetOf[benchPod](nil),
	targetOf[kubeFields](nil),
	targetOf[metav1.ObjectMeta](nil),
	targetOf[metav1.Status](nil),
	targetOf[unstructured.Unstructured](nil),
	targetType(dupTags),
	targetOf[crdObject](nil),
	targetOf[recNode](nil),
	targetOf[pathHolder](nil),
}

// fuzzSeeds are the inputs both fuzz targets start from: the pod (whole
// and cut down), its variants, every input of the semantic tables and
// the inputs that tell the two modes apart or have type errors.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	pod := podJSON(f)
	for _, s := range podVariants(pod) {
		seeds = append(seeds, []byte(s))
	}
	for _, c := range semanticCases {
		for _, s := range c.inputs {
			if len(s) < 4096 {
				seeds = append(seeds, []byte(s))
			}
		}
	}
	for _, s := range append(kubeModeInputs, typeErrorPaths...) {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzUnmarshal checks Unmarshal against encoding/json.Unmarshal, and
// UnmarshalKube against apimachinery's decoder (sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts): same error-ness, and equal values
// when both succeed, decoding into the target type chosen by which. It
// also checks that neither ever panics.
func FuzzUnmarshal(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(uint8(i), s)
	}
	pod := podJSON(f)
	for i := range fuzzTargets {
		f.Add(uint8(i), pod)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		tg := fuzzTargets[int(which)%len(fuzzTargets)]
		if ok, detail := compare(tg, data); !ok {
			t.Errorf("%s ← %q: %s", tg.name, data, detail)
		}
	})
}

// FuzzValueEnd checks ValueEnd against encoding/json's Decoder (where the
// first value ends, or that the input is incomplete or malformed) and
// json.Valid.
func FuzzValueEnd(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(`123 `))
	f.Add([]byte(`{} {}`))
	f.Add([]byte(`"abc`))
	f.Fuzz(func(t *testing.T, data []byte) {
		end, err := ValueEnd(data)
		dec := json.NewDecoder(bytes.NewReader(data))
		var raw json.RawMessage
		derr := dec.Decode(&raw)
		switch {
		case derr == nil:
			if err != nil || end != int(dec.InputOffset()) {
				t.Fatalf("%q: ValueEnd = %d, %v; Decoder ends at %d", data, end, err, dec.InputOffset())
			}
		case derr == io.EOF || derr == io.ErrUnexpectedEOF:
			if err != ErrIncomplete {
				t.Fatalf("%q: ValueEnd = %d, %v; Decoder: %v", data, end, err, derr)
			}
		default:
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: ValueEnd = %d, %v; Decoder: %v", data, end, err, derr)
			}
		}
		valid := err == nil && len(bytes.TrimLeft(data[end:], " \t\r\n")) == 0
		if valid != json.Valid(data) {
			t.Fatalf("%q: ValueEnd = %d, %v; json.Valid = %v", data, end, err, !valid)
		}
	})
}

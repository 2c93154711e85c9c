// Package jsondec decodes JSON into Go values with the semantics of
// encoding/json.Unmarshal, or of apimachinery's decoding of Kubernetes
// objects, several times faster. It exists for the Kubernetes source,
// which decodes every list item and watch event and was bound by
// encoding/json; UnmarshalKubePrefix decodes such a value straight from
// a buffered stream, finding its end as it goes, and ValueEnd finds where
// a value ends for the cases it does not cover (a value not yet whole in
// the buffer), for Unmarshal or UnmarshalKube to decode exactly that
// slice.
//
// # Two modes
//
// Unmarshal is encoding/json.Unmarshal. UnmarshalKube is what client-go
// does with JSON: apimachinery decodes with sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts, which differs in two ways: object
// keys match struct field names case-sensitively (a key that matches only
// ignoring case is unknown, and skipped), and a number decoded into an
// empty interface is an int64 when it is an integer that fits (a float64
// otherwise), so that a custom resource's map[string]any or an
// unstructured object holds the same values as under client-go.
// (unstructured.Unstructured decodes itself through its UnmarshalJSON, so
// it is the same in both modes.) Where each is used:
//
//   - source/kube decodes what the API server sends (list items, watch
//     events, list metadata, Status, discovery) with UnmarshalKube;
//   - source/httpsrc decodes the objects of services that are not
//     Kubernetes with Unmarshal, encoding/json's semantics being what a
//     Go program expects of an arbitrary JSON service.
//
// # Semantics
//
// For any input, Unmarshal fails exactly when encoding/json.Unmarshal
// fails, and on success it leaves the target in the same state
// (reflect.DeepEqual), whether the target starts zero or already holds
// data; UnmarshalKube does the same against sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts. This is checked by differential
// tests and fuzzing of both modes on many types, Kubernetes ones
// included. What is kept (for Unmarshal; UnmarshalKube differs only as
// said above):
//
//   - struct fields by encoding/json's rules (ported typeFields): tags,
//     "-", omitempty (ignored when decoding), ",string" on bools, numbers
//     and strings, embedded structs and embedded pointers to structs with
//     promoted fields (",inline" is an untagged embedding, as in
//     encoding/json), Go's dominance rules for duplicate names; keys match
//     exactly first, then case-insensitively (bytes.EqualFold, first field
//     in order); unknown keys are skipped;
//   - duplicate keys: the later one wins; objects decode into the struct,
//     map or pointed-to value already there; map values start from zero;
//   - null sets pointers, maps, slices and interfaces to nil and leaves
//     other values alone (but is handed to UnmarshalJSON);
//   - json.Unmarshaler and encoding.TextUnmarshaler, found where
//     encoding/json finds them (on the pointer of an addressable named
//     value, on pointer types); UnmarshalJSON gets the value's raw bytes;
//     map keys that are strings, integers or TextUnmarshalers;
//   - slices: elements present are decoded into in place, then the slice
//     is cut to the array's length; [] gives an empty non-nil slice; arrays
//     are zero-filled or extra elements skipped; []byte from base64;
//   - interfaces: an empty interface gets map[string]any, []any, string,
//     float64, bool or nil; a non-nil pointer held in an interface is
//     decoded through; json.Number fields;
//   - numbers with Go's range checks for every int, uint and float size;
//     strings with every escape, surrogate pairs, and U+FFFD for invalid
//     UTF-8 and lone surrogates;
//   - encoding/json's nesting limit (10000) and its treatment of type
//     errors: the first is reported at the end, decoding goes on.
//
// The differences are in errors only. Syntax errors are *SyntaxError
// (offset and what was expected; truncated input wraps ErrIncomplete),
// not *json.SyntaxError. Type errors are *json.UnmarshalTypeError with the
// Go type and the struct field path, as encoding/json's (Struct the
// innermost struct, Field the path from the root, with the names of the
// embedded structs a promoted field comes through); the path is gathered
// on the way out and built once, so an error deep in a recursive type
// costs allocation linear in its depth. Neither quotes
// the input's values (decoded objects may be Secrets, and errors reach
// logs): a type error's Value is only the JSON kind ("number", not
// "number 300"), and a syntax error inside a string, number or literal
// says where, not which byte. encoding/json
// checks the whole input before decoding; Unmarshal checks as it decodes,
// so on malformed input it may already have called UnmarshalJSON methods
// and filled part of the target, and when the input has both a syntax
// error and an error from an UnmarshalJSON method before it, it returns
// the latter. After an error the target's partial contents may differ
// from encoding/json's. Decoder options (UseNumber, DisallowUnknownFields) are not
// offered. A tagged embedded pointer to an unexported struct type, which
// makes encoding/json panic, is skipped with an error.
//
// # How
//
// A decoder is compiled once per Go type (cached; recursive types
// allowed) and decodes straight from the input with an index: no tokens,
// no intermediate maps. Struct keys are found through a perfect hash that
// holds each name's first 16 bytes, without allocating; the case-folded
// search runs only on a miss. Strings are copied once out of the input,
// unescaped only when they contain escapes, scanned 8 bytes at a time.
// A fresh slice is filled through a scratch slice the decoder keeps and
// copied into one allocation of the exact length. The only use of unsafe
// is addressing fields and elements by offset and writing through
// pointers of the value's own type (see codec.go).
//
// A few apimachinery types get fast paths that give exactly what their
// UnmarshalJSON gives (kube.go): metav1.Time parses the usual
// "2006-01-02T15:04:05Z" form itself, intstr.IntOrString decodes its int
// or string directly, and resource.Quantity, metav1.FieldsV1 and
// runtime.RawExtension have their methods called without reflect. Strings
// equal to well-known Kubernetes values (enum values, label keys, API
// versions) share one copy.
//
// One difference is deliberate: a quantity that resource.ParseQuantity
// could take minutes or hours on (1e-2147483647, or longer than 128 KiB;
// see SlowQuantity) is a type error, naming the field and not quoting the
// value, instead of being parsed. Every quantity kube-apiserver stores in
// canonical form passes.
//
// # Sharing
//
// A Shared table (NewShared; source/kube's Options.Sharing) makes decodes
// share what repeats: a slice, map or pointer to a struct whose raw JSON
// is byte for byte that of one decoded before, and still held by some
// object, is set to that same value. It is found by a hash of the bytes
// (maphash, with the Go type and the mode) and confirmed by comparing
// them; decoding is otherwise unchanged (every value is still decoded,
// so errors and values are exactly those without a table: the
// differential tests and fuzzers run every mode through a table too).
// What it holds is bounded and pins nothing (see Shared). Values worth a
// lookup only (minShare): maps, pointers to structs of 64 bytes or more,
// other values from 64 bytes of JSON. A field that comes twice in one
// object (which would decode into a value that may be shared by then)
// makes the decode start over without the table; a target that is not
// zero is decoded into without it.
//
// # Speed
//
// On a realistic 5.3 KiB Pod (testdata/pod.json) decoded into a
// pod-shaped struct (BenchmarkUnmarshalPod; Go 1.26, amd64, 2 cores shared
// with other work, six interleaved runs, medians): 17.0 µs, 151
// allocations and 8.7 KiB per pod, against encoding/json's 66.8 µs, 288
// allocations and 13.9 KiB: 3.9 times faster. Into corev1.Pod
// (bench/workload's BenchmarkPodDecode): 17.8 µs against 75.7 µs, 4.3
// times. ValueEnd checks such a pod at about 1.4 GB/s.
package jsondec

package kubefixture

import (
	"encoding/binary"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The protobuf test bodies are built with apimachinery's generated
// Marshal methods, the way kube-apiserver builds them.

// POM returns a PartialObjectMetadata as the server holds it.
func POM(ns, name, rv string) metav1.PartialObjectMetadata {
	return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: ns, ResourceVersion: rv, UID: types.UID("uid-" + name),
		Labels: map[string]string{"app": "x"},
	}}
}

// MustMarshal marshals a generated message.
func MustMarshal(t testing.TB, m interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Envelope returns "k8s\x00" and an Unknown holding raw.
func Envelope(t testing.TB, apiVersion, kind string, raw []byte) []byte {
	t.Helper()
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw}
	return append([]byte("k8s\x00"), MustMarshal(t, &u)...)
}

// POMListBody returns a PartialObjectMetadataList response body.
func POMListBody(t testing.TB, rv, cont string, items ...metav1.PartialObjectMetadata) []byte {
	t.Helper()
	l := metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont}, Items: items}
	return Envelope(t, "meta.k8s.io/v1", "PartialObjectMetadataList", MustMarshal(t, &l))
}

// POMObject returns a PartialObjectMetadata in its Envelope, as a watch
// event holds it.
func POMObject(t testing.TB, m metav1.PartialObjectMetadata) []byte {
	t.Helper()
	return Envelope(t, "meta.k8s.io/v1", "PartialObjectMetadata", MustMarshal(t, &m))
}

// POMBookmark returns a bookmark's object in its Envelope.
func POMBookmark(t testing.TB, rv string, initialEnd bool) []byte {
	t.Helper()
	m := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	if initialEnd {
		m.Annotations = map[string]string{"k8s.io/initial-events-end": "true"}
	}
	return POMObject(t, m)
}

// StatusObject returns a Status in its Envelope.
func StatusObject(t testing.TB, code int32, reason metav1.StatusReason, message string) []byte {
	t.Helper()
	st := metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message}
	return Envelope(t, "v1", "Status", MustMarshal(t, &st))
}

// Frame returns one length-prefixed watch frame: a WatchEvent of type typ
// whose object's raw bytes are object.
func Frame(t testing.TB, typ string, object []byte) []byte {
	t.Helper()
	ev := metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: object}}
	return RawFrame(MustMarshal(t, &ev))
}

// RawFrame prefixes b with its length.
func RawFrame(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// PBField returns a length-delimited protobuf field.
func PBField(num int, data []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(num)<<3|2)
	return append(binary.AppendUvarint(b, uint64(len(data))), data...)
}

// ListHead returns the start of a PartialObjectMetadataList body up to
// the list message, which is to be rawLen bytes long.
func ListHead(t testing.TB, rawLen uint64) []byte {
	t.Helper()
	tm := PBField(1, MustMarshal(t, &runtime.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}))
	b := append([]byte("k8s\x00"), tm...)
	return binary.AppendUvarint(append(b, 0x12), rawLen)
}

// Concat joins byte slices.
func Concat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// ProtoWidget is an object type with generated protobuf code that is not
// PartialObjectMetadata: a Source of it asks for full objects.
type ProtoWidget struct {
	metav1.PartialObjectMetadata
}

// BookmarkJSON is a BOOKMARK event's object.
func BookmarkJSON(rv string, initialEnd bool) string {
	ann := ""
	if initialEnd {
		ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
	}
	return `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"resourceVersion":"` + rv + `"` + ann + `},"spec":{}}`
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }

package kube

import (
	"encoding/binary"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The protobuf test bodies are built with apimachinery's generated
// Marshal methods, the way kube-apiserver builds them.

// pom returns a PartialObjectMetadata as the server holds it.
func pom(ns, name, rv string) metav1.PartialObjectMetadata {
	return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: ns, ResourceVersion: rv, UID: types.UID("uid-" + name),
		Labels: map[string]string{"app": "x"},
	}}
}

// mustMarshal marshals a generated message.
func mustMarshal(t testing.TB, m interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// envelope returns "k8s\x00" and an Unknown holding raw.
func envelope(t testing.TB, apiVersion, kind string, raw []byte) []byte {
	t.Helper()
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw}
	return append([]byte("k8s\x00"), mustMarshal(t, &u)...)
}

// pomListBody returns a PartialObjectMetadataList response body.
func pomListBody(t testing.TB, rv, cont string, items ...metav1.PartialObjectMetadata) []byte {
	t.Helper()
	l := metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont}, Items: items}
	return envelope(t, "meta.k8s.io/v1", "PartialObjectMetadataList", mustMarshal(t, &l))
}

// pomObject returns a PartialObjectMetadata in its envelope, as a watch
// event holds it.
func pomObject(t testing.TB, m metav1.PartialObjectMetadata) []byte {
	t.Helper()
	return envelope(t, "meta.k8s.io/v1", "PartialObjectMetadata", mustMarshal(t, &m))
}

// bookmarkObject returns a bookmark's object in its envelope.
func pomBookmark(t testing.TB, rv string, initialEnd bool) []byte {
	t.Helper()
	m := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	if initialEnd {
		m.Annotations = map[string]string{initialEventsEndAnnotation: "true"}
	}
	return pomObject(t, m)
}

// statusObject returns a Status in its envelope.
func statusObject(t testing.TB, code int32, reason metav1.StatusReason, message string) []byte {
	t.Helper()
	st := metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message}
	return envelope(t, "v1", "Status", mustMarshal(t, &st))
}

// frame returns one length-prefixed watch frame: a WatchEvent of type typ
// whose object's raw bytes are object.
func frame(t testing.TB, typ string, object []byte) []byte {
	t.Helper()
	ev := metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: object}}
	return rawFrame(mustMarshal(t, &ev))
}

// rawFrame prefixes b with its length.
func rawFrame(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// pbField returns a length-delimited protobuf field.
func pbField(num int, data []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(num)<<3|wireBytes)
	return append(binary.AppendUvarint(b, uint64(len(data))), data...)
}

// listHead returns the start of a PartialObjectMetadataList body up to
// the list message, which is to be rawLen bytes long.
func listHead(t testing.TB, rawLen uint64) []byte {
	t.Helper()
	tm := pbField(1, mustMarshal(t, &runtime.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}))
	b := append([]byte("k8s\x00"), tm...)
	return binary.AppendUvarint(append(b, 0x12), rawLen)
}

// concat joins byte slices.
func concat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

const (
	ctProtobuf      = "application/vnd.kubernetes.protobuf"
	ctProtobufWatch = "application/vnd.kubernetes.protobuf;stream=watch"
)

// serveBytes answers every request with status, Content-Type ct and body.
func serveBytes(status int, ct string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		w.Write(body)
	}
}

// streamBytes writes each chunk of a protobuf watch and flushes it.
func streamBytes(chunks ...[]byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctProtobufWatch)
		w.WriteHeader(http.StatusOK)
		for _, c := range chunks {
			w.Write(c)
			w.(http.Flusher).Flush()
		}
	}
}

// newSourceOf starts a plain HTTP server on loopback with h and returns a
// Source of T for it.
func newSourceOf[T informer.Object](t testing.TB, h http.Handler, opts Options) *Source[T] {
	t.Helper()
	srv := httptest.NewServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	t.Cleanup(srv.Close)
	if opts.QPS == 0 && opts.RateLimiter == nil {
		opts.QPS = -1
	}
	if opts.Protobuf == nil {
		opts.Protobuf = codecOf[T]() // what the protobuf tests are about
	}
	// The recorded responses hold Widgets and metadata for a protoWidget:
	// the kind check has its own tests (kind_test.go).
	opts.DisableKindCheck = true
	src, err := New[T](&Config{Host: srv.URL}, widgetRes, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.client.CloseIdleConnections)
	return src
}

// protoWidget is an object type with generated protobuf code that is not
// PartialObjectMetadata: a Source of it asks for full objects.
type protoWidget struct {
	metav1.PartialObjectMetadata
}

// codecOf returns the ProtobufCodec of T for the test types with
// generated protobuf code, nil for the others.
func codecOf[T informer.Object]() ProtobufCodec {
	switch any(*new(T)).(type) {
	case *metav1.PartialObjectMetadata:
		return Protobuf[*metav1.PartialObjectMetadata]()
	case *protoWidget:
		return ProtobufFunc((*protoWidget).Unmarshal)
	}
	return nil
}

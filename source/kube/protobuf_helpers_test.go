package kube

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer"
)

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
	src, err := New[T](&kube.Config{Host: srv.URL}, widgetRes, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.client.CloseIdleConnections)
	return src
}

// codecOf returns the ProtobufCodec of T for the test types with
// generated protobuf code, nil for the others.
func codecOf[T informer.Object]() kube.ProtobufCodec {
	switch any(*new(T)).(type) {
	case *metav1.PartialObjectMetadata:
		return kube.Protobuf[*metav1.PartialObjectMetadata]()
	case *kubefixture.ProtoWidget:
		return kube.ProtobufFunc((*kubefixture.ProtoWidget).Unmarshal)
	}
	return nil
}

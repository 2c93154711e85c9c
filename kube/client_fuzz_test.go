package kube

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/informer-go/informer/internal/kubefixture"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FuzzClientAnswer decodes arbitrary answers to a write, as JSON and as
// protobuf: an object, no error, or an error; never a panic, and never an
// error that quotes the body.
func FuzzClientAnswer(f *testing.F) {
	f.Add([]byte(kubefixture.WidgetJSON("ns", "a", "7", "blue")), false)
	f.Add([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`), false)
	f.Add([]byte(`{"metadata":{"name":"a"},"spec":{"color":12}}`), false)
	f.Add(append([]byte("k8s\x00"), 0x0a, 0x02, 0x12, 0x00), true)
	c, err := NewClient[*kubefixture.Widget](&Config{Host: "http://127.0.0.1:1"}, widgetRes, ClientOptions{MaxObjectBytes: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	mc, err := NewClient[*metav1.PartialObjectMetadata](&Config{Host: "http://127.0.0.1:1"}, widgetRes, ClientOptions{Protobuf: Protobuf[*metav1.PartialObjectMetadata]()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, proto bool) {
		ct := "application/json"
		if proto {
			ct = string(ContentTypeProtobuf)
		}
		resp := func() *http.Response {
			return &http.Response{StatusCode: 201, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(body))}
		}
		k := &call{op: "create", object: "ns/a", write: true}
		if _, _, err := c.readObject(t.Context(), k, resp(), true); err != nil && len(body) >= 16 && bytes.Contains([]byte(err.Error()), body) {
			t.Errorf("the error quotes the body: %v", err)
		}
		mc.readObject(t.Context(), k, resp(), false)
	})
}

package httpsrc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// benchItem is a realistic object of about 2 KiB of JSON.
type benchItem struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Description string            `json:"description"`
		Tags        []string          `json:"tags"`
		Attributes  map[string]string `json:"attributes"`
		Quantity    int               `json:"quantity"`
		Price       float64           `json:"price"`
	} `json:"spec"`
}

const benchEvents = 1000

func benchObjects() [][]byte {
	objs := make([][]byte, benchEvents)
	for i := range objs {
		var it benchItem
		it.Namespace, it.Name, it.ResourceVersion = "shop", fmt.Sprintf("item-%05d", i), fmt.Sprint(1000+i)
		it.Labels = map[string]string{"app": "inventory", "tier": "backend", "zone": "eu-west-1a"}
		it.Annotations = map[string]string{"note": strings.Repeat("an annotation of some length ", 8)}
		it.Spec.Description = strings.Repeat("a description of the item, ", 20)
		it.Spec.Tags = []string{"red", "large", "outdoor", "sale"}
		it.Spec.Attributes = map[string]string{"weight": "12kg", "size": "L", "material": "oak", "origin": "somewhere far"}
		it.Spec.Quantity, it.Spec.Price = i, 19.99
		objs[i], _ = json.Marshal(it)
	}
	return objs
}

func sseStream(objs [][]byte) []byte {
	var b bytes.Buffer
	for i, o := range objs {
		fmt.Fprintf(&b, "id: %d\nevent: modified\ndata: %s\n\n", 1000+i, o)
	}
	return b.Bytes()
}

func ndjsonStream(objs [][]byte) []byte {
	var b bytes.Buffer
	for _, o := range objs {
		fmt.Fprintf(&b, `{"type":"MODIFIED","object":%s}`+"\n", o)
	}
	return b.Bytes()
}

// BenchmarkDecodeOnly decodes the objects alone, with the same decoder:
// the floor the framing is measured against.
func BenchmarkDecodeOnly(b *testing.B) {
	objs := benchObjects()
	n := 0
	for _, o := range objs {
		n += len(o)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range objs {
			it := new(benchItem)
			if err := jsondec.Unmarshal(o, it); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/event")
}

func benchStream(b *testing.B, stream []byte, format Format) {
	src, err := New(Options[*benchItem]{ListURL: "http://x/items", WatchURL: "http://x/events", Format: format})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		w := &streamWatcher[*benchItem]{s: src, body: io.NopCloser(bytes.NewReader(stream)), cancel: func() {}}
		if format == FormatSSE {
			w.sse = newSSEReader(bytes.NewReader(stream), 1<<20, "")
		} else {
			w.lines = newLineReader(bytes.NewReader(stream), 1<<20)
		}
		n := 0
		for {
			ev, err := w.Next()
			if err == io.EOF {
				break
			}
			if err != nil || ev.Type != informer.EventModified {
				b.Fatal(err, ev.Type)
			}
			n++
		}
		if n != benchEvents {
			b.Fatalf("%d events", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchEvents), "ns/event")
}

func BenchmarkSSE(b *testing.B)    { benchStream(b, sseStream(benchObjects()), FormatSSE) }
func BenchmarkNDJSON(b *testing.B) { benchStream(b, ndjsonStream(benchObjects()), FormatNDJSON) }

// BenchmarkParseList parses a list body of benchEvents objects (about
// 2 KiB each) into a page: framing, the whole-body check and decoding.
func BenchmarkParseList(b *testing.B) {
	objs := benchObjects()
	body := append(append([]byte(`{"metadata":{"resourceVersion":"5000"},"items":[`), bytes.Join(objs, []byte(","))...), "]}"...)
	s, err := New(Options[*benchItem]{ListURL: "http://x/items", WatchURL: "http://x/events"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		page, _, err := s.parseList(body, "/items")
		if err != nil || len(page.Items) != benchEvents {
			b.Fatal(len(page.Items), err)
		}
	}
}

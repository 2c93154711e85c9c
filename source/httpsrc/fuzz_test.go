package httpsrc

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type fuzzItem struct {
	metav1.ObjectMeta `json:"metadata"`
	Count             int `json:"count"`
}

// fuzzWatch reads body as a watch stream of format to its end: no panic,
// every event either decoded with a key or reported, and the reader ends.
func fuzzWatch(t *testing.T, body []byte, format Format) {
	src, err := New(Options[*fuzzItem]{ListURL: "http://x/items", WatchURL: "http://x/events", MaxObjectBytes: 4096, Format: format})
	if err != nil {
		t.Fatal(err)
	}
	w := &streamWatcher[*fuzzItem]{s: src, body: io.NopCloser(bytes.NewReader(body)), cancel: func() {}}
	if format == FormatSSE {
		w.sse = newSSEReader(bytes.NewReader(body), 4096, "")
	} else {
		w.lines = newLineReader(bytes.NewReader(body), 4096)
	}
	for range len(body) + 2 {
		ev, err := w.Next()
		if errors.Is(err, informer.ErrBadEvent) {
			continue
		}
		if err != nil {
			return
		}
		if ev.Type != informer.EventBookmark && (ev.Object == nil || ev.Object.Name == "") {
			t.Fatalf("event %v without an object or a name", ev.Type)
		}
	}
	t.Fatalf("more events than bytes: the reader does not advance")
}

func FuzzSSE(f *testing.F) {
	f.Add([]byte("id: 1\nevent: added\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n"))
	f.Add([]byte(": hb\r\n\r\ndata: {\"metadata\":\r\ndata: {\"name\":\"b\"}}\r\n\r\nid: 9\r\rretry: 10\n"))
	f.Add([]byte("\xef\xbb\xbfevent: expired\ndata: x\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) { fuzzWatch(t, body, FormatSSE) })
}

func FuzzNDJSON(f *testing.F) {
	f.Add([]byte(`{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2"}}}` + "\n\n"))
	f.Add([]byte(`{"type":"ERROR","object":{"code":410}}` + "\r\n" + `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}}`))
	f.Add([]byte("garbage\n{\"type\":1}\n{\"object\":[]}\n"))
	f.Fuzz(func(t *testing.T, body []byte) { fuzzWatch(t, body, FormatNDJSON) })
}

func FuzzList(f *testing.F) {
	f.Add([]byte(`{"metadata":{"resourceVersion":"1","continue":"x"},"items":[{"metadata":{"name":"a"}}]}`))
	f.Add([]byte(`[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"count":"x"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		src, _ := New(Options[*fuzzItem]{ListURL: "http://x/items", WatchURL: "http://x/events"})
		page, _, err := src.parseList(body, "/items")
		if err == nil {
			for _, it := range page.Items {
				if it == nil || it.Name == "" {
					t.Fatal("an item without a name was accepted")
				}
			}
		}
	})
}

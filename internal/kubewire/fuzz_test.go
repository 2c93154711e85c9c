package kubewire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fuzzMaxObject is the object limit of the fuzz targets: small, so that
// the limit is met.
const fuzzMaxObject = 2048

// watchSeeds are watch stream bodies for the fuzz corpus.
func watchSeeds() []string {
	return []string{
		"",
		kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w1", "11", "red")) + kubefixture.EventJSON("MODIFIED", kubefixture.WidgetJSON("a", "w1", "12", "blue")),
		kubefixture.EventJSON("DELETED", kubefixture.WidgetJSON("a", "w1", "13", "blue")),
		kubefixture.EventJSON("BOOKMARK", kubefixture.BookmarkJSON("14", false)) + kubefixture.EventJSON("BOOKMARK", kubefixture.BookmarkJSON("15", true)),
		`{"object":` + kubefixture.WidgetJSON("a", "w2", "1", "x") + `,"type":"ADDED"}`,
		kubefixture.EventJSON("ERROR", kubefixture.StatusJSON(410, "Expired", "too old resource version: 1 (2)")),
		kubefixture.EventJSON("ERROR", `"boom"`),
		kubefixture.EventJSON("ERROR", kubefixture.StatusJSON(500, "InternalError", "RequestWatchProgress is disabled")),
		kubefixture.EventJSON("RENAMED", `{}`) + kubefixture.EventJSON("ADDED", `{"metadata":{"name":"x"}}`),
		`{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 3000) + `"}}}`,
		`{"type":{"a":1},"object":{}}`,
		`{"type":7}{"object":null}`,
		`garbage`,
		`{"type":"ADDED","object":{"metadata":{"name":["x"]}}}` + "\n" + `{"type":"ADDED","object":{"metadata":{"labels":{"a":"b"},"creationTimestamp":"2024-01-01T00:00:00Z"}}}`,
		`{"type":"MODIFIED","object":{"metadata":{"creationTimestamp":"not a time"}}}`,
		`[{"type":"ADDED"}]`,
		`{"type":"ADDED","object":{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"}}`,
	}
}

// FuzzWatchDecoder feeds arbitrary bytes to the watch decoder as a
// response body, decoding into three kinds of object types. It must never
// panic; every event it returns must have a valid type, with an object for
// the object events and none for the others; every error must be typed;
// and an error that ends the stream must come back on the next call.
func FuzzWatchDecoder(f *testing.F) {
	for _, s := range watchSeeds() {
		for kind := range uint8(3) {
			f.Add([]byte(s), kind, false)
		}
	}
	f.Add([]byte(kubefixture.EventJSON("ERROR", kubefixture.StatusJSON(500, "InternalError", "RequestWatchProgress is disabled"))), uint8(0), true)
	f.Fuzz(func(t *testing.T, body []byte, kind uint8, initial bool) {
		switch kind % 3 {
		case 0:
			fuzzWatch[*kubefixture.Widget](t, body, initial)
		case 1:
			fuzzWatch[*metav1.PartialObjectMetadata](t, body, initial)
		default:
			fuzzWatch[*unstructured.Unstructured](t, body, initial)
		}
	})
}

// widgetKind is the group, version and kind of the tests' widgets.
var widgetKind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

func fuzzWatch[T informer.Object](t *testing.T, body []byte, initial bool) {
	newObj, err := ObjectFactory[T]()
	if err != nil {
		t.Fatal(err)
	}
	d := newWatchDecoder(bytes.NewReader(body), newObj, fuzzMaxObject, "fuzz", "/fuzz", initial)
	d.kinds = NewKindRule(reflect.TypeFor[T](), widgetKind, "fuzz", false)
	drainWatch(t, d, len(body)+1, initial)
}

// drainWatch reads a fuzzed watch stream to its end: at most maxEvents
// events (or recoverable errors), each event well formed, each error
// typed, with no event beside it, either too large or malformed when it
// is a *DecodeError, and the error that ends the stream returned again.
func drainWatch[T informer.Object](t *testing.T, d EventDecoder[T], maxEvents int, initial bool) {
	for i := 0; ; i++ {
		if i > maxEvents {
			t.Fatalf("more events than the %d the stream can hold", maxEvents)
		}
		ev, err := d.Next()
		if err == nil {
			checkEvent(t, ev)
			continue
		}
		if ev.Type != 0 || !isNil(ev.Object) {
			t.Fatalf("an event came with the error %v: %+v", err, ev)
		}
		var de *DecodeError
		var ae *APIError
		switch {
		case err == io.EOF:
		case errors.As(err, &de):
			if errors.Is(err, ErrObjectTooLarge) == errors.Is(err, ErrMalformed) {
				t.Fatalf("an error is either too large or malformed: %v", err)
			}
			if de.Recoverable {
				continue
			}
		case errors.As(err, &ae):
			if errors.Is(err, informer.ErrWatchListUnsupported) && !initial {
				t.Fatalf("watch list refused on a plain watch: %v", err)
			}
		default:
			t.Fatalf("untyped error %T: %v", err, err)
		}
		if _, err2 := d.Next(); err2 != err {
			t.Fatalf("after %v, next returned %v", err, err2)
		}
		return
	}
}

// checkEvent checks the shape of an event without an error.
func checkEvent[T informer.Object](t *testing.T, ev informer.Event[T]) {
	t.Helper()
	switch ev.Type {
	case informer.EventAdded, informer.EventModified, informer.EventDeleted:
		if isNil(ev.Object) {
			t.Fatalf("%v event without an object", ev.Type)
		}
		if ev.ResourceVersion != ev.Object.GetResourceVersion() {
			t.Fatalf("%v event at %q, its object at %q", ev.Type, ev.ResourceVersion, ev.Object.GetResourceVersion())
		}
	case informer.EventBookmark, informer.EventInitialEventsEnd:
		if !isNil(ev.Object) {
			t.Fatalf("%v event with an object", ev.Type)
		}
	default:
		t.Fatalf("invalid event type %v", ev.Type)
	}
}

// isNil reports a nil T.
func isNil[T any](v T) bool {
	return any(v) == nil || any(v) == any((T)(*new(T)))
}

// listSeeds are list bodies for the fuzz corpus.
func listSeeds() []string {
	return []string{
		"",
		kubefixture.ListJSON("10", "c", kubefixture.WidgetJSON("a", "b", "1", "red"), kubefixture.WidgetJSON("a", "c", "2", "blue")),
		`{"items":null}`,
		`{"items":{"a":1}}`,
		`{"items":[1,2]}`,
		`{"metadata":5,"items":[]}`,
		`{"items":[],"items":[]}`,
		`{"items":[{"metadata":{"name":"` + strings.Repeat("y", 3000) + `"}}]}`,
		`{"kind":"List","items":[{}]} trailing`,
		`{"items":[{"metadata":{"name":"a"}}`,
		`[]`,
		`{"metadata":{"resourceVersion":"1","continue":"x","remainingItemCount":3},"items":[{"kind":"X","apiVersion":"v1","metadata":{"name":"a","namespace":"b","labels":{"x":"y"}}}]}`,
	}
}

// FuzzListDecoder feeds arbitrary bytes to the list decoder. It must
// never panic, never return items with an error, never return a nil item,
// and return only *DecodeError errors.
func FuzzListDecoder(f *testing.F) {
	for _, s := range listSeeds() {
		for kind := range uint8(3) {
			f.Add([]byte(s), kind)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		switch kind % 3 {
		case 0:
			fuzzList[*kubefixture.Widget](t, body)
		case 1:
			fuzzList[*metav1.PartialObjectMetadata](t, body)
		default:
			fuzzList[*unstructured.Unstructured](t, body)
		}
	})
}

func fuzzList[T informer.Object](t *testing.T, body []byte) {
	newObj, err := ObjectFactory[T]()
	if err != nil {
		t.Fatal(err)
	}
	// The kind rule of widgets (list kind WidgetList; Unstructured items
	// filled from the list or the Resource).
	d := ListDecoder[T]{NewObj: newObj, MaxObject: fuzzMaxObject, Res: "fuzz", Kinds: NewKindRule(reflect.TypeFor[T](), widgetKind, "fuzz", false)}
	page, err := d.Decode(bytes.NewReader(body), 10)
	if err != nil {
		var de *DecodeError
		var ke *KindError
		if !errors.As(err, &de) && !errors.As(err, &ke) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
		if page.Items != nil || page.ResourceVersion != "" || page.Continue != "" {
			t.Fatalf("a page came with the error %v: %+v", err, page)
		}
		return
	}
	for i, obj := range page.Items {
		if isNil(obj) {
			t.Fatalf("item %d is nil", i)
		}
	}
	if len(page.Items) > len(body) {
		t.Fatalf("%d items from %d bytes", len(page.Items), len(body))
	}
}

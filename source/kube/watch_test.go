package kube

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/internal/kubewire"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWatchEvents reads every kind of event and checks the request.
func TestWatchEvents(t *testing.T) {
	var q url.Values
	src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q = r.URL.Query()
		streamHandler(
			kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w1", "11", "red")),
			kubefixture.EventJSON("MODIFIED", kubefixture.WidgetJSON("a", "w1", "12", "blue")),
			kubefixture.EventJSON("BOOKMARK", kubefixture.BookmarkJSON("13", false)),
			`{"object":`+kubefixture.WidgetJSON("a", "w2", "14", "green")+`,"type":"ADDED"}`, // object first
			"\n  \n",
			kubefixture.EventJSON("DELETED", kubefixture.WidgetJSON("a", "w1", "15", "blue")),
			`{"type":"BOOKMARK","extra":[1,{"x":null}],"object":`+kubefixture.BookmarkJSON("16", true)+`}`,
		)(w, r)
	}), Options{LabelSelector: "app=x"})
	w := watchOf(t, src, informer.WatchOptions{ResourceVersion: "10", AllowBookmarks: true, Timeout: 1500 * time.Millisecond})
	evs, err := collect(t, w)
	if err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}
	want := []struct {
		typ      informer.EventType
		rv, name string
	}{
		{informer.EventAdded, "11", "w1"},
		{informer.EventModified, "12", "w1"},
		{informer.EventBookmark, "13", ""},
		{informer.EventAdded, "14", "w2"},
		{informer.EventDeleted, "15", "w1"},
		{informer.EventInitialEventsEnd, "16", ""},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, ev := range evs {
		name := ""
		if ev.Object != nil {
			name = ev.Object.Name
		}
		if ev.Type != want[i].typ || ev.ResourceVersion != want[i].rv || name != want[i].name {
			t.Errorf("event %d: %v %q %q, want %+v", i, ev.Type, ev.ResourceVersion, name, want[i])
		}
	}
	if evs[1].Object.Spec.Color != "blue" || evs[0].Object == evs[1].Object {
		t.Errorf("objects: %+v %+v", evs[0].Object, evs[1].Object)
	}
	wantQ := "allowWatchBookmarks=true&labelSelector=app%3Dx&resourceVersion=10&timeoutSeconds=2&watch=1"
	if q.Encode() != wantQ {
		t.Errorf("query %s, want %s", q.Encode(), wantQ)
	}
	if _, err := w.Next(); err != io.EOF {
		t.Errorf("Next after the end: %v", err)
	}
}

// TestWatchStreamingListQuery checks the query of a streaming list, and
// that a Source of PartialObjectMetadata asks for metadata.
func TestWatchStreamingListQuery(t *testing.T) {
	var q url.Values
	var accept string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		q, accept = r.URL.Query(), r.Header.Get("Accept")
		streamHandler(kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w1", "11", "red")), kubefixture.EventJSON("BOOKMARK", kubefixture.BookmarkJSON("20", true)))(w, r)
	})
	src, err := New[*metav1.PartialObjectMetadata](&kube.Config{Host: srv.URL}, widgetRes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := watchOf(t, src, informer.WatchOptions{SendInitialEvents: true})
	evs, err := collect(t, w)
	if err != io.EOF || len(evs) != 2 || evs[0].Object.Name != "w1" || evs[1].Type != informer.EventInitialEventsEnd {
		t.Fatalf("%+v %v", evs, err)
	}
	if want := "allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=1"; q.Encode() != want {
		t.Errorf("query %s, want %s", q.Encode(), want)
	}
	if accept != kubewire.AcceptMetadataWatch { // auto without Options.Protobuf: JSON
		t.Errorf("Accept %q", accept)
	}
}

// TestWatchBadInput serves broken watch streams.
func TestWatchBadInput(t *testing.T) {
	good := kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w1", "11", "red"))
	tests := []struct {
		name   string
		chunks []string
		opts   Options
		events int     // good events before the error
		is     []error // what the error matches
		msg    string
		// recoverable: the error is for one event, the stream goes on
		// with one more good event.
		recoverable bool
	}{
		{name: "garbage between events", chunks: []string{good, "garbage\n", good}, events: 1,
			is: []error{kube.ErrMalformed}, msg: "invalid character 'g'"},
		{name: "a number between events", chunks: []string{good, "42 ", good}, events: 1,
			is: []error{kube.ErrMalformed}, msg: "expected a watch event (a JSON object), found a number"},
		{name: "truncated mid-object", chunks: []string{good, good[:60]}, events: 1,
			is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "truncated"},
		{name: "truncated mid-envelope", chunks: []string{good, `{"type":"ADDED",`}, events: 1,
			is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "truncated"},
		{name: "unknown event type", chunks: []string{good, kubefixture.EventJSON("RENAMED", kubefixture.WidgetJSON("a", "w1", "12", "red")), good}, events: 1,
			is: []error{informer.ErrUnknownEventType, kube.ErrMalformed}, msg: `unknown event type "RENAMED"`, recoverable: true},
		{name: "object of the wrong shape", chunks: []string{kubefixture.EventJSON("MODIFIED", `{"metadata":{"name":["x"]}}`), good},
			is: []error{kube.ErrMalformed}, msg: "MODIFIED event's object: the object does not decode into *kubefixture.Widget: field metadata.name", recoverable: true},
		{name: "no type", chunks: []string{`{"object":{}}`, good}, is: []error{kube.ErrMalformed}, msg: `no "type"`, recoverable: true},
		{name: "no object", chunks: []string{`{"type":"ADDED"}`, good}, is: []error{kube.ErrMalformed}, msg: `ADDED event has no "object"`, recoverable: true},
		{name: "type is a number", chunks: []string{`{"type":7,"object":{}}`, good}, is: []error{kube.ErrMalformed}, msg: "the event type is a number", recoverable: true},
		{name: "type is an object", chunks: []string{`{"type":{"a":1},"object":{}}`, good}, is: []error{kube.ErrMalformed}, msg: "the event type is an object", recoverable: true},
		{name: "error with a string object", chunks: []string{good, kubefixture.EventJSON("ERROR", `"boom"`), good}, events: 1,
			is: []error{kube.ErrMalformed}, msg: "ERROR event's object is not a Status"},
		{name: "error with an empty status", chunks: []string{kubefixture.EventJSON("ERROR", `{"kind":"Status"}`)},
			is: []error{kube.ErrMalformed}, msg: "no code, reason or message"},
		{name: "error with a status of the wrong shape", chunks: []string{kubefixture.EventJSON("ERROR", `{"code":"410"}`)},
			is: []error{kube.ErrMalformed}, msg: "not a Status"},
		{name: "expired", chunks: []string{good, kubefixture.EventJSON("ERROR", kubefixture.StatusJSON(410, "Expired", "too old resource version: 5 (10)")), good}, events: 1,
			is: []error{informer.ErrExpired}, msg: "410 Gone (Expired): too old resource version"},
		{name: "huge object", chunks: []string{good, `{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 10000) + `"}}}`}, events: 1,
			opts: Options{MaxObjectBytes: 1000}, is: []error{kube.ErrObjectTooLarge}, msg: "the event is larger than the limit of 1000 bytes"},
		{name: "html", chunks: []string{"<html><body>oops</body></html>"}, is: []error{kube.ErrMalformed}, msg: "invalid character '<'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newTestSource(t, streamHandler(tt.chunks...), tt.opts)
			w := watchOf(t, src, informer.WatchOptions{ResourceVersion: "10"})
			checkBadWatch(t, w, tt.events, tt.is, tt.msg, tt.recoverable)
		})
	}
}

// TestWatchHugeObject streams a 50 MiB event: the watch ends at the
// limit.
func TestWatchHugeObject(t *testing.T) {
	src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w1", "11", "red")))
		io.WriteString(w, `{"type":"MODIFIED","object":{"metadata":{"name":"big"},"spec":{"color":"`)
		chunk := strings.Repeat("x", 64<<10)
		for range (50 << 20) / len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}}}`)
	}), Options{MaxObjectBytes: 1 << 20})
	w := watchOf(t, src, informer.WatchOptions{})
	evs, err := collect(t, w)
	if len(evs) != 1 || !errors.Is(err, kube.ErrObjectTooLarge) {
		t.Fatalf("%d events, %v", len(evs), err)
	}
}

// TestWatchHTTPErrors: errors answered to the watch request itself.
func TestWatchHTTPErrors(t *testing.T) {
	tests := []struct {
		name    string
		h       http.HandlerFunc
		initial bool
		is      error
	}{
		{"403", serveJSON(403, kubefixture.StatusJSON(403, "Forbidden", "forbidden")), false, kube.ErrForbidden},
		{"410", serveJSON(410, kubefixture.StatusJSON(410, "Gone", "gone")), false, informer.ErrExpired},
		{"watch list off", serveJSON(422, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","field":"sendInitialEvents"}]},"code":422}`),
			true, informer.ErrWatchListUnsupported},
		// An API server from before streaming lists ignores
		// sendInitialEvents but rejects resourceVersionMatch on a watch.
		{"watch list unknown", serveJSON(422, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: resourceVersionMatch is forbidden for watch","field":"resourceVersionMatch"}]},"code":422}`),
			true, informer.ErrWatchListUnsupported},
		{"html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>login</html>")
		}, false, kube.ErrNotJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newTestSource(t, tt.h, Options{})
			w, err := src.Watch(t.Context(), informer.WatchOptions{SendInitialEvents: tt.initial})
			if w != nil || !errors.Is(err, tt.is) {
				t.Fatalf("watcher %v, error %v; want %v", w, err, tt.is)
			}
			t.Log(err)
			var ae *kube.APIError
			if tt.name != "html" && !errors.As(err, &ae) {
				t.Errorf("%T is not an *APIError", err)
			}
		})
	}
}

// TestWatchListRefusedByEvent: a streaming list refused with an ERROR
// event matches ErrWatchListUnsupported; the same error on a plain watch
// does not.
func TestWatchListRefusedByEvent(t *testing.T) {
	msg := "a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled"
	for _, initial := range []bool{true, false} {
		src, _ := newTestSource(t, streamHandler(kubefixture.EventJSON("ERROR", kubefixture.StatusJSON(500, "InternalError", msg))), Options{})
		w := watchOf(t, src, informer.WatchOptions{SendInitialEvents: initial})
		_, err := w.Next()
		var ae *kube.APIError
		if !errors.As(err, &ae) || ae.Code != 500 || errors.Is(err, informer.ErrWatchListUnsupported) != initial {
			t.Errorf("initial=%v: %v", initial, err)
		}
	}
}

// stallHandler sends one event and then nothing until the client leaves.
func stallHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w1", "11", "red")))
	io.WriteString(w, `{"type":"MODIFIED","object":{"metadata":`)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestWatchStallClose: Close unblocks a Next waiting on a silent stream,
// over HTTP/1.1 and HTTP/2.
func TestWatchStallClose(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(stallHandler))
		srv.EnableHTTP2 = h2
		srv.StartTLS()
		t.Cleanup(srv.Close)
		src, err := New[*kubefixture.Widget](&kube.Config{Host: srv.URL}, widgetRes, Options{HTTPClient: srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		w := watchOf(t, src, informer.WatchOptions{})
		if ev, err := w.Next(); err != nil || ev.Object.Name != "w1" {
			t.Fatalf("first event: %+v %v", ev, err)
		}
		done := make(chan error)
		go func() {
			_, err := w.Next()
			done <- err
		}()
		w.Close()
		if err := <-done; err != io.EOF {
			t.Errorf("h2=%v: Next after Close: %v, want io.EOF", h2, err)
		}
		w.Close() // again: no effect
	}
}

// TestWatchStallCancel: ending the context unblocks a Next waiting on a
// silent stream; the error wraps the cause.
func TestWatchStallCancel(t *testing.T) {
	src, _ := newTestSource(t, http.HandlerFunc(stallHandler), Options{})
	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(t.Context())
	w, err := src.Watch(ctx, informer.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Next(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := w.Next()
		done <- err
	}()
	cancel(cause)
	if err := <-done; !errors.Is(err, cause) || !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel: %v, want the cause", err)
	}
}

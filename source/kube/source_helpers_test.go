package kube

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// widget is a small object type of the tests, shaped like a CRD object.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Color string `json:"color"`
	} `json:"spec"`
}

// widgetRes is the resource the tests' widgets live in.
var widgetRes = Resource{Group: "example.com", Version: "v1", Resource: "widgets"}

// widgetJSON returns a widget object as JSON.
func widgetJSON(ns, name, rv, color string) string {
	return fmt.Sprintf(`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":%q,"namespace":%q,"resourceVersion":%q,"labels":{"app":"x"}},"spec":{"color":%q}}`, name, ns, rv, color)
}

// listJSON returns a list of items with the given metadata.
func listJSON(rv, cont string, items ...string) string {
	return fmt.Sprintf(`{"kind":"WidgetList","apiVersion":"example.com/v1","metadata":{"resourceVersion":%q,"continue":%q},"items":[%s]}`, rv, cont, strings.Join(items, ","))
}

// eventJSON returns one watch event line.
func eventJSON(typ, object string) string {
	return fmt.Sprintf(`{"type":%q,"object":%s}`+"\n", typ, object)
}

// statusJSON returns a Status body.
func statusJSON(code int, reason, message string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, message, reason, code)
}

// newTestSource starts a plain HTTP server on loopback with h and returns
// a Source of widgets for it.
func newTestSource(t testing.TB, h http.Handler, opts Options) (*Source[*widget], *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	t.Cleanup(srv.Close)
	if opts.QPS == 0 && opts.RateLimiter == nil {
		opts.QPS = -1
	}
	src, err := New[*widget](&Config{Host: srv.URL}, widgetRes, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.client.CloseIdleConnections)
	return src, srv
}

// serveJSON answers every request with status and a JSON body.
func serveJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// streamHandler writes each chunk of a watch and flushes it, then returns.
func streamHandler(chunks ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for _, c := range chunks {
			io.WriteString(w, c)
			w.(http.Flusher).Flush()
		}
	}
}

// collect reads events until an error, and returns them with the error.
func collect[T informer.Object](t testing.TB, w informer.Watcher[T]) ([]informer.Event[T], error) {
	t.Helper()
	var evs []informer.Event[T]
	for {
		ev, err := w.Next()
		if err != nil {
			return evs, err
		}
		if len(evs) > 10000 {
			t.Fatal("too many events")
		}
		evs = append(evs, ev)
	}
}

// watchOf opens a watch on src with bookmarks.
func watchOf[T informer.Object](t testing.TB, src *Source[T], opts informer.WatchOptions) informer.Watcher[T] {
	t.Helper()
	w, err := src.Watch(t.Context(), opts)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// handlerTransport serves requests with h in memory, without a network,
// so that it works inside a synctest bubble.
func handlerTransport(h http.Handler) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Result(), nil
	})
}

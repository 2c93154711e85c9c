package kube

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// widgetRes is the resource the tests' widgets live in.
var widgetRes = kube.Resource{Group: "example.com", Version: "v1", Resource: "widgets"}

// newTestSource starts a plain HTTP server on loopback with h and returns
// a Source of widgets for it.
func newTestSource(t testing.TB, h http.Handler, opts Options) (*Source[*kubefixture.Widget], *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	t.Cleanup(srv.Close)
	if opts.QPS == 0 && opts.RateLimiter == nil {
		opts.QPS = -1
	}
	src, err := New[*kubefixture.Widget](&kube.Config{Host: srv.URL}, widgetRes, opts)
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

// checkBadWatch reads a broken watch stream of a table test: events good
// ADDED events, then an error that matches every error of is, mentions
// msg and is a *DecodeError (Recoverable as recoverable says) or an
// *APIError, with no event beside it. After it, a recoverable error is
// followed by one more good event (named w1); any other comes back again.
func checkBadWatch[T informer.Object](t *testing.T, w informer.Watcher[T], events int, is []error, msg string, recoverable bool) {
	t.Helper()
	for i := range events {
		if ev, err := w.Next(); err != nil || ev.Type != informer.EventAdded {
			t.Fatalf("event %d: %+v, %v", i, ev, err)
		}
	}
	ev, err := w.Next()
	if err == nil {
		t.Fatalf("no error; event %+v", ev)
	}
	t.Log(err)
	if ev.Type != 0 || !isNil(ev.Object) {
		t.Errorf("an event came with the error: %+v", ev)
	}
	for _, want := range is {
		if !errors.Is(err, want) {
			t.Errorf("%q is not %v", err, want)
		}
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("%q does not mention %q", err, msg)
	}
	var de *kube.DecodeError
	var ae *kube.APIError
	if !errors.As(err, &de) && !errors.As(err, &ae) {
		t.Errorf("%T is neither a *DecodeError nor an *APIError", err)
	}
	if de != nil && de.Recoverable != recoverable {
		t.Errorf("Recoverable %v", de.Recoverable)
	}
	next, err2 := w.Next()
	if recoverable {
		if err2 != nil || next.Type != informer.EventAdded || next.Object.GetName() != "w1" {
			t.Errorf("after a recoverable error: %+v, %v", next, err2)
		}
	} else if err2 != err {
		t.Errorf("after the stream ended: %+v, %v; want the same error again", next, err2)
	}
}

// checkBadList checks the error of a List of a broken response in a table
// test: no page beside it; it matches every error of is and mentions msg;
// it is a *DecodeError or a *ContentTypeError; and a *DecodeError is
// either too large or malformed, never both.
func checkBadList[T informer.Object](t *testing.T, page informer.Page[T], err error, is []error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; page %+v", page)
	}
	t.Log(err)
	if page.Items != nil || page.ResourceVersion != "" {
		t.Errorf("a page came with the error: %+v", page)
	}
	for _, want := range is {
		if !errors.Is(err, want) {
			t.Errorf("error %q is not %v", err, want)
		}
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not mention %q", err, msg)
	}
	var de *kube.DecodeError
	var ce *kube.ContentTypeError
	if !errors.As(err, &de) && !errors.As(err, &ce) {
		t.Errorf("error %T is neither a *DecodeError nor a *ContentTypeError", err)
	}
	if errors.Is(err, kube.ErrObjectTooLarge) == errors.Is(err, kube.ErrMalformed) && de != nil {
		t.Errorf("an error is either too large or malformed: %v", err)
	}
}

// newSourceFor starts a plain HTTP server on loopback with h and returns
// a Source of T for res.
func newSourceFor[T informer.Object](t testing.TB, h http.Handler, res kube.Resource, opts Options) *Source[T] {
	t.Helper()
	srv := httptest.NewServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	t.Cleanup(srv.Close)
	if opts.QPS == 0 && opts.RateLimiter == nil {
		opts.QPS = -1
	}
	src, err := New[T](&kube.Config{Host: srv.URL}, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.client.CloseIdleConnections)
	return src
}

// needKube skips t unless the integration tests are on, and returns the
// test server's environment.
func needKube(t *testing.T) map[string]string {
	t.Helper()
	return apiserver.Need(t)
}

// isNil reports whether v is nil or T's zero value.
func isNil[T any](v T) bool {
	return any(v) == nil || any(v) == any((T)(*new(T)))
}

// TestMain starts one kube-apiserver for the integration tests when
// KUBE_INTEGRATION=1 (see apiserver.Main).
func TestMain(m *testing.M) { os.Exit(apiserver.Main(m)) }

package kube

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// faultServer serves h on loopback and returns a Client of widgets for
// it, and a counter of the requests it received.
func faultServer(t *testing.T, opts ClientOptions, h func(n int32, w http.ResponseWriter, r *http.Request)) (*Client[*kubefixture.Widget], *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h(n.Add(1), w, r)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	t.Cleanup(srv.Close)
	if opts.QPS == 0 && opts.RateLimiter == nil {
		opts.QPS = -1
	}
	c, err := NewClient[*kubefixture.Widget](&Config{Host: srv.URL}, widgetRes, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, &n
}

// answer writes a JSON body with code.
func answer(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	io.WriteString(w, body)
}

func newWidget(name string) *kubefixture.Widget {
	w := &kubefixture.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	w.Spec.Color = "secret-color"
	return w
}

// TestClientFaults sends each write to a server that answers with a
// fault, and checks the typed error, how often the request was sent, and
// that the error quotes nothing of the object.
func TestClientFaults(t *testing.T) {
	const invalid = `{"kind":"Status","apiVersion":"v1","status":"Failure","code":422,"reason":"Invalid",
		"message":"Widget.example.com \"a\" is invalid: spec.color: Invalid value: \"secret-color\": not a color",
		"details":{"name":"a","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"secret-color\": not a color","field":"spec.color"}]}}`
	tests := []struct {
		name     string
		serve    func(n int32, w http.ResponseWriter, r *http.Request)
		is       []error
		not      []error
		requests int32
		text     string // in the error's text
	}{
		{
			name: "409 conflict",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				answer(w, 409, kubefixture.StatusJSON(409, "Conflict", "the object has been modified"))
			},
			is: []error{ErrConflict}, not: []error{ErrAlreadyExists, ErrUnknownOutcome}, requests: 1, text: "ns/a",
		},
		{
			name: "409 already exists",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				answer(w, 409, kubefixture.StatusJSON(409, "AlreadyExists", `widgets "a" already exists`))
			},
			is: []error{ErrAlreadyExists}, not: []error{ErrConflict}, requests: 1,
		},
		{
			name:  "422 with causes",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) { answer(w, 422, invalid) },
			is:    []error{ErrInvalid}, requests: 1, text: `Widget "a" is invalid: spec.color (FieldValueInvalid)`,
		},
		{
			name: "500",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				answer(w, 500, kubefixture.StatusJSON(500, "InternalError", "etcd timed out"))
			},
			is: []error{ErrUnknownOutcome}, requests: 1, text: "may have been applied",
		},
		{
			name: "503 with Retry-After",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "1")
				answer(w, 503, kubefixture.StatusJSON(503, "ServiceUnavailable", "shutting down"))
			},
			is: []error{ErrUnknownOutcome}, requests: 1,
		},
		{
			name: "connection dropped after the request",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
			},
			is: []error{ErrUnknownOutcome}, requests: 1,
		},
		{
			name: "HTML error page",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			},
			is: []error{ErrUnknownOutcome}, requests: 1, text: "502 Bad Gateway",
		},
		{
			name: "JSON error body that is not a Status",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				answer(w, 400, `{"spec":{"color":"secret-color"}}`)
			},
			not: []error{ErrUnknownOutcome}, requests: 1, text: "not a Status",
		},
		{
			name: "HTML success page",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<html>login</html>")
			},
			is: []error{ErrUnexpectedContentType}, requests: 1, text: "the server did it",
		},
		{
			name: "success with a cut body",
			serve: func(_ int32, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(201)
				io.WriteString(w, `{"kind":"Widget","metadata":{"name":"a"`)
			},
			is: []error{ErrMalformed}, requests: 1, text: "the server did it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, n := faultServer(t, ClientOptions{}, tt.serve)
			_, err := c.Create(t.Context(), newWidget("a"), WriteOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("%v: not %v", err, target)
				}
			}
			for _, target := range tt.not {
				if errors.Is(err, target) {
					t.Errorf("%v: is %v", err, target)
				}
			}
			if got := n.Load(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if msg := err.Error(); strings.Contains(msg, "secret-color") || !strings.Contains(msg, tt.text) {
				t.Errorf("error text %q: want %q in it and nothing of the object", msg, tt.text)
			}
		})
	}
}

// TestClientTooManyRequests checks that a 429 is repeated after its
// Retry-After, for a write too (the server refused it without doing it),
// and that with retries off it is an ErrTooManyRequests with RetryAfter.
func TestClientTooManyRequests(t *testing.T) {
	serve := func(n int32, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			answer(w, 429, kubefixture.StatusJSON(429, "TooManyRequests", "slow down"))
			return
		}
		answer(w, 201, kubefixture.WidgetJSON("ns", "a", "7", "blue"))
	}
	c, n := faultServer(t, ClientOptions{}, serve)
	start := time.Now()
	got, err := c.Create(t.Context(), newWidget("a"), WriteOptions{})
	if err != nil || got.ResourceVersion != "7" {
		t.Fatalf("Create: %v, %v", got, err)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("repeated after %s, before the Retry-After of 1s", d)
	}
	if n.Load() != 2 {
		t.Errorf("%d requests, want 2", n.Load())
	}

	c, n = faultServer(t, ClientOptions{MaxRetries: -1}, serve)
	_, err = c.Create(t.Context(), newWidget("a"), WriteOptions{})
	var ae *APIError
	if !errors.Is(err, ErrTooManyRequests) || !errors.As(err, &ae) || ae.RetryAfter != time.Second || n.Load() != 1 {
		t.Errorf("without retries: %v (%d requests), want ErrTooManyRequests with RetryAfter 1s", err, n.Load())
	}
}

// TestClientReadRetried checks that a Get is repeated after a 503 and a
// dropped connection, which leave a write alone.
func TestClientReadRetried(t *testing.T) {
	c, n := faultServer(t, ClientOptions{}, func(n int32, w http.ResponseWriter, _ *http.Request) {
		switch n {
		case 1:
			answer(w, 503, kubefixture.StatusJSON(503, "ServiceUnavailable", "starting"))
		case 2:
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		default:
			answer(w, 200, kubefixture.WidgetJSON("ns", "a", "7", "blue"))
		}
	})
	got, err := c.Get(t.Context(), "ns", "a", GetOptions{})
	if err != nil || got.Spec.Color != "blue" || n.Load() != 3 {
		t.Errorf("Get: %v, %v after %d requests, want the widget after 3", got, err, n.Load())
	}
}

// TestClientReadErrors checks the sentinels of a Get's refusals.
func TestClientReadErrors(t *testing.T) {
	for _, tt := range []struct {
		code   int
		reason string
		is     error
	}{
		{403, "Forbidden", ErrForbidden},
		{401, "Unauthorized", ErrUnauthorized},
		{410, "Gone", ErrGone},
		{410, "Expired", ErrGone},
		{404, "NotFound", ErrNotFound},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			c, n := faultServer(t, ClientOptions{}, func(_ int32, w http.ResponseWriter, _ *http.Request) {
				answer(w, tt.code, kubefixture.StatusJSON(tt.code, tt.reason, "no"))
			})
			_, err := c.Get(t.Context(), "ns", "a", GetOptions{})
			var ae *APIError
			if !errors.Is(err, tt.is) || !errors.As(err, &ae) || ae.Object != "ns/a" || ae.Op != "get" || n.Load() != 1 {
				t.Errorf("%v (%d requests): want %v naming ns/a, sent once", err, n.Load(), tt.is)
			}
		})
	}
}

// TestClientWriteContextEnds checks that a write whose context ends while
// the server holds it is an ErrUnknownOutcome that also matches the
// context's error, sent once.
func TestClientWriteContextEnds(t *testing.T) {
	c, n := faultServer(t, ClientOptions{}, func(_ int32, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Update(ctx, newWidget("a"), WriteOptions{})
	if !errors.Is(err, ErrUnknownOutcome) || !errors.Is(err, context.DeadlineExceeded) || n.Load() != 1 {
		t.Errorf("%v (%d requests): want ErrUnknownOutcome and DeadlineExceeded, sent once", err, n.Load())
	}
}

// TestClientWriteRedirect checks that a write is never redirected:
// net/http would turn a redirected POST into a GET, whose answer would
// pass for the write's.
func TestClientWriteRedirect(t *testing.T) {
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			c, n := faultServer(t, ClientOptions{}, func(_ int32, w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					answer(w, 200, kubefixture.WidgetJSON("ns", "a", "7", "blue"))
					return
				}
				http.Redirect(w, r, "/elsewhere", code)
			})
			_, err := c.Create(t.Context(), newWidget("a"), WriteOptions{})
			if !errors.Is(err, ErrRedirect) || errors.Is(err, ErrUnknownOutcome) || n.Load() != 1 {
				t.Errorf("%v (%d requests): want ErrRedirect, sent once", err, n.Load())
			}
		})
	}
}

package kube

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/internal/kubewire"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestListPages lists three pages, one of them gzipped, and checks what
// was asked and what was decoded.
func TestListPages(t *testing.T) {
	var queries []url.Values
	src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/example.com/v1/namespaces/team-a/widgets" {
			t.Errorf("path %s", r.URL.Path)
		}
		if r.Header.Get("Accept") != "application/json" || r.Header.Get("Accept-Encoding") != "gzip" || r.Header.Get("User-Agent") != "tests/1" {
			t.Errorf("headers %v", r.Header)
		}
		q := r.URL.Query()
		queries = append(queries, q)
		w.Header().Set("Content-Type", "application/json")
		switch q.Get("continue") {
		case "":
			io.WriteString(w, kubefixture.ListJSON("100", "c1", kubefixture.WidgetJSON("team-a", "a", "7", "red"), kubefixture.WidgetJSON("team-a", "b", "8", "blue")))
		case "c1":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, kubefixture.ListJSON("100", "c2", kubefixture.WidgetJSON("team-a", "c", "9", "green")))
			zw.Close()
		default:
			io.WriteString(w, `{"kind":"WidgetList","metadata":{"resourceVersion":"100"},"items":[]}`)
		}
	}), Options{Namespace: "team-a", LabelSelector: "app=x", FieldSelector: "metadata.name!=z", UserAgent: "tests/1"})

	var names []string
	opts := informer.ListOptions{ResourceVersion: "0", ResourceVersionMatch: informer.MatchNotOlderThan, Limit: 2}
	for range 3 {
		page, err := src.List(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if page.ResourceVersion != "100" {
			t.Errorf("resourceVersion %q", page.ResourceVersion)
		}
		for _, w := range page.Items {
			names = append(names, w.Name+"="+w.Spec.Color+"@"+w.ResourceVersion)
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	if got := strings.Join(names, " "); got != "a=red@7 b=blue@8 c=green@9" {
		t.Errorf("items %s", got)
	}
	if len(queries) != 3 {
		t.Fatalf("%d requests", len(queries))
	}
	want := []string{
		"fieldSelector=metadata.name%21%3Dz&labelSelector=app%3Dx&limit=2&resourceVersion=0&resourceVersionMatch=NotOlderThan",
		"continue=c1&fieldSelector=metadata.name%21%3Dz&labelSelector=app%3Dx&limit=2",
		"continue=c2&fieldSelector=metadata.name%21%3Dz&labelSelector=app%3Dx&limit=2",
	}
	for i, q := range queries {
		if q.Encode() != want[i] {
			t.Errorf("request %d: %s, want %s", i, q.Encode(), want[i])
		}
	}
}

// TestListPaths checks the URL of core and group resources, with and
// without a namespace, below a base path.
func TestListPaths(t *testing.T) {
	tests := []struct {
		res  kube.Resource
		ns   string
		want string
	}{
		{kube.Resource{Version: "v1", Resource: "pods"}, "", "/prefix/api/v1/pods"},
		{kube.Resource{Version: "v1", Resource: "pods"}, "kube-system", "/prefix/api/v1/namespaces/kube-system/pods"},
		{kube.Resource{Group: "apps", Version: "v1", Resource: "deployments"}, "a", "/prefix/apis/apps/v1/namespaces/a/deployments"},
		{kube.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, "", "/prefix/apis/apiextensions.k8s.io/v1/customresourcedefinitions"},
	}
	for _, tt := range tests {
		var got string
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			got = r.URL.Path
			serveJSON(200, kubefixture.ListJSON("1", ""))(w, r)
		})
		src, err := New[*kubefixture.Widget](&kube.Config{Host: srv.URL + "/prefix/"}, tt.res, Options{Namespace: tt.ns})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%v in %q: path %s, want %s", tt.res, tt.ns, got, tt.want)
		}
	}
}

// TestNewRejects checks what New refuses.
func TestNewRejects(t *testing.T) {
	cfg := &kube.Config{Host: "https://127.0.0.1:1"}
	for _, tt := range []struct {
		name string
		err  func() error
	}{
		{"nil config", func() error { _, err := New[*kubefixture.Widget](nil, widgetRes, Options{}); return err }},
		{"no version", func() error {
			_, err := New[*kubefixture.Widget](cfg, kube.Resource{Resource: "pods"}, Options{})
			return err
		}},
		{"slash", func() error {
			_, err := New[*kubefixture.Widget](cfg, kube.Resource{Version: "v1", Resource: "pods/log"}, Options{})
			return err
		}},
		{"namespace", func() error { _, err := New[*kubefixture.Widget](cfg, widgetRes, Options{Namespace: ".."}); return err }},
		{"not a pointer", func() error { _, err := New[plainObject](cfg, widgetRes, Options{}); return err }},
		{"no host", func() error { _, err := New[*kubefixture.Widget](&kube.Config{}, widgetRes, Options{}); return err }},
	} {
		err := tt.err()
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if !errors.Is(err, kube.ErrInvalidConfig) && !errors.Is(err, kube.ErrNoServer) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// plainObject is an Object that is not a pointer.
type plainObject struct{}

func (plainObject) GetNamespace() string         { return "" }
func (plainObject) GetName() string              { return "x" }
func (plainObject) GetResourceVersion() string   { return "" }
func (plainObject) GetLabels() map[string]string { return nil }

// TestListMetadataOnly checks that a Source of PartialObjectMetadata asks
// for metadata only, and decodes full objects too (the fallback).
func TestListMetadataOnly(t *testing.T) {
	var accept string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		serveJSON(200, kubefixture.ListJSON("5", "", kubefixture.WidgetJSON("a", "w", "3", "red")))(w, r)
	})
	src, err := New[*metav1.PartialObjectMetadata](&kube.Config{Host: srv.URL}, widgetRes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if accept != kubewire.AcceptMetadataList { // auto without Options.Protobuf: JSON
		t.Errorf("Accept %q", accept)
	}
	if len(page.Items) != 1 || page.Items[0].Name != "w" || page.Items[0].Labels["app"] != "x" {
		t.Errorf("items %+v", page.Items)
	}
}

// TestListBadInput serves broken list responses: each gives a clear,
// typed error, and nothing is invented.
func TestListBadInput(t *testing.T) {
	tests := []struct {
		name string
		h    http.HandlerFunc
		opts Options
		is   []error
		msg  string
	}{
		{"html page with 200", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<html><body><h1>Sign in to continue</h1></body></html>")
		}, Options{}, []error{kube.ErrNotJSON}, "Content-Type text/html; charset=utf-8, not JSON; body starts \"<html><body><h1>Sign in"},
		{"json with the wrong content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, kubefixture.ListJSON("1", ""))
		}, Options{}, []error{kube.ErrNotJSON}, "Content-Type text/plain"},
		{"no content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			io.WriteString(w, "\x00\x01")
		}, Options{}, []error{kube.ErrNotJSON}, "Content-Type none"},
		{"truncated mid-object", serveJSON(200, kubefixture.ListJSON("1", "", kubefixture.WidgetJSON("a", "b", "1", "red"))[:120]),
			Options{}, []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, "item 0"},
		{"truncated between items", serveJSON(200, `{"metadata":{},"items":[`+kubefixture.WidgetJSON("a", "b", "1", "red")+`,`),
			Options{}, []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, "unexpected EOF"},
		{"empty body", serveJSON(200, ""), Options{}, []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, ""},
		{"items is an object", serveJSON(200, `{"metadata":{"resourceVersion":"1"},"items":{"a":1}}`),
			Options{}, []error{kube.ErrMalformed}, `"items" is an object, not an array`},
		{"items is a string", serveJSON(200, `{"items":"nope"}`),
			Options{}, []error{kube.ErrMalformed}, `"items" is a string, not an array`},
		{"no items", serveJSON(200, `{"kind":"Widget","metadata":{"name":"x"}}`),
			Options{}, []error{kube.ErrMalformed}, `no "items": not a list`},
		{"top level array", serveJSON(200, `[1,2]`), Options{}, []error{kube.ErrMalformed}, "is an array, not a JSON list object"},
		{"item is a number", serveJSON(200, `{"items":[`+kubefixture.WidgetJSON("a", "b", "1", "red")+`,42]}`),
			Options{}, []error{kube.ErrMalformed}, "item 1"},
		{"field of the wrong type", serveJSON(200, `{"items":[{"metadata":{"name":7}}]}`),
			Options{}, []error{kube.ErrMalformed}, "item 0"},
		{"metadata is a number", serveJSON(200, `{"metadata":5,"items":[]}`),
			Options{}, []error{kube.ErrMalformed}, "metadata"},
		{"garbage after the list", serveJSON(200, kubefixture.ListJSON("1", "")+`}garbage`),
			Options{}, []error{kube.ErrMalformed}, ""},
		{"second list after the list", serveJSON(200, kubefixture.ListJSON("1", "")+kubefixture.ListJSON("2", "")),
			Options{}, []error{kube.ErrMalformed}, "data after the list"},
		{"invalid json", serveJSON(200, `{"items":[{"metadata":{"name":"a"}}}]}`),
			Options{}, []error{kube.ErrMalformed}, "invalid character"},
		{"bad gzip", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			io.WriteString(w, "not gzip at all")
		}, Options{}, []error{kube.ErrMalformed}, "gzip"},
		{"corrupt gzip data", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			io.WriteString(zw, kubefixture.ListJSON("1", "", kubefixture.WidgetJSON("a", "b", "1", "red")))
			zw.Close()
			data := b.Bytes()
			for i := 20; i < len(data)-8; i += 7 {
				data[i] ^= 0x5a
			}
			w.Write(data)
		}, Options{}, []error{kube.ErrMalformed}, "gzip"},
		{"unknown encoding", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "br")
			io.WriteString(w, kubefixture.ListJSON("1", ""))
		}, Options{}, []error{kube.ErrMalformed}, `Content-Encoding "br"`},
		{"response over MaxResponseBytes", serveJSON(200, kubefixture.ListJSON("1", "", kubefixture.WidgetJSON("a", "b", "1", "red"), kubefixture.WidgetJSON("a", "c", "1", "red"))),
			Options{MaxResponseBytes: 200}, []error{kube.ErrObjectTooLarge}, "MaxResponseBytes"},
		{"huge field outside items", serveJSON(200, `{"kind":"`+strings.Repeat("x", 5000)+`","items":[]}`),
			Options{MaxObjectBytes: 1000}, []error{kube.ErrObjectTooLarge}, "MaxObjectBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newTestSource(t, tt.h, tt.opts)
			page, err := src.List(t.Context(), informer.ListOptions{})
			checkBadList(t, page, err, tt.is, tt.msg)
		})
	}
}

// TestListHugeObject serves a 50 MiB item: the list fails at the limit,
// having read little more than the limit, and allocating little.
func TestListHugeObject(t *testing.T) {
	const huge = 50 << 20
	var written atomic.Int64
	src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		n, _ := io.WriteString(w, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"big"},"spec":{"color":"`)
		written.Add(int64(n))
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for i := 0; i < huge/len(chunk); i++ {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return // the client went away
			}
		}
		io.WriteString(w, `"}}]}`)
	}), Options{MaxObjectBytes: 1 << 20})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := src.List(t.Context(), informer.ListOptions{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, kube.ErrObjectTooLarge) {
		t.Fatalf("error %v, want ErrObjectTooLarge", err)
	}
	var de *kube.DecodeError
	if !errors.As(err, &de) || de.Item != 0 || de.Offset > 2<<20 {
		t.Errorf("error %#v", err)
	}
	if !strings.Contains(err.Error(), "larger than the limit of 1048576 bytes") {
		t.Errorf("message %q", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d MiB for a list that failed at 1 MiB", alloc>>20)
	}
	if w := written.Load(); w >= huge {
		t.Logf("the server wrote all of its %d bytes (buffered by the connection)", w)
	}
}

// TestListHTTPErrors checks the errors made of HTTP error responses.
func TestListHTTPErrors(t *testing.T) {
	tests := []struct {
		name   string
		h      http.HandlerFunc
		is     error
		code   int
		reason metav1.StatusReason
		msg    string
	}{
		{"401", serveJSON(401, kubefixture.StatusJSON(401, "Unauthorized", "Unauthorized")), kube.ErrUnauthorized, 401, "Unauthorized", "401 Unauthorized"},
		{"403", serveJSON(403, kubefixture.StatusJSON(403, "Forbidden", `widgets.example.com is forbidden: User "bob" cannot list resource "widgets"`)),
			kube.ErrForbidden, 403, "Forbidden", `User "bob" cannot list`},
		{"404", serveJSON(404, kubefixture.StatusJSON(404, "NotFound", "the server could not find the requested resource")), kube.ErrNotFound, 404, "NotFound", "could not find"},
		{"410", serveJSON(410, kubefixture.StatusJSON(410, "Expired", "The resourceVersion for the provided list is too old.")), informer.ErrExpired, 410, "Expired", "too old"},
		{"429", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			serveJSON(429, kubefixture.StatusJSON(429, "TooManyRequests", "too many requests, please try again later"))(w, r)
		}, kube.ErrTooManyRequests, 429, "TooManyRequests", "retry after 3s"},
		{"404 as text", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "404 page not found", 404) }, kube.ErrNotFound, 404, "", "404 page not found"},
		{"502 from a proxy", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			io.WriteString(w, "<html><body>Bad Gateway</body></html>")
		}, nil, 502, "", "<html><body>Bad Gateway"},
		{"500 with json that is not a status", serveJSON(500, `{"error":"boom"}`), nil, 500, "", `{"error":"boom"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := newTestSource(t, tt.h, Options{})
			_, err := src.List(t.Context(), informer.ListOptions{})
			var ae *kube.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v, want *APIError", err, err)
			}
			t.Log(err)
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%v is not %v", err, tt.is)
			}
			if ae.Code != tt.code || ae.Reason != tt.reason || ae.Op != "list" || !strings.HasPrefix(ae.Path, "/apis/example.com/v1/widgets?") {
				t.Errorf("error %+v", ae)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
			for _, other := range []error{kube.ErrUnauthorized, kube.ErrForbidden, kube.ErrNotFound, informer.ErrExpired, kube.ErrTooManyRequests} {
				if other != tt.is && errors.Is(err, other) {
					t.Errorf("%v is also %v", err, other)
				}
			}
		})
	}
}

// TestListExpiredContinue: a 410 on a continue token is ErrExpired.
func TestListExpiredContinue(t *testing.T) {
	src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("continue") == "" {
			serveJSON(200, kubefixture.ListJSON("10", "tok", kubefixture.WidgetJSON("a", "b", "1", "red")))(w, r)
			return
		}
		serveJSON(410, kubefixture.StatusJSON(410, "Expired", "The provided continue parameter is too old to display a consistent list result."))(w, r)
	}), Options{})
	page, err := src.List(t.Context(), informer.ListOptions{Limit: 1})
	if err != nil || page.Continue != "tok" {
		t.Fatalf("first page: %v %+v", err, page)
	}
	_, err = src.List(t.Context(), informer.ListOptions{Limit: 1, Continue: page.Continue, ResourceVersion: "10"})
	if !errors.Is(err, informer.ErrExpired) {
		t.Fatalf("error %v, want ErrExpired", err)
	}
}

// TestListRedirects: a redirect loop and a redirect to another host are
// refused with ErrRedirect.
func TestListRedirects(t *testing.T) {
	src, srv := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.String(), http.StatusFound)
	}), Options{})
	_, err := src.List(t.Context(), informer.ListOptions{})
	if !errors.Is(err, kube.ErrRedirect) || !strings.Contains(err.Error(), "redirect loop") {
		t.Errorf("loop: %v", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("loop: %T is not a *url.Error", err)
	}

	other := newServer(t, serveJSON(200, kubefixture.ListJSON("1", "")))
	src2, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}), Options{})
	_, err = src2.List(t.Context(), informer.ListOptions{})
	if !errors.Is(err, kube.ErrRedirect) || !strings.Contains(err.Error(), "another host") {
		t.Errorf("other host: %v", err)
	}
	_ = srv
}

// TestListTimeoutAndCancel: a server that never answers is given up on
// at ListTimeout, or when the context ends.
func TestListTimeoutAndCancel(t *testing.T) {
	stall := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	src, _ := newTestSource(t, stall, Options{ListTimeout: 50 * time.Millisecond})
	_, err := src.List(t.Context(), informer.ListOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "ListTimeout") {
		t.Errorf("timeout: %v", err)
	}

	src2, _ := newTestSource(t, stall, Options{ListTimeout: -1})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		_, err := src2.List(ctx, informer.ListOptions{})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}
}

// newServer starts a plain HTTP test server.
func newServer(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// TestListPageSize: the page size has one place, Options.PageSize, used
// when the reflector leaves ListOptions.Limit at 0 (its default); a
// positive Limit overrides it, informer.NoLimit always lists everything.
func TestListPageSize(t *testing.T) {
	tests := []struct {
		pageSize, limit int64
		want            string // the limit parameter sent; "" for none
	}{
		{0, 0, "500"},
		{7, 0, "7"},
		{-1, 0, ""},
		{7, 3, "3"},
		{-1, 3, "3"},
		{0, informer.NoLimit, ""},
		{7, informer.NoLimit, ""},
	}
	for _, tt := range tests {
		var got string
		src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = r.URL.Query().Get("limit")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"kind":"WidgetList","metadata":{"resourceVersion":"1"},"items":[]}`)
		}), Options{PageSize: tt.pageSize})
		if _, err := src.List(t.Context(), informer.ListOptions{Limit: tt.limit}); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("PageSize %d, Limit %d: limit=%q, want %q", tt.pageSize, tt.limit, got, tt.want)
		}
	}
}

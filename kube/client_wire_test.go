package kube

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// sentRequest is what the test server received.
type sentRequest struct {
	method, path, query, contentType string
	body                             []byte
}

// recordingClient returns a Client of widgets for a loopback server that
// records each request and answers it as kube-apiserver would a success.
func recordingClient(t *testing.T, opts ClientOptions) (*Client[*kubefixture.Widget], func() []sentRequest) {
	t.Helper()
	var mu sync.Mutex
	var sent []sentRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		sent = append(sent, sentRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), body})
		mu.Unlock()
		switch {
		case r.Method == http.MethodDelete:
			answer(w, 200, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
		case r.Method == http.MethodGet && !strings.Contains(r.URL.Path, "/widgets/"):
			answer(w, 200, kubefixture.ListJSON("9", "", kubefixture.WidgetJSON("ns", "a", "9", "blue")))
		default:
			answer(w, 200, kubefixture.WidgetJSON("ns", "a", "9", "blue"))
		}
	}))
	t.Cleanup(srv.Close)
	opts.QPS = -1
	c, err := NewClient[*kubefixture.Widget](&Config{Host: srv.URL}, widgetRes, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []sentRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]sentRequest(nil), sent...)
	}
}

// TestClientSendsOptions: each call sends what its options ask for, as
// kube-apiserver reads it: dryRun, fieldManager (the call's, else the
// Client's), fieldValidation and force in the query; a Delete's dry run,
// preconditions, propagation and grace period in its DeleteOptions body.
func TestClientSendsOptions(t *testing.T) {
	const path = "/apis/example.com/v1/namespaces/ns/widgets"
	stored := func() *kubefixture.Widget { w := newWidget("a"); w.ResourceVersion = "5"; return w }
	grace := time.Duration(0)
	type del = metav1.DeleteOptions
	for _, tc := range []struct {
		name   string
		opts   ClientOptions
		call   func(ctx context.Context, c *Client[*kubefixture.Widget]) error
		method string
		path   string // below path
		query  string
		ctype  string
		delete *del // the DeleteOptions body, for a delete
	}{
		{name: "create", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Create(ctx, newWidget("a"), WriteOptions{})
			return err
		}, method: "POST", ctype: "application/json"},
		{name: "create dry run, manager and validation", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Create(ctx, newWidget("a"), WriteOptions{DryRun: true, FieldManager: "m", FieldValidation: "Strict"})
			return err
		}, method: "POST", query: "dryRun=All&fieldManager=m&fieldValidation=Strict", ctype: "application/json"},
		{name: "create as the Client's manager", opts: ClientOptions{FieldManager: "ctl"}, call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Create(ctx, newWidget("a"), WriteOptions{})
			return err
		}, method: "POST", query: "fieldManager=ctl", ctype: "application/json"},
		{name: "the call's manager over the Client's", opts: ClientOptions{FieldManager: "ctl"}, call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Create(ctx, newWidget("a"), WriteOptions{FieldManager: "m"})
			return err
		}, method: "POST", query: "fieldManager=m", ctype: "application/json"},
		{name: "update dry run", opts: ClientOptions{FieldManager: "ctl"}, call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Update(ctx, stored(), WriteOptions{DryRun: true})
			return err
		}, method: "PUT", path: "/a", query: "dryRun=All&fieldManager=ctl", ctype: "application/json"},
		{name: "update status dry run", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.UpdateStatus(ctx, stored(), WriteOptions{DryRun: true})
			return err
		}, method: "PUT", path: "/a/status", query: "dryRun=All", ctype: "application/json"},
		{name: "merge patch dry run", opts: ClientOptions{FieldManager: "ctl"}, call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Patch(ctx, "ns", "a", types.MergePatchType, []byte(`{"spec":{"color":"red"}}`), PatchOptions{DryRun: true})
			return err
		}, method: "PATCH", path: "/a", query: "dryRun=All&fieldManager=ctl", ctype: "application/merge-patch+json"},
		{name: "apply as the Client's manager", opts: ClientOptions{FieldManager: "ctl"}, call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Apply(ctx, newWidget("a"), PatchOptions{})
			return err
		}, method: "PATCH", path: "/a", query: "fieldManager=ctl", ctype: "application/apply-patch+yaml"},
		{name: "apply forced", opts: ClientOptions{FieldManager: "ctl"}, call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Apply(ctx, newWidget("a"), PatchOptions{Force: true, FieldManager: "m"})
			return err
		}, method: "PATCH", path: "/a", query: "fieldManager=m&force=true", ctype: "application/apply-patch+yaml"},
		{name: "apply patch dry run forced", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Patch(ctx, "ns", "a", types.ApplyPatchType, []byte(`{"spec":{"color":"red"}}`), PatchOptions{DryRun: true, Force: true, FieldManager: "m"})
			return err
		}, method: "PATCH", path: "/a", query: "dryRun=All&fieldManager=m&force=true", ctype: "application/apply-patch+yaml"},
		{name: "get at a version", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Get(ctx, "ns", "a", GetOptions{ResourceVersion: "0"})
			return err
		}, method: "GET", path: "/a", query: "resourceVersion=0"},
		{name: "list", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.List(ctx, "ns", ListOptions{LabelSelector: "app=x", ResourceVersion: "0", ResourceVersionMatch: "NotOlderThan"})
			return err
		}, method: "GET", query: "labelSelector=app%3Dx&limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan"},
		{name: "delete", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Delete(ctx, "ns", "a", DeleteOptions{})
			return err
		}, method: "DELETE", path: "/a", ctype: "application/json", delete: &del{}},
		{name: "delete with both preconditions", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Delete(ctx, "ns", "a", DeleteOptions{UID: "u1", ResourceVersion: "5"})
			return err
		}, method: "DELETE", path: "/a", ctype: "application/json", delete: &del{Preconditions: &metav1.Preconditions{UID: kubefixture.Ptr(types.UID("u1")), ResourceVersion: kubefixture.Ptr("5")}}},
		{name: "delete with the UID precondition", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Delete(ctx, "ns", "a", DeleteOptions{UID: "u1"})
			return err
		}, method: "DELETE", path: "/a", ctype: "application/json", delete: &del{Preconditions: &metav1.Preconditions{UID: kubefixture.Ptr(types.UID("u1"))}}},
		{name: "delete with the resourceVersion precondition", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Delete(ctx, "ns", "a", DeleteOptions{ResourceVersion: "5"})
			return err
		}, method: "DELETE", path: "/a", ctype: "application/json", delete: &del{Preconditions: &metav1.Preconditions{ResourceVersion: kubefixture.Ptr("5")}}},
		{name: "delete dry run, foreground, at once", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Delete(ctx, "ns", "a", DeleteOptions{DryRun: true, PropagationPolicy: metav1.DeletePropagationForeground, GracePeriod: &grace})
			return err
		}, method: "DELETE", path: "/a", ctype: "application/json", delete: &del{DryRun: []string{"All"}, PropagationPolicy: kubefixture.Ptr(metav1.DeletePropagationForeground), GracePeriodSeconds: kubefixture.Ptr(int64(0))}},
		{name: "delete collection dry run", call: func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			return c.DeleteCollection(ctx, "ns", ListOptions{LabelSelector: "app=x"}, DeleteOptions{DryRun: true, UID: "u1", ResourceVersion: "5"})
		}, method: "DELETE", query: "labelSelector=app%3Dx", ctype: "application/json", delete: &del{DryRun: []string{"All"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sent := recordingClient(t, tc.opts)
			if err := tc.call(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			reqs := sent()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != tc.method || r.path != path+tc.path || r.query != tc.query || r.contentType != tc.ctype {
				t.Errorf("sent %s %s?%s (Content-Type %q)\nwant %s %s?%s (Content-Type %q)", r.method, r.path, r.query, r.contentType, tc.method, path+tc.path, tc.query, tc.ctype)
			}
			if tc.delete == nil {
				return
			}
			var got del
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatalf("DeleteOptions body %q: %v", r.body, err)
			}
			want := *tc.delete
			want.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("DeleteOptions sent %s\nwant %+v", r.body, want)
			}
		})
	}
}

// TestClientReadFailureIsNotAWrite: a Get or a List that fails (a 5xx not
// repeated, or a dropped connection with retries off) is the server's
// error, not a write of unknown outcome: nothing was written.
func TestClientReadFailureIsNotAWrite(t *testing.T) {
	for _, tc := range []struct {
		name  string
		serve func(n int32, w http.ResponseWriter, r *http.Request)
		code  int // of the *APIError; 0 for none
	}{
		{"500", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			answer(w, 500, kubefixture.StatusJSON(500, "InternalError", "etcd timed out"))
		}, 500},
		{"connection dropped", func(_ int32, w http.ResponseWriter, _ *http.Request) {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		}, 0},
	} {
		for _, op := range []string{"get", "list"} {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				c, n := faultServer(t, ClientOptions{MaxRetries: -1}, tc.serve)
				var err error
				if op == "get" {
					_, err = c.Get(t.Context(), "ns", "a", GetOptions{})
				} else {
					_, err = c.List(t.Context(), "ns", ListOptions{})
				}
				var ae *APIError
				switch {
				case err == nil:
					t.Fatal("no error")
				case errors.Is(err, ErrUnknownOutcome) || strings.Contains(err.Error(), "may have been applied"):
					t.Errorf("%v: a failed %s is reported as a write of unknown outcome", err, op)
				case tc.code != 0 && (!errors.As(err, &ae) || ae.Code != tc.code || ae.Op != op):
					t.Errorf("%v: want the server's %d as an *APIError of %s", err, tc.code, op)
				}
				if n.Load() != 1 {
					t.Errorf("%d requests, want 1 (retries off)", n.Load())
				}
			})
		}
	}
}

// TestClientGetRedirect: a Get redirected within the API server is
// followed, with its credentials; one redirected to another host is not
// followed at all (the bearer token, which the Client's transport adds to
// every request, would go with it): the other host receives nothing, and
// the error matches ErrRedirect.
func TestClientGetRedirect(t *testing.T) {
	var elsewhere []string // the Authorization headers the other host received
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		answer(w, 200, kubefixture.WidgetJSON("ns", "a", "1", "stolen"))
	}))
	defer other.Close()
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		switch r.URL.Path {
		case "/apis/example.com/v1/namespaces/ns/widgets/here":
			http.Redirect(w, r, "/apis/example.com/v1/namespaces/ns/widgets/moved", http.StatusFound)
		case "/apis/example.com/v1/namespaces/ns/widgets/moved":
			answer(w, 200, kubefixture.WidgetJSON("ns", "moved", "7", "blue"))
		default:
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		}
	}))
	defer srv.Close()
	c, err := NewClient[*kubefixture.Widget](&Config{Host: srv.URL, BearerToken: "s3cret"}, widgetRes, ClientOptions{QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(t.Context(), "ns", "here", GetOptions{})
	if err != nil || got.Name != "moved" {
		t.Errorf("Get redirected on the server: %v, %v; want the object it moved to", got, err)
	}
	got, err = c.Get(t.Context(), "ns", "away", GetOptions{})
	if !errors.Is(err, ErrRedirect) || got != nil {
		t.Errorf("Get redirected to another host: %v, %v; want ErrRedirect", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(elsewhere) != 0 {
		t.Errorf("the other host received %d requests (Authorization %q)", len(elsewhere), elsewhere)
	}
	if want := []string{"Bearer s3cret", "Bearer s3cret", "Bearer s3cret"}; !reflect.DeepEqual(auth, want) {
		t.Errorf("the API server received Authorization %q, want %q", auth, want)
	}
}

// TestClientRefusesBeforeSending: calls the server would refuse, or
// answer in a way that reads as something else, are refused as
// ErrInvalidArgument without a request: a Create of an object with a
// resourceVersion (kube-apiserver answers 500, which would read as a
// write of unknown outcome), an Apply without a field manager, a nil
// object, a name that is not a path segment, an unknown patch type.
func TestClientRefusesBeforeSending(t *testing.T) {
	withRV := newWidget("a")
	withRV.ResourceVersion = "5"
	for _, tc := range []struct {
		name string
		call func(ctx context.Context, c *Client[*kubefixture.Widget]) error
	}{
		{"create with a resourceVersion", func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Create(ctx, withRV, WriteOptions{})
			return err
		}},
		{"apply without a field manager", func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Apply(ctx, newWidget("a"), PatchOptions{})
			return err
		}},
		{"update of nil", func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Update(ctx, nil, WriteOptions{})
			return err
		}},
		{"get of a name with a slash", func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Get(ctx, "ns", "a/b", GetOptions{})
			return err
		}},
		{"delete without a name", func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Delete(ctx, "ns", "", DeleteOptions{})
			return err
		}},
		{"unknown patch type", func(ctx context.Context, c *Client[*kubefixture.Widget]) error {
			_, err := c.Patch(ctx, "ns", "a", "application/yaml", []byte("{}"), PatchOptions{})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, sent := recordingClient(t, ClientOptions{})
			if err := tc.call(t.Context(), c); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("%v, want ErrInvalidArgument", err)
			}
			if n := len(sent()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

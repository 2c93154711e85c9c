// Package kubefixture holds the test fixtures that the tests of kube,
// source/kube and internal/kubewire share: a small object type and its
// JSON, Status and watch-event bodies, and a plain REST client for the
// real kube-apiserver of the integration tests. It imports none of them.
// restart.go holds what the warm-restart tests of source/kube and
// typed/builtin share.
package kubefixture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is a small object type of the tests, shaped like a CRD object.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Color string `json:"color"`
	} `json:"spec"`
}

// WidgetJSON returns a Widget object as JSON.
func WidgetJSON(ns, name, rv, color string) string {
	return fmt.Sprintf(`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":%q,"namespace":%q,"resourceVersion":%q,"labels":{"app":"x"}},"spec":{"color":%q}}`, name, ns, rv, color)
}

// ListJSON returns a list of items with the given metadata.
func ListJSON(rv, cont string, items ...string) string {
	return fmt.Sprintf(`{"kind":"WidgetList","apiVersion":"example.com/v1","metadata":{"resourceVersion":%q,"continue":%q},"items":[%s]}`, rv, cont, strings.Join(items, ","))
}

// EventJSON returns one watch event line.
func EventJSON(typ, object string) string {
	return fmt.Sprintf(`{"type":%q,"object":%s}`+"\n", typ, object)
}

// StatusJSON returns a Status body.
func StatusJSON(code int, reason, message string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, message, reason, code)
}

// ConfigMap is a local ConfigMap type: k8s.io/api is not a dependency.
type ConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

// REST sends plain REST requests to the test server.
type REST struct {
	t      testing.TB
	client *http.Client
	host   string
}

// Conn is where a REST client gets its HTTP client: a *kube.Config.
type Conn interface {
	HTTPClient() (*http.Client, error)
}

// NewREST returns a REST client of host through cfg's HTTP client.
func NewREST(t testing.TB, cfg Conn, host string) *REST {
	t.Helper()
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	return &REST{t: t, client: client, host: strings.TrimSuffix(host, "/")}
}

// Do sends method path with body as JSON, decodes the answer into out
// when it is a success, and returns the status code. Safe for concurrent
// use.
func (r *REST) Do(method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.host+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, data)
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(data, out)
	}
	return resp.StatusCode, nil
}

// Must is do that fails the test on an error.
func (r *REST) Must(method, path string, body, out any) {
	r.t.Helper()
	if _, err := r.Do(method, path, body, out); err != nil {
		r.t.Fatal(err)
	}
}

// NSCounter numbers the namespaces and other names the tests create.
var NSCounter atomic.Int32

// Namespace creates a fresh namespace.
func (r *REST) Namespace(prefix string) string {
	r.t.Helper()
	name := fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e6, NSCounter.Add(1))
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": name}}, nil)
	return name
}

// CreateConfigMaps creates n ConfigMaps name-0 ... in ns, 16 at a time.
func (r *REST) CreateConfigMaps(ns, prefix string, n int, labels map[string]string) {
	r.t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cm := ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i), Labels: labels},
				Data: map[string]string{"index": fmt.Sprint(i), "payload": strings.Repeat("p", 200)}}
			if _, err := r.Do("POST", "/api/v1/namespaces/"+ns+"/configmaps", cm, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		r.t.Fatal(err)
	}
}

// CMPath is the path of one ConfigMap.
func CMPath(ns, name string) string { return "/api/v1/namespaces/" + ns + "/configmaps/" + name }

// DecodeJSON decodes a response body.
func DecodeJSON(resp *http.Response, v any) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

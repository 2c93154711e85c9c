// Package kubetest starts a real kube-apiserver + etcd (from
// shared/kube-apiserver beside the repository) for a test binary's
// integration tests, and gives them a client for it.
//
//	func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		env := kubetest.Need(t) // skips unless KUBE_INTEGRATION=1
//		cfg := kubetest.Config(t)
//		...
//	}
package kubetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/kube"
)

// Main starts one kube-apiserver for the test binary when
// KUBE_INTEGRATION=1, runs the tests and stops it (see apiserver.Main).
func Main(m *testing.M) int { return apiserver.Main(m) }

// Need skips t unless the integration tests are on, and returns what the
// start script printed.
func Need(t testing.TB) map[string]string {
	t.Helper()
	return apiserver.Need(t)
}

// Config returns a kube.Config for the server, from its kubeconfig.
func Config(t testing.TB) *kube.Config {
	t.Helper()
	e := Need(t)
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: e["KUBECONFIG"]})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// REST is a minimal client for writing test objects.
type REST struct {
	t      testing.TB
	base   string
	client *http.Client
}

// NewREST returns a REST client of cfg's server.
func NewREST(t testing.TB, cfg *kube.Config) *REST {
	t.Helper()
	c, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return &REST{t: t, base: strings.TrimSuffix(cfg.Host, "/"), client: c}
}

// Close closes the client's idle connections.
func (r *REST) Close() { r.client.CloseIdleConnections() }

// Do sends body (marshalled to JSON unless it is []byte) and returns the
// status code and the response. contentType "" means application/json.
func (r *REST) Do(method, path, contentType string, body any) (int, []byte) {
	r.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			r.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, r.base+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	if contentType == "" {
		contentType = "application/json"
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := r.client.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// Must is Do that fails the test unless the status is 2xx.
func (r *REST) Must(method, path string, body any) []byte {
	r.t.Helper()
	code, data := r.Do(method, path, "", body)
	if code/100 != 2 {
		r.t.Fatalf("%s %s: %d %.300s", method, path, code, data)
	}
	return data
}

// StartConfig starts another kube-apiserver for one test with extra
// environment for its start script (see apiserver.Start), and returns a
// kube.Config for it. It skips t unless the integration tests are on.
func StartConfig(t testing.TB, extraEnv ...string) *kube.Config {
	t.Helper()
	e := apiserver.Start(t, extraEnv...)
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: e["KUBECONFIG"]})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ShardedGate is the start script's environment that turns on
// kube-apiserver's ShardedListAndWatch feature gate (server-side
// shardSelector).
const ShardedGate = "KUBE_APISERVER_EXTRA_ARGS=--feature-gates=ShardedListAndWatch=true"

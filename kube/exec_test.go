package kube

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// plugin is a credential plugin script in a temporary directory. Each run
// appends a line to the count file, saves KUBERNETES_EXEC_INFO, and prints
// out-N.json for run N if it exists, else out.json.
type plugin struct {
	dir   string
	path  string
	count string
	info  string
}

const pluginScript = `
echo run >> "$PLUGIN_DIR/count"
n=$(wc -l < "$PLUGIN_DIR/count" | tr -d ' ')
printf '%s' "$KUBERNETES_EXEC_INFO" > "$PLUGIN_DIR/info.json"
if [ -f "$PLUGIN_DIR/out-$n.json" ]; then cat "$PLUGIN_DIR/out-$n.json"; else cat "$PLUGIN_DIR/out.json"; fi
`

func newPlugin(t *testing.T, script string) *plugin {
	t.Helper()
	dir := t.TempDir()
	if script == "" {
		script = pluginScript
	}
	return &plugin{
		dir:   dir,
		path:  writeScript(t, dir, "plugin", script),
		count: filepath.Join(dir, "count"),
		info:  filepath.Join(dir, "info.json"),
	}
}

// config returns an ExecConfig running the plugin.
func (p *plugin) config(apiVersion string) ExecConfig {
	return ExecConfig{
		Command:         p.path,
		APIVersion:      apiVersion,
		Env:             []ExecEnvVar{{"PLUGIN_DIR", p.dir}},
		InteractiveMode: ExecInteractiveNever,
	}
}

// output sets what run n prints (n == 0: every run without its own file).
func (p *plugin) output(t *testing.T, n int, text string) {
	t.Helper()
	name := "out.json"
	if n > 0 {
		name = "out-" + strconv.Itoa(n) + ".json"
	}
	writeFile(t, p.dir, name, []byte(text))
}

// runs is how often the plugin ran.
func (p *plugin) runs(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(p.count)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// request returns the last KUBERNETES_EXEC_INFO.
func (p *plugin) request(t *testing.T) execCredential {
	t.Helper()
	data, err := os.ReadFile(p.info)
	if err != nil {
		t.Fatal(err)
	}
	var ec execCredential
	if err := json.Unmarshal(data, &ec); err != nil {
		t.Fatalf("KUBERNETES_EXEC_INFO %s: %v", data, err)
	}
	return ec
}

// credJSON is an ExecCredential answer.
func credJSON(apiVersion, status string) string {
	return `{"apiVersion":"` + apiVersion + `","kind":"ExecCredential","status":` + status + `}`
}

func TestExecToken(t *testing.T) {
	for _, v := range []string{ExecAPIVersionV1, ExecAPIVersionV1beta1} {
		t.Run(v, func(t *testing.T) {
			p := newPlugin(t, "")
			p.output(t, 0, credJSON(v, `{"token":"exec-token"}`))
			srv := httptest.NewServer(http.HandlerFunc(echoHandler))
			defer srv.Close()
			x := p.config(v)
			x.Args = []string{"--flag"}
			cfg := &Config{Host: srv.URL, Exec: &x}
			client, err := cfg.HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				s, _, err := getWith(t, client, srv.URL)
				if err != nil {
					t.Fatal(err)
				}
				if s.Authorization != "Bearer exec-token" {
					t.Fatalf("sent %q", s.Authorization)
				}
			}
			if n := p.runs(t); n != 1 {
				t.Errorf("plugin ran %d times, want 1 (no expiry: cached)", n)
			}
			req := p.request(t)
			if req.APIVersion != v || req.Kind != "ExecCredential" || req.Spec.Interactive || req.Spec.Cluster != nil {
				t.Errorf("KUBERNETES_EXEC_INFO = %+v", req)
			}
		})
	}
}

// TestExecExpiry checks on a fake clock (which starts at 2000-01-01 UTC)
// that a credential is used until shortly before its expirationTimestamp.
func TestExecExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPlugin(t, "")
		p.output(t, 1, credJSON(ExecAPIVersionV1, `{"token":"t1","expirationTimestamp":"2000-01-01T00:10:00Z"}`))
		p.output(t, 2, credJSON(ExecAPIVersionV1, `{"token":"t2","expirationTimestamp":"2000-01-01T00:09:58Z"}`))
		p.output(t, 3, credJSON(ExecAPIVersionV1, `{"token":"t3"}`))
		a := newExecAuth(p.config(ExecAPIVersionV1), nil)
		expect := func(wantToken string, wantRuns int) {
			t.Helper()
			c, err := a.credential(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c.token != wantToken || p.runs(t) != wantRuns {
				t.Fatalf("at %s: token %q after %d runs, want %q after %d", time.Now().UTC().Format(time.TimeOnly), c.token, p.runs(t), wantToken, wantRuns)
			}
		}
		expect("t1", 1)
		time.Sleep(9*time.Minute + 49*time.Second) // 00:09:49
		expect("t1", 1)
		time.Sleep(time.Second) // 00:09:50: 10 s before the expiry
		expect("t2", 2)
		// t2 came with less than 10 s left: it is used until it expires.
		time.Sleep(7 * time.Second) // 00:09:57
		expect("t2", 2)
		time.Sleep(time.Second) // 00:09:58
		expect("t3", 3)
		time.Sleep(24 * time.Hour) // no expiry: kept
		expect("t3", 3)
	})
}

// TestExecRefreshAfter401 checks that a 401 makes the next request run the
// plugin again.
func TestExecRefreshAfter401(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		echoHandler(w, r)
	}))
	defer srv.Close()
	p := newPlugin(t, "")
	p.output(t, 1, credJSON(ExecAPIVersionV1, `{"token":"revoked","expirationTimestamp":"2999-01-01T00:00:00Z"}`))
	p.output(t, 2, credJSON(ExecAPIVersionV1, `{"token":"good"}`))
	x := p.config(ExecAPIVersionV1)
	client, err := (&Config{Host: srv.URL, Exec: &x}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	wantCodes := []int{http.StatusUnauthorized, http.StatusOK, http.StatusOK}
	for i, want := range wantCodes {
		if _, code, err := getWith(t, client, srv.URL); err != nil || code != want {
			t.Fatalf("request %d: %d %v, want %d", i, code, err, want)
		}
	}
	if n := p.runs(t); n != 2 {
		t.Errorf("plugin ran %d times, want 2", n)
	}
}

// TestExecConcurrent checks that concurrent requests share one run.
func TestExecConcurrent(t *testing.T) {
	p := newPlugin(t, "")
	p.output(t, 0, credJSON(ExecAPIVersionV1, `{"token":"shared"}`))
	a := newExecAuth(p.config(ExecAPIVersionV1), nil)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for range 20 {
		wg.Go(func() {
			if c, err := a.credential(context.Background()); err != nil || c.token != "shared" {
				bad.Add(1)
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 || p.runs(t) != 1 {
		t.Errorf("%d failures, %d runs; want 0 and 1", bad.Load(), p.runs(t))
	}
}

// TestExecInvalidateStale checks that a 401 for an old credential does not
// drop a newer one.
func TestExecInvalidateStale(t *testing.T) {
	p := newPlugin(t, "")
	p.output(t, 0, credJSON(ExecAPIVersionV1, `{"token":"t"}`))
	a := newExecAuth(p.config(ExecAPIVersionV1), nil)
	c1, err := a.credential(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a.invalidate(c1.gen)
	c2, _ := a.credential(context.Background())
	a.invalidate(c1.gen) // stale
	c3, _ := a.credential(context.Background())
	if c2 != c3 || p.runs(t) != 2 {
		t.Errorf("runs %d, want 2; a stale 401 must keep the newer credential", p.runs(t))
	}
}

func TestExecClientCertificate(t *testing.T) {
	pki := newTestPKI(t)
	cert1, key1 := pki.issue(t, certSpec{cn: "exec-one", client: true})
	cert2, key2 := pki.issue(t, certSpec{cn: "exec-two", client: true})
	var rejectOne atomic.Bool
	srv := newTLSServer(t, pki, certSpec{}, tls.RequireAndVerifyClientCert, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rejectOne.Load() && r.TLS.PeerCertificates[0].Subject.CommonName == "exec-one" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		echoHandler(w, r)
	}))
	status := func(cert, key []byte) string {
		b, _ := json.Marshal(map[string]string{"clientCertificateData": string(cert), "clientKeyData": string(key)})
		return string(b)
	}
	p := newPlugin(t, "")
	p.output(t, 1, credJSON(ExecAPIVersionV1beta1, status(cert1, key1)))
	p.output(t, 2, credJSON(ExecAPIVersionV1beta1, status(cert2, key2)))
	x := p.config(ExecAPIVersionV1beta1)
	client, err := (&Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.pem}, Exec: &x}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := getWith(t, client, srv.URL)
	if err != nil || s.ClientCN != "exec-one" || s.Authorization != "" || s.Proto != "HTTP/2.0" {
		t.Fatalf("got %+v, %v", s, err)
	}
	rejectOne.Store(true)
	if _, code, err := getWith(t, client, srv.URL); err != nil || code != http.StatusUnauthorized {
		t.Fatalf("got %d, %v; want 401", code, err)
	}
	// The plugin runs again, its certificate differs, the old HTTP/2
	// connection is closed and a new one presents the new certificate.
	s, _, err = getWith(t, client, srv.URL)
	if err != nil || s.ClientCN != "exec-two" {
		t.Fatalf("after the 401 got %+v, %v", s, err)
	}
}

func TestExecInteractive(t *testing.T) {
	tests := []struct {
		mode     ExecInteractiveMode
		terminal bool
		want     bool
		err      error
	}{
		{ExecInteractiveNever, true, false, nil},
		{ExecInteractiveIfAvailable, false, false, nil},
		{ExecInteractiveIfAvailable, true, true, nil},
		{"", true, true, nil},
		{ExecInteractiveAlways, true, true, nil},
		{ExecInteractiveAlways, false, false, ErrExecInteractive},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+"/terminal="+map[bool]string{true: "yes", false: "no"}[tt.terminal], func(t *testing.T) {
			p := newPlugin(t, "")
			p.output(t, 0, credJSON(ExecAPIVersionV1, `{"token":"t"}`))
			x := p.config(ExecAPIVersionV1)
			x.InteractiveMode = tt.mode
			a := newExecAuth(x, nil)
			a.isTerminal = func() bool { return tt.terminal }
			_, err := a.credential(context.Background())
			if tt.err != nil {
				if !errors.Is(err, tt.err) || p.runs(t) != 0 {
					t.Fatalf("got %v after %d runs, want %v before any run", err, p.runs(t), tt.err)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.request(t).Spec.Interactive; got != tt.want {
				t.Errorf("spec.interactive = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExecProvideClusterInfo(t *testing.T) {
	pki := newTestPKI(t)
	srv := newTLSServer(t, pki, certSpec{dns: []string{"k.test"}}, tls.NoClientCert, http.HandlerFunc(echoHandler))
	p := newPlugin(t, "")
	p.output(t, 0, credJSON(ExecAPIVersionV1, `{"token":"t"}`))
	x := p.config(ExecAPIVersionV1)
	x.ProvideClusterInfo = true
	x.ClusterConfig = json.RawMessage(`{"audience":"a"}`)
	cfg := &Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.pem, ServerName: "k.test"}, Exec: &x}
	if s, _, err := get(t, cfg, srv.URL); err != nil || s.Authorization != "Bearer t" {
		t.Fatalf("got %+v, %v", s, err)
	}
	got := p.request(t).Spec.Cluster
	if got == nil || got.Server != srv.URL || string(got.CertificateAuthorityData) != string(pki.pem) ||
		got.TLSServerName != "k.test" || string(got.Config) != `{"audience":"a"}` {
		t.Errorf("spec.cluster = %+v", got)
	}
}

// TestExecErrors checks each failure of a plugin: the error kind, what the
// message says, and that it never quotes standard output.
func TestExecErrors(t *testing.T) {
	const secret = "SUPERSECRET"
	tests := []struct {
		name       string
		script     string // "" means the default plugin script
		output     string // its output
		command    string // instead of the script
		hint       string
		apiVersion string
		timeout    time.Duration
		want       error
		wantText   []string
	}{
		{name: "missing binary in PATH", command: "no-such-kube-plugin", hint: "brew install no-such-kube-plugin",
			want: ErrExecNotFound, wantText: []string{"no-such-kube-plugin", "brew install no-such-kube-plugin"}},
		{name: "missing binary path", command: "/nonexistent/dir/plugin", want: ErrExecNotFound},
		{name: "junk output", output: "token=" + secret + "\n", want: ErrExecBadOutput, wantText: []string{"not JSON"}},
		{name: "empty output", output: "", want: ErrExecBadOutput, wantText: []string{"empty"}},
		{name: "truncated JSON", output: `{"apiVersion":"client.authentication.k8s.io/v1","status":{"token":"` + secret, want: ErrExecBadOutput, wantText: []string{"truncated"}},
		{name: "trailing junk", output: credJSON(ExecAPIVersionV1, `{"token":"`+secret+`"}`) + " " + secret, want: ErrExecBadOutput, wantText: []string{"after the ExecCredential"}},
		{name: "wrong apiVersion", output: credJSON(ExecAPIVersionV1beta1, `{"token":"`+secret+`"}`), want: ErrExecBadOutput, wantText: []string{ExecAPIVersionV1beta1, "want"}},
		{name: "wrong kind", output: `{"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod","status":{"token":"` + secret + `"}}`, want: ErrExecBadOutput, wantText: []string{`"Pod"`}},
		{name: "no status", output: `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}`, want: ErrExecBadOutput, wantText: []string{"no status"}},
		{name: "empty status", output: credJSON(ExecAPIVersionV1, `{}`), want: ErrExecBadOutput, wantText: []string{"neither a token nor"}},
		{name: "token of the wrong type", output: credJSON(ExecAPIVersionV1, `{"token":12345}`), want: ErrExecBadOutput, wantText: []string{"status.token"}},
		{name: "certificate without key", output: credJSON(ExecAPIVersionV1, `{"clientCertificateData":"`+secret+`"}`), want: ErrExecBadOutput, wantText: []string{"together"}},
		{name: "bad certificate", output: credJSON(ExecAPIVersionV1, `{"clientCertificateData":"x`+secret+`","clientKeyData":"`+secret+`"}`), want: ErrExecBadOutput},
		{name: "bad expiry", output: credJSON(ExecAPIVersionV1, `{"token":"t","expirationTimestamp":"tomorrow"}`), want: ErrExecBadOutput},
		{name: "non-zero exit", script: "echo " + secret + "\necho 'error: could not refresh the session' >&2\nexit 3\n",
			want: ErrExecFailed, wantText: []string{"exited with status 3", "could not refresh the session"}},
		{name: "long stderr is truncated", script: "i=0\nwhile [ $i -lt 300 ]; do echo 'a line of noise' >&2; i=$((i+1)); done\necho 'the last words' >&2\nexit 1\n",
			want: ErrExecFailed, wantText: []string{"...", "the last words"}},
		{name: "hanging plugin", script: "echo 'waiting for the user' >&2\nsleep 60\necho never\n", timeout: 300 * time.Millisecond,
			want: ErrExecTimeout, wantText: []string{"killed after 300ms", "waiting for the user"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlugin(t, tt.script)
			p.output(t, 0, tt.output)
			if tt.apiVersion == "" {
				tt.apiVersion = ExecAPIVersionV1
			}
			x := p.config(tt.apiVersion)
			x.InstallHint = tt.hint
			x.Timeout = tt.timeout
			if tt.command != "" {
				x.Command = tt.command
			}
			start := time.Now()
			_, err := newExecAuth(x, nil).credential(context.Background())
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			var ee *ExecError
			if !errors.As(err, &ee) {
				t.Fatalf("%T is not an *ExecError", err)
			}
			msg := err.Error()
			for _, w := range tt.wantText {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, secret) {
				t.Errorf("error %q quotes the plugin's output", msg)
			}
			if len(ee.Stderr) > maxStderr+3 {
				t.Errorf("stderr of %d bytes kept", len(ee.Stderr))
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			t.Log(msg)
		})
	}
}

// TestExecErrorThroughClient checks that a plugin's failure reaches the
// caller of http.Client.Do, still matchable.
func TestExecErrorThroughClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer srv.Close()
	p := newPlugin(t, "exit 7\n")
	x := p.config(ExecAPIVersionV1)
	_, _, err := get(t, &Config{Host: srv.URL, Exec: &x}, srv.URL)
	var ee *ExecError
	if !errors.Is(err, ErrExecFailed) || !errors.As(err, &ee) || ee.ExitCode != 7 {
		t.Fatalf("got %v", err)
	}
}

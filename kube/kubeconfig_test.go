package kube

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// A kubeconfig with most fields, used by several cases.
const fullKubeconfig = `apiVersion: v1
kind: Config
current-context: dev
preferences: {}
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443
    certificate-authority: certs/ca.pem
    tls-server-name: api.dev.example
    proxy-url: socks5://proxy.example:1080
    disable-compression: true
- name: prod-cluster
  cluster:
    server: https://prod.example
    certificate-authority-data: ` + "Q0EtREFUQQ==" + `
    certificate-authority: ignored.pem
- name: insecure-cluster
  cluster:
    server: prod.example:8443
    insecure-skip-tls-verify: true
users:
- name: token-user
  user:
    token: t0ken
- name: file-user
  user:
    tokenFile: secrets/token
    client-certificate: /abs/client.crt
    client-key: client.key
- name: data-user
  user:
    client-certificate-data: ` + "Q0VSVA==" + `
    client-key-data: ` + "S0VZ" + `
    client-certificate: ignored.crt
- name: basic-user
  user:
    username: alice
    password: pw
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/get-token
      args: [--cluster, dev]
      env:
      - name: FOO
        value: bar
      installHint: install get-token
      provideClusterInfo: true
      interactiveMode: Never
- name: path-exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: gke-gcloud-auth-plugin
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: token-user
- name: prod
  context:
    cluster: prod-cluster
    user: data-user
    namespace: prod-ns
- name: files
  context:
    cluster: dev-cluster
    user: file-user
    namespace: team
- name: basic
  context: {cluster: insecure-cluster, user: basic-user}
- name: exec
  context: {cluster: dev-cluster, user: exec-user}
- name: path-exec
  context: {cluster: dev-cluster, user: path-exec-user}
- name: anonymous
  context: {cluster: prod-cluster}
`

func TestLoadKubeconfig(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "config", []byte(fullKubeconfig))
	tests := []struct {
		name string
		opts LoadOptions
		want Config
	}{
		{
			name: "current context, token, relative CA, default namespace",
			want: Config{
				Host: "https://dev.example:6443", Namespace: "default",
				TLS:         TLSConfig{CAFile: filepath.Join(dir, "certs/ca.pem"), ServerName: "api.dev.example"},
				BearerToken: "t0ken", ProxyURL: "socks5://proxy.example:1080", DisableCompression: true,
			},
		},
		{
			name: "named context, -data fields win over files, namespace",
			opts: LoadOptions{Context: "prod"},
			want: Config{
				Host: "https://prod.example", Namespace: "prod-ns",
				TLS: TLSConfig{CAData: []byte("CA-DATA"), CertData: []byte("CERT"), KeyData: []byte("KEY")},
			},
		},
		{
			name: "relative token file and key, absolute certificate",
			opts: LoadOptions{Context: "files"},
			want: Config{
				Host: "https://dev.example:6443", Namespace: "team",
				TLS: TLSConfig{
					CAFile: filepath.Join(dir, "certs/ca.pem"), ServerName: "api.dev.example",
					CertFile: "/abs/client.crt", KeyFile: filepath.Join(dir, "client.key"),
				},
				BearerTokenFile: filepath.Join(dir, "secrets/token"),
				ProxyURL:        "socks5://proxy.example:1080", DisableCompression: true,
			},
		},
		{
			name: "basic auth, insecure, server without scheme",
			opts: LoadOptions{Context: "basic"},
			want: Config{
				Host: "https://prod.example:8443", Namespace: "default",
				TLS:      TLSConfig{Insecure: true},
				Username: "alice", Password: "pw",
			},
		},
		{
			name: "exec plugin with a relative command",
			opts: LoadOptions{Context: "exec"},
			want: Config{
				Host: "https://dev.example:6443", Namespace: "default",
				TLS:      TLSConfig{CAFile: filepath.Join(dir, "certs/ca.pem"), ServerName: "api.dev.example"},
				ProxyURL: "socks5://proxy.example:1080", DisableCompression: true,
				Exec: &ExecConfig{
					Command: filepath.Join(dir, "bin/get-token"), Args: []string{"--cluster", "dev"},
					Env: []ExecEnvVar{{"FOO", "bar"}}, APIVersion: ExecAPIVersionV1beta1,
					InstallHint: "install get-token", InteractiveMode: ExecInteractiveNever, ProvideClusterInfo: true,
				},
			},
		},
		{
			name: "exec plugin found in PATH",
			opts: LoadOptions{Context: "path-exec"},
			want: Config{
				Host: "https://dev.example:6443", Namespace: "default",
				TLS:      TLSConfig{CAFile: filepath.Join(dir, "certs/ca.pem"), ServerName: "api.dev.example"},
				ProxyURL: "socks5://proxy.example:1080", DisableCompression: true,
				Exec: &ExecConfig{Command: "gke-gcloud-auth-plugin", APIVersion: ExecAPIVersionV1},
			},
		},
		{
			name: "no user",
			opts: LoadOptions{Context: "anonymous"},
			want: Config{Host: "https://prod.example", Namespace: "default", TLS: TLSConfig{CAData: []byte("CA-DATA")}},
		},
		{
			name: "cluster, user and namespace overrides",
			opts: LoadOptions{Context: "dev", Cluster: "prod-cluster", User: "basic-user", Namespace: "other"},
			want: Config{
				Host: "https://prod.example", Namespace: "other",
				TLS:      TLSConfig{CAData: []byte("CA-DATA")},
				Username: "alice", Password: "pw",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.ExplicitPath = path
			got, err := LoadKubeconfig(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %s\nwant %s", dump(*got), dump(tt.want))
			}
		})
	}
}

// dump shows every field of a Config, secrets included: for test failures.
func dump(c Config) string {
	type plainConfig Config
	type plainTLS TLSConfig
	type plainExec ExecConfig
	s := fmtPlain(plainConfig(c)) + " TLS:" + fmtPlain(plainTLS(c.TLS))
	if c.Exec != nil {
		s += " Exec:" + fmtPlain(plainExec(*c.Exec))
	}
	return s
}

func TestLoadKubeconfigJSON(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "config.json", []byte(`{"current-context":"c","clusters":[{"name":"k","cluster":{"server":"https://k"}}],
		"contexts":[{"name":"c","context":{"cluster":"k","namespace":"ns"}}]}`))
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://k" || cfg.Namespace != "ns" {
		t.Errorf("got %s", cfg)
	}
}

// TestKubeconfigMerge checks kubectl's precedence across $KUBECONFIG files:
// the first file to define a name wins, and so does the first to set
// current-context; missing files and empty entries are skipped.
func TestKubeconfigMerge(t *testing.T) {
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	a := writeFile(t, dirA, "a.yaml", []byte(`
clusters:
- name: shared
  cluster: {server: https://a.example, certificate-authority: ca-a.pem}
users:
- name: u
  user: {token: token-a}
contexts:
- name: ctx-a
  context: {cluster: shared, user: u, namespace: from-a}
`))
	b := writeFile(t, dirB, "b.yaml", []byte(`
current-context: ctx-b
clusters:
- name: shared
  cluster: {server: https://b.example}
- name: only-b
  cluster: {server: https://only-b.example, certificate-authority: ca-b.pem}
users:
- name: u
  user: {token: token-b}
- name: ub
  user: {tokenFile: tok-b}
contexts:
- name: ctx-a
  context: {cluster: only-b, user: ub}
- name: ctx-b
  context: {cluster: only-b, user: u}
`))
	c := writeFile(t, dirC, "c.yaml", []byte(`
current-context: ctx-a
contexts:
- name: ctx-c
  context: {cluster: shared, user: ub}
`))
	missing := filepath.Join(dirA, "missing.yaml")
	sep := string(os.PathListSeparator)
	tests := []struct {
		name       string
		kubeconfig string
		context    string
		host, ns   string
		caFile     string
		token      string
		tokenFile  string
	}{
		{"current-context from the first file that sets it (b), user u from a", a + sep + b + sep + c, "",
			"https://only-b.example", "default", filepath.Join(dirB, "ca-b.pem"), "token-a", ""},
		{"c first: its current-context wins; ctx-a from a, cluster shared from a", c + sep + a + sep + b, "",
			"https://a.example", "from-a", filepath.Join(dirA, "ca-a.pem"), "token-a", ""},
		{"b first: context ctx-a from b", b + sep + a, "ctx-a",
			"https://only-b.example", "default", filepath.Join(dirB, "ca-b.pem"), "", filepath.Join(dirB, "tok-b")},
		{"paths resolve against the file that defined the entry", c + sep + a + sep + b, "ctx-c",
			"https://a.example", "default", filepath.Join(dirA, "ca-a.pem"), "", filepath.Join(dirB, "tok-b")},
		{"missing files and empty entries are skipped", sep + missing + sep + a + sep + sep + b, "",
			"https://only-b.example", "default", filepath.Join(dirB, "ca-b.pem"), "token-a", ""},
		{"a file listed twice counts once", a + sep + a + sep + b, "ctx-a",
			"https://a.example", "from-a", filepath.Join(dirA, "ca-a.pem"), "token-a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.kubeconfig)
			cfg, err := LoadKubeconfig(LoadOptions{Context: tt.context})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.host || cfg.Namespace != tt.ns || cfg.TLS.CAFile != tt.caFile ||
				cfg.BearerToken != tt.token || cfg.BearerTokenFile != tt.tokenFile {
				t.Errorf("got host %q ns %q ca %q token %q tokenFile %q\nwant host %q ns %q ca %q token %q tokenFile %q",
					cfg.Host, cfg.Namespace, cfg.TLS.CAFile, cfg.BearerToken, cfg.BearerTokenFile,
					tt.host, tt.ns, tt.caFile, tt.token, tt.tokenFile)
			}
		})
	}
}

func TestKubeconfigHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	_, err := LoadKubeconfig(LoadOptions{})
	if !errors.Is(err, ErrNoKubeconfig) {
		t.Fatalf("without ~/.kube/config: got %v, want ErrNoKubeconfig", err)
	}
	writeFile(t, home, ".kube/config", []byte(`
current-context: c
clusters: [{name: k, cluster: {server: "https://home.example", certificate-authority: ca.pem}}]
contexts: [{name: c, context: {cluster: k}}]
`))
	cfg, err := LoadKubeconfig(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://home.example" || cfg.TLS.CAFile != filepath.Join(home, ".kube", "ca.pem") {
		t.Errorf("got %s", cfg)
	}
}

func TestKubeconfigErrors(t *testing.T) {
	dir := t.TempDir()
	const base = `
clusters:
- name: k
  cluster: {server: "https://k.example"}
users:
- name: u
  user: {token: t}
`
	tests := []struct {
		name    string
		content string // "" with missing: no file
		missing bool
		context string
		want    []error
		msg     string // a part of the message
	}{
		{name: "missing file", missing: true, want: []error{ErrNoKubeconfig, fs.ErrNotExist}},
		{name: "malformed YAML", content: "clusters: [\n  - name: k\n  cluster: {", want: []error{ErrMalformedKubeconfig}},
		{name: "YAML of the wrong shape", content: "clusters: {name: k}", want: []error{ErrMalformedKubeconfig}},
		{name: "wrong field type", content: "clusters: [{name: k, cluster: {server: [1, 2]}}]", want: []error{ErrMalformedKubeconfig}},
		{name: "duplicate cluster", content: base + "- name: u\n  user: {token: x}\n", want: []error{ErrMalformedKubeconfig}, msg: `user "u" is defined twice`},
		{name: "empty file: no context", content: "", want: []error{ErrNoContext}},
		{name: "no current-context", content: base + "contexts: [{name: c, context: {cluster: k}}]", want: []error{ErrNoContext}},
		{name: "unknown context", content: base + "current-context: nope\ncontexts: [{name: c, context: {cluster: k}}]", want: []error{ErrContextNotFound}, msg: `"nope"`},
		{name: "unknown named context", content: base + "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]", context: "other", want: []error{ErrContextNotFound}},
		{name: "unknown cluster", content: base + "current-context: c\ncontexts: [{name: c, context: {cluster: x, user: u}}]", want: []error{ErrClusterNotFound}, msg: `"x"`},
		{name: "context without cluster", content: base + "current-context: c\ncontexts: [{name: c, context: {user: u}}]", want: []error{ErrClusterNotFound}},
		{name: "unknown user", content: base + "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: x}}]", want: []error{ErrUserNotFound}, msg: `"x"`},
		{name: "missing server", content: "current-context: c\nclusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]\ncontexts: [{name: c, context: {cluster: k}}]", want: []error{ErrNoServer}},
		{name: "bad base64 CA", content: "current-context: c\nclusters: [{name: k, cluster: {server: https://k, certificate-authority-data: 'not base64!'}}]\ncontexts: [{name: c, context: {cluster: k}}]", want: []error{ErrBadBase64}, msg: "certificate-authority-data"},
		{name: "bad base64 key", content: base + "- name: v\n  user: {client-certificate-data: Q0VSVA==, client-key-data: '%%%'}\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: v}}]", want: []error{ErrBadBase64}, msg: "client-key-data"},
		{name: "certificate without key", content: base + "- name: v\n  user: {client-certificate: c.crt}\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: v}}]", want: []error{ErrInvalidConfig}},
		{name: "two kinds of credentials", content: base + "- name: v\n  user: {token: t, username: a, password: b}\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: v}}]", want: []error{ErrInvalidConfig}},
		{name: "CA with insecure", content: "current-context: c\nclusters: [{name: k, cluster: {server: https://k, insecure-skip-tls-verify: true, certificate-authority: ca.pem}}]\ncontexts: [{name: c, context: {cluster: k}}]", want: []error{ErrInvalidConfig}},
		{name: "auth-provider", content: base + "- name: v\n  user: {auth-provider: {name: oidc}}\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: v}}]", want: []error{ErrInvalidConfig}, msg: "oidc"},
		{name: "exec without apiVersion", content: base + "- name: v\n  user: {exec: {command: x}}\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: v}}]", want: []error{ErrInvalidConfig}, msg: "apiVersion"},
		{name: "exec bad interactiveMode", content: base + "- name: v\n  user: {exec: {command: x, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Sometimes}}\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: v}}]", want: []error{ErrInvalidConfig}},
		{name: "bad proxy-url", content: "current-context: c\nclusters: [{name: k, cluster: {server: https://k, proxy-url: 'ftp://p'}}]\ncontexts: [{name: c, context: {cluster: k}}]", want: []error{ErrInvalidConfig}},
		{name: "bad server URL", content: "current-context: c\nclusters: [{name: k, cluster: {server: 'https://a b:x'}}]\ncontexts: [{name: c, context: {cluster: k}}]", want: []error{ErrInvalidConfig}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "config-"+string(rune('a'+i)))
			if !tt.missing {
				writeFile(t, dir, filepath.Base(path), []byte(tt.content))
			}
			cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: path, Context: tt.context})
			if err == nil {
				t.Fatalf("got %s, want an error", cfg)
			}
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("error %q does not match %v", err, w)
				}
			}
			var ke *KubeconfigError
			if !errors.As(err, &ke) || ke.Path != path {
				t.Errorf("error %q is not a *KubeconfigError for %s", err, path)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q should name the file and contain %q", err, tt.msg)
			}
			t.Logf("%v", err)
		})
	}
}

func TestKubeconfigNoFilesInList(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBECONFIG", filepath.Join(dir, "a")+string(os.PathListSeparator)+filepath.Join(dir, "b"))
	_, err := LoadKubeconfig(LoadOptions{})
	if !errors.Is(err, ErrNoKubeconfig) {
		t.Fatalf("got %v, want ErrNoKubeconfig", err)
	}
}

// TestKubeconfigExecClusterExtension checks that the cluster's exec
// extension reaches the ExecConfig.
func TestKubeconfigExecClusterExtension(t *testing.T) {
	path := writeFile(t, t.TempDir(), "config", []byte(`
current-context: c
clusters:
- name: k
  cluster:
    server: https://k
    extensions:
    - name: other
      extension: {a: 1}
    - name: client.authentication.k8s.io/exec
      extension: {audience: foo}
users:
- name: u
  user: {exec: {command: p, apiVersion: client.authentication.k8s.io/v1, provideClusterInfo: true}}
contexts: [{name: c, context: {cluster: k, user: u}}]
`))
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(cfg.Exec.ClusterConfig); got != `{"audience":"foo"}` {
		t.Errorf("ClusterConfig = %s", got)
	}
}

// TestKubeconfigRelativePathOfFile checks that paths in a kubeconfig named
// by a relative path become absolute.
func TestKubeconfigRelativePathOfFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "sub/config", []byte(`
current-context: c
clusters: [{name: k, cluster: {server: "https://k", certificate-authority: ca.pem}}]
contexts: [{name: c, context: {cluster: k}}]
`))
	t.Chdir(dir)
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: filepath.Join("sub", "config")})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "sub", "ca.pem"); cfg.TLS.CAFile != want {
		t.Errorf("CAFile = %q, want %q", cfg.TLS.CAFile, want)
	}
}

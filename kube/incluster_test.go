package kube

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// useServiceAccountDir points InClusterConfig at dir for one test.
func useServiceAccountDir(t *testing.T, dir string) {
	t.Helper()
	old := serviceAccountDir
	serviceAccountDir = dir
	t.Cleanup(func() { serviceAccountDir = old })
}

func TestInClusterConfig(t *testing.T) {
	tests := []struct {
		name         string
		host, port   string
		podNamespace string
		files        map[string]string
		wantHost     string
		wantNS       string
		wantErr      error
	}{
		{name: "IPv4", host: "10.0.0.1", port: "443", files: map[string]string{"token": "tok\n", "ca.crt": "CA", "namespace": "kube-system\n"},
			wantHost: "https://10.0.0.1:443", wantNS: "kube-system"},
		{name: "IPv6", host: "fd00::1", port: "6443", files: map[string]string{"token": "tok", "ca.crt": "CA"},
			wantHost: "https://[fd00::1]:6443", wantNS: "default"},
		{name: "POD_NAMESPACE wins", host: "10.0.0.1", port: "443", podNamespace: "from-env", files: map[string]string{"token": "tok", "ca.crt": "CA", "namespace": "from-file"},
			wantHost: "https://10.0.0.1:443", wantNS: "from-env"},
		{name: "no host", port: "443", files: map[string]string{"token": "tok", "ca.crt": "CA"}, wantErr: ErrNotInCluster},
		{name: "no port", host: "10.0.0.1", files: map[string]string{"token": "tok", "ca.crt": "CA"}, wantErr: ErrNotInCluster},
		{name: "no token", host: "10.0.0.1", port: "443", files: map[string]string{"ca.crt": "CA"}, wantErr: os.ErrNotExist},
		{name: "empty token", host: "10.0.0.1", port: "443", files: map[string]string{"token": "\n", "ca.crt": "CA"}, wantErr: errAny},
		{name: "no CA", host: "10.0.0.1", port: "443", files: map[string]string{"token": "tok"}, wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, dir, name, []byte(content))
			}
			useServiceAccountDir(t, dir)
			t.Setenv("KUBERNETES_SERVICE_HOST", tt.host)
			t.Setenv("KUBERNETES_SERVICE_PORT", tt.port)
			t.Setenv("POD_NAMESPACE", tt.podNamespace)
			cfg, err := InClusterConfig()
			if tt.wantErr != nil {
				if err == nil || (tt.wantErr != errAny && !errors.Is(err, tt.wantErr)) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Config{Host: tt.wantHost, Namespace: tt.wantNS, TLS: TLSConfig{CAFile: filepath.Join(dir, "ca.crt")},
				BearerTokenFile: filepath.Join(dir, "token")}
			if dump(*cfg) != dump(want) {
				t.Errorf("got  %s\nwant %s", dump(*cfg), dump(want))
			}
		})
	}
}

// TestInClusterRequests runs an in-cluster Config against a TLS server and
// rotates the token as the kubelet does.
func TestInClusterRequests(t *testing.T) {
	pki := newTestPKI(t)
	srv := newTLSServer(t, pki, certSpec{}, tls.NoClientCert, http.HandlerFunc(echoHandler))
	u, _ := url.Parse(srv.URL)
	host, port, _ := net.SplitHostPort(u.Host)
	dir := t.TempDir()
	writeFile(t, dir, "token", []byte("sa-token-1"))
	writeFile(t, dir, "ca.crt", pki.pem)
	useServiceAccountDir(t, dir)
	t.Setenv("KUBERNETES_SERVICE_HOST", host)
	t.Setenv("KUBERNETES_SERVICE_PORT", port)
	cfg, err := InClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	if s, _, err := getWith(t, client, cfg.Host+"/api"); err != nil || s.Authorization != "Bearer sa-token-1" {
		t.Fatalf("got %+v, %v", s, err)
	}
	writeFile(t, dir, "token", []byte("sa-token-rotated"))
	if s, _, err := getWith(t, client, cfg.Host+"/api"); err != nil || s.Authorization != "Bearer sa-token-rotated" {
		t.Fatalf("after rotation got %+v, %v", s, err)
	}
}

// TestLoad checks the choice between in-cluster and kubeconfig.
func TestLoad(t *testing.T) {
	saDir := t.TempDir()
	writeFile(t, saDir, "token", []byte("tok"))
	writeFile(t, saDir, "ca.crt", []byte("CA"))
	writeFile(t, saDir, "namespace", []byte("pod-ns"))
	useServiceAccountDir(t, saDir)
	home := t.TempDir()
	writeFile(t, home, ".kube/config", []byte(`
current-context: home
clusters: [{name: k, cluster: {server: "https://home.example"}}, {name: o, cluster: {server: "https://other.example"}}]
contexts: [{name: home, context: {cluster: k}}, {name: other, context: {cluster: o, namespace: o-ns}}]
`))
	envFile := writeFile(t, t.TempDir(), "config", []byte(`
current-context: env
clusters: [{name: k, cluster: {server: "https://env.example"}}]
contexts: [{name: env, context: {cluster: k}}]
`))
	tests := []struct {
		name       string
		inCluster  bool
		kubeconfig string
		opts       LoadOptions
		wantHost   string
		wantNS     string
	}{
		{name: "outside a cluster: ~/.kube/config", wantHost: "https://home.example", wantNS: "default"},
		{name: "outside a cluster: $KUBECONFIG", kubeconfig: envFile, wantHost: "https://env.example", wantNS: "default"},
		{name: "in a cluster", inCluster: true, wantHost: "https://10.0.0.1:443", wantNS: "pod-ns"},
		{name: "in a cluster, namespace option", inCluster: true, opts: LoadOptions{Namespace: "mine"}, wantHost: "https://10.0.0.1:443", wantNS: "mine"},
		{name: "in a cluster with $KUBECONFIG", inCluster: true, kubeconfig: envFile, wantHost: "https://env.example", wantNS: "default"},
		{name: "in a cluster, explicit path", inCluster: true, opts: LoadOptions{ExplicitPath: envFile}, wantHost: "https://env.example", wantNS: "default"},
		{name: "in a cluster, context asked for", inCluster: true, opts: LoadOptions{Context: "other"}, wantHost: "https://other.example", wantNS: "o-ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv("KUBECONFIG", tt.kubeconfig)
			t.Setenv("POD_NAMESPACE", "")
			host, port := "", ""
			if tt.inCluster {
				host, port = "10.0.0.1", "443"
			}
			t.Setenv("KUBERNETES_SERVICE_HOST", host)
			t.Setenv("KUBERNETES_SERVICE_PORT", port)
			cfg, err := Load(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost || cfg.Namespace != tt.wantNS {
				t.Errorf("got %s, want host %s namespace %s", cfg, tt.wantHost, tt.wantNS)
			}
			if tt.opts == (LoadOptions{}) {
				d, err := Default()
				if err != nil || d.Host != cfg.Host {
					t.Errorf("Default() = %v, %v; want the same as Load", d, err)
				}
			}
		})
	}
}

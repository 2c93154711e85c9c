package kube

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/informer-go/informer/internal/apiserver"
)

func TestMain(m *testing.M) { os.Exit(apiserver.Main(m)) }

// needKube skips t unless the integration tests are on (KUBE_INTEGRATION=1
// and a server started by apiserver.Main), and returns what its start
// script printed.
func needKube(t *testing.T) map[string]string {
	t.Helper()
	return apiserver.Need(t)
}

// listNamespaces GETs /api/v1/namespaces with cfg's client and returns the
// status code and protocol.
func listNamespaces(t *testing.T, cfg *Config) (int, string) {
	t.Helper()
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatalf("HTTPClient: %v", err)
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), "GET", strings.TrimSuffix(cfg.Host, "/")+"/api/v1/namespaces", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET /api/v1/namespaces: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		var list struct {
			Kind  string `json:"kind"`
			Items []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"items"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || list.Kind != "NamespaceList" || len(list.Items) == 0 {
			t.Errorf("body: kind %q, %d items, %v", list.Kind, len(list.Items), err)
		}
	}
	return resp.StatusCode, resp.Proto
}

// TestIntegrationKubeconfigContexts loads each context of the server's
// kubeconfig and lists namespaces.
func TestIntegrationKubeconfigContexts(t *testing.T) {
	env := needKube(t)
	tests := []struct {
		context string
		want    int
	}{
		{"informer-test", http.StatusOK},
		{"informer-test-cert", http.StatusOK},
		{"informer-test-unprivileged", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.context, func(t *testing.T) {
			cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: env["KUBECONFIG"], Context: tt.context})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s", cfg)
			code, proto := listNamespaces(t, cfg)
			if code != tt.want || proto != "HTTP/2.0" {
				t.Errorf("got %d over %s, want %d over HTTP/2.0", code, proto, tt.want)
			}
		})
	}
}

// TestIntegrationDefault loads the current context through $KUBECONFIG.
func TestIntegrationDefault(t *testing.T) {
	env := needKube(t)
	t.Setenv("KUBECONFIG", env["KUBECONFIG"])
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	cfg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := listNamespaces(t, cfg); code != http.StatusOK {
		t.Errorf("got %d", code)
	}
}

// TestIntegrationCredentials uses each kind of credential against the
// server: token file, in-cluster layout, exec plugins for a token and a
// client certificate, a wrong token.
func TestIntegrationCredentials(t *testing.T) {
	env := needKube(t)
	dir := t.TempDir()
	tokenFile := writeFile(t, dir, "token", []byte(env["KUBE_TOKEN"]+"\n"))
	certPEM, err := os.ReadFile(env["KUBE_CLIENT_CERT_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile(env["KUBE_CLIENT_KEY_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	status, _ := json.Marshal(map[string]string{"clientCertificateData": string(certPEM), "clientKeyData": string(keyPEM)})
	certCred := writeFile(t, dir, "cert-cred.json", []byte(credJSON(ExecAPIVersionV1, string(status))))
	tokenPlugin := writeScript(t, dir, "token-plugin", `printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}' "$TOKEN"`)
	certPlugin := writeScript(t, dir, "cert-plugin", `cat "$CRED"`)
	base := func() Config {
		return Config{Host: env["KUBE_APISERVER_URL"], TLS: TLSConfig{CAFile: env["KUBE_CA_FILE"]}}
	}
	tests := []struct {
		name string
		cfg  func() Config
		want int
	}{
		{"token file", func() Config { c := base(); c.BearerTokenFile = tokenFile; return c }, http.StatusOK},
		{"wrong token", func() Config { c := base(); c.BearerToken = "wrong"; return c }, http.StatusUnauthorized},
		{"no credentials", func() Config { c := base(); return c }, http.StatusForbidden},
		{"exec token", func() Config {
			c := base()
			c.Exec = &ExecConfig{Command: tokenPlugin, APIVersion: ExecAPIVersionV1beta1, Env: []ExecEnvVar{{"TOKEN", env["KUBE_TOKEN"]}}}
			return c
		}, http.StatusOK},
		{"exec client certificate", func() Config {
			c := base()
			c.Exec = &ExecConfig{Command: certPlugin, APIVersion: ExecAPIVersionV1, Env: []ExecEnvVar{{"CRED", certCred}}, InteractiveMode: ExecInteractiveNever}
			return c
		}, http.StatusOK},
		{"client certificate files", func() Config {
			c := base()
			c.TLS.CertFile, c.TLS.KeyFile = env["KUBE_CLIENT_CERT_FILE"], env["KUBE_CLIENT_KEY_FILE"]
			return c
		}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg()
			if code, _ := listNamespaces(t, &cfg); code != tt.want {
				t.Errorf("got %d, want %d", code, tt.want)
			}
		})
	}
}

// TestIntegrationInCluster lays out a service account directory for the
// server and connects the way a pod does.
func TestIntegrationInCluster(t *testing.T) {
	env := needKube(t)
	u, err := url.Parse(env["KUBE_APISERVER_URL"])
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(u.Host)
	ca, err := os.ReadFile(env["KUBE_CA_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "token", []byte(env["KUBE_UNPRIVILEGED_TOKEN"]))
	writeFile(t, dir, "ca.crt", ca)
	writeFile(t, dir, "namespace", []byte("kube-system"))
	useServiceAccountDir(t, dir)
	t.Setenv("KUBERNETES_SERVICE_HOST", host)
	t.Setenv("KUBERNETES_SERVICE_PORT", port)
	t.Setenv("KUBECONFIG", "")
	cfg, err := Load(LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	get := func() int {
		resp, err := client.Get(cfg.Host + "/api/v1/namespaces")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != http.StatusForbidden || cfg.Namespace != "kube-system" {
		t.Fatalf("unprivileged token: %d in %s, want 403 in kube-system", code, cfg.Namespace)
	}
	writeFile(t, dir, "token", []byte(env["KUBE_TOKEN"])) // the kubelet rotates the token
	if code := get(); code != http.StatusOK {
		t.Fatalf("rotated token: %d, want 200", code)
	}
}

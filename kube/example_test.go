package kube_test

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/informer-go/informer/kube"
)

// ExampleLoadKubeconfig loads a kubeconfig and lists namespaces with the
// client it configures. The API server is played by an httptest server.
func ExampleLoadKubeconfig() {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"kind":"NamespaceList","items":[]}`)
	}))
	defer server.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})

	dir, err := os.MkdirTemp("", "kubeconfig")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config")
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: alice
  user:
    token: s3cret
contexts:
- name: dev
  context: {cluster: dev, user: alice, namespace: team-a}
`, server.URL, base64.StdEncoding.EncodeToString(ca))
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		log.Fatal(err)
	}

	cfg, err := kube.LoadKubeconfig(kube.LoadOptions{ExplicitPath: path})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("namespace:", cfg.Namespace)

	client, err := cfg.HTTPClient() // once; share it
	if err != nil {
		log.Fatal(err)
	}
	resp, err := client.Get(cfg.Host + "/api/v1/namespaces")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body))
	// Output:
	// namespace: team-a
	// 200 OK {"kind":"NamespaceList","items":[]}
}

// ExampleConfig_String shows that a Config can be logged: credentials are
// named, never printed.
func ExampleConfig_String() {
	cfg := kube.Config{
		Host:        "https://10.0.0.1:6443",
		Namespace:   "default",
		TLS:         kube.TLSConfig{CAFile: "/etc/kubernetes/ca.crt"},
		BearerToken: "never printed",
	}
	fmt.Println(cfg)
	// Output: kube.Config{Host: https://10.0.0.1:6443, Namespace: default, CA: /etc/kubernetes/ca.crt, Auth: bearer token}
}

// ExampleDefault picks the configuration the way most programs should: a
// kubeconfig when one is set, the pod's service account in a cluster.
func ExampleDefault() {
	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	client, err := cfg.HTTPClient()
	if err != nil {
		log.Fatal(err)
	}
	_ = client // GET cfg.Host + "/api/v1/namespaces/" + cfg.Namespace + "/pods", ...
}

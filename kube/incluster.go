package kube

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// serviceAccountDir is where Kubernetes mounts a pod's service account
// credentials; tests point it elsewhere.
var serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InClusterConfig returns the Config of a program running in a Kubernetes
// pod: the server at $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
// (an IPv6 host is bracketed), trusting the service account's ca.crt and
// authenticating with its token file, which HTTPClient re-reads when the
// kubelet rotates it. The namespace is $POD_NAMESPACE, else the service
// account's namespace file, else "default".
//
// It returns ErrNotInCluster when either variable is unset, and an error
// wrapping fs.ErrNotExist when the token or CA file is missing.
func InClusterConfig() (*Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, ErrNotInCluster
	}
	tokenFile := filepath.Join(serviceAccountDir, "token")
	caFile := filepath.Join(serviceAccountDir, "ca.crt")
	if _, err := readToken(tokenFile); err != nil {
		return nil, fmt.Errorf("kube: in-cluster service account token: %w", err)
	}
	if _, err := os.Stat(caFile); err != nil {
		return nil, fmt.Errorf("kube: in-cluster service account CA: %w", err)
	}
	return &Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		Namespace:       inClusterNamespace(),
		TLS:             TLSConfig{CAFile: caFile},
		BearerTokenFile: tokenFile,
	}, nil
}

// inCluster reports whether the process looks like it runs in a pod.
func inCluster() bool {
	return os.Getenv("KUBERNETES_SERVICE_HOST") != "" && os.Getenv("KUBERNETES_SERVICE_PORT") != ""
}

// readToken reads a non-empty token file.
func readToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return parseTokenFile([][]byte{data})
}

// inClusterNamespace is the pod's namespace.
func inClusterNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	data, err := os.ReadFile(filepath.Join(serviceAccountDir, "namespace"))
	if ns := strings.TrimSpace(string(data)); err == nil && ns != "" {
		return ns
	}
	return DefaultNamespace
}

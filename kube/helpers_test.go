package kube

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testPKI is a CA made for one test.
type testPKI struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
	pool *x509.CertPool
}

var serialCounter atomic.Int64

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serialCounter.Add(1)),
		Subject:               pkix.Name{CommonName: "test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testPKI{cert: cert, key: key, pem: pemBlock("CERTIFICATE", der), pool: pool}
}

// certSpec describes a certificate to issue.
type certSpec struct {
	cn        string
	dns       []string
	ips       []net.IP
	client    bool
	notBefore time.Time // zero: an hour ago
	notAfter  time.Time // zero: in a day
}

// issue returns a PEM certificate and key signed by the CA.
func (p *testPKI) issue(t *testing.T, s certSpec) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if s.notBefore.IsZero() {
		s.notBefore = time.Now().Add(-time.Hour)
	}
	if s.notAfter.IsZero() {
		s.notAfter = time.Now().Add(24 * time.Hour)
	}
	usage := x509.ExtKeyUsageServerAuth
	if s.client {
		usage = x509.ExtKeyUsageClientAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serialCounter.Add(1)),
		Subject:      pkix.Name{CommonName: s.cn},
		DNSNames:     s.dns,
		IPAddresses:  s.ips,
		NotBefore:    s.notBefore,
		NotAfter:     s.notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemBlock("CERTIFICATE", der), pemBlock("EC PRIVATE KEY", keyDER)
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// seen is what the echo handler tells about a request.
type seen struct {
	Proto         string `json:"proto"`
	ClientCN      string `json:"clientCN"`
	Authorization string `json:"authorization"`
	UserAgent     string `json:"userAgent"`
}

// echoHandler answers with what it saw of the request.
func echoHandler(w http.ResponseWriter, r *http.Request) {
	s := seen{Proto: r.Proto, Authorization: r.Header.Get("Authorization"), UserAgent: r.Header.Get("User-Agent")}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		s.ClientCN = r.TLS.PeerCertificates[0].Subject.CommonName
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s)
}

// newTLSServer starts an HTTP/2-capable TLS server with a certificate of
// pki (for 127.0.0.1 unless spec says otherwise).
func newTLSServer(t *testing.T, pki *testPKI, spec certSpec, clientAuth tls.ClientAuthType, h http.Handler) *httptest.Server {
	t.Helper()
	if spec.cn == "" {
		spec.cn = "server"
	}
	if spec.dns == nil && spec.ips == nil {
		spec.ips = []net.IP{net.ParseIP("127.0.0.1")}
	}
	certPEM, keyPEM := pki.issue(t, spec)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: clientAuth, ClientCAs: pki.pool}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // expected handshake failures
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// get sends GET url with cfg's client and decodes what the echo handler saw.
func get(t *testing.T, cfg *Config, url string) (seen, int, error) {
	t.Helper()
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatalf("HTTPClient: %v", err)
	}
	defer client.CloseIdleConnections()
	return getWith(t, client, url)
}

// getWith sends GET url with client.
func getWith(t *testing.T, client *http.Client, url string) (seen, int, error) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		return seen{}, 0, err
	}
	defer resp.Body.Close()
	var s seen
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
			t.Fatalf("decoding the echo: %v", err)
		}
	}
	return s, resp.StatusCode, nil
}

// writeFile writes data to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeScript writes an executable /bin/sh script.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := writeFile(t, dir, name, []byte("#!/bin/sh\n"+strings.TrimLeft(body, "\n")))
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fmtPlain prints a value with every field, bypassing Format methods.
func fmtPlain(v any) string { return fmt.Sprintf("%+v", v) }

// widgetRes is the resource the tests' widgets live in.
var widgetRes = Resource{Group: "example.com", Version: "v1", Resource: "widgets"}

// configMapsRes is the resource of ConfigMaps.
var configMapsRes = Resource{Version: "v1", Resource: "configmaps"}

// kubeConfigFor loads a context of the test server's kubeconfig.
func kubeConfigFor(t testing.TB, env map[string]string, context string) *Config {
	t.Helper()
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: env["KUBECONFIG"], Context: context})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

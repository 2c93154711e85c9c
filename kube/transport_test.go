package kube

import (
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// errAny stands for any error in a table of expected errors.
var errAny = errors.New("any error")

// TestTLS checks server verification (CA data and file, tls-server-name,
// insecure-skip-tls-verify) and client certificates against servers that
// require them.
func TestTLS(t *testing.T) {
	pki, otherPKI := newTestPKI(t), newTestPKI(t)
	dir := t.TempDir()
	caFile := writeFile(t, dir, "ca.pem", pki.pem)
	clientCert, clientKey := pki.issue(t, certSpec{cn: "alice", client: true})
	certFile := writeFile(t, dir, "client.crt", clientCert)
	keyFile := writeFile(t, dir, "client.key", clientKey)
	expiredCert, expiredKey := pki.issue(t, certSpec{cn: "old", client: true,
		notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-time.Hour)})
	strangerCert, strangerKey := otherPKI.issue(t, certSpec{cn: "stranger", client: true})

	plain := newTLSServer(t, pki, certSpec{}, tls.NoClientCert, http.HandlerFunc(echoHandler))
	named := newTLSServer(t, pki, certSpec{dns: []string{"kubernetes.test"}}, tls.NoClientCert, http.HandlerFunc(echoHandler))
	mtls := newTLSServer(t, pki, certSpec{}, tls.RequireAndVerifyClientCert, http.HandlerFunc(echoHandler))

	tests := []struct {
		name     string
		server   *httptest.Server
		tls      TLSConfig
		wantCN   string
		wantErr  error  // matched with errors.Is, or
		wantText string // a part of the error
	}{
		{name: "CA data", server: plain, tls: TLSConfig{CAData: pki.pem}},
		{name: "CA file", server: plain, tls: TLSConfig{CAFile: caFile}},
		{name: "CA data wins over a bad CA file", server: plain, tls: TLSConfig{CAData: pki.pem, CAFile: "/nonexistent"}},
		{name: "wrong CA", server: plain, tls: TLSConfig{CAData: otherPKI.pem}, wantText: "certificate signed by unknown authority"},
		{name: "system roots do not know the test CA", server: plain, wantText: "certificate signed by unknown authority"},
		{name: "insecure", server: plain, tls: TLSConfig{Insecure: true}},
		{name: "name mismatch without tls-server-name", server: named, tls: TLSConfig{CAData: pki.pem}, wantText: "127.0.0.1"},
		{name: "tls-server-name", server: named, tls: TLSConfig{CAData: pki.pem, ServerName: "kubernetes.test"}},
		{name: "wrong tls-server-name", server: named, tls: TLSConfig{CAData: pki.pem, ServerName: "other.test"}, wantText: "other.test"},
		{name: "client cert data", server: mtls, tls: TLSConfig{CAData: pki.pem, CertData: clientCert, KeyData: clientKey}, wantCN: "alice"},
		{name: "client cert files", server: mtls, tls: TLSConfig{CAFile: caFile, CertFile: certFile, KeyFile: keyFile}, wantCN: "alice"},
		{name: "cert data with key file", server: mtls, tls: TLSConfig{CAFile: caFile, CertData: clientCert, KeyFile: keyFile}, wantCN: "alice"},
		// The server's alert comes after the TLS 1.3 handshake, so the error
		// text depends on when the transport reads it.
		{name: "no client cert", server: mtls, tls: TLSConfig{CAData: pki.pem}, wantErr: errAny},
		{name: "client cert of another CA", server: mtls, tls: TLSConfig{CAData: pki.pem, CertData: strangerCert, KeyData: strangerKey}, wantErr: errAny},
		{name: "expired client cert", server: mtls, tls: TLSConfig{CAData: pki.pem, CertData: expiredCert, KeyData: expiredKey}, wantErr: ErrCertificateExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &Config{Host: tt.server.URL, TLS: tt.tls}
			s, code, err := get(t, cfg, tt.server.URL+"/api")
			if tt.wantErr != nil || tt.wantText != "" {
				if err == nil {
					t.Fatalf("got %d, want an error", code)
				}
				if tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr) {
					t.Errorf("error %q does not match %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error %q does not contain %q", err, tt.wantText)
				}
				t.Logf("%v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if code != http.StatusOK || s.Proto != "HTTP/2.0" || s.ClientCN != tt.wantCN {
				t.Errorf("got %d %+v, want 200 over HTTP/2.0 with client %q", code, s, tt.wantCN)
			}
		})
	}
}

func TestTLSExpiredCertMessage(t *testing.T) {
	pki := newTestPKI(t)
	cert, key := pki.issue(t, certSpec{cn: "old-client", client: true, notAfter: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)})
	srv := newTLSServer(t, pki, certSpec{}, tls.RequireAndVerifyClientCert, http.HandlerFunc(echoHandler))
	_, _, err := get(t, &Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.pem, CertData: cert, KeyData: key}}, srv.URL)
	if err == nil || !strings.Contains(err.Error(), `client certificate expired: "old-client" expired at 2020-01-02T03:04:05Z`) {
		t.Fatalf("got %v", err)
	}
}

// TestClientCertFileRotation checks that renewed certificate files are
// presented on the next connection.
func TestClientCertFileRotation(t *testing.T) {
	pki := newTestPKI(t)
	dir := t.TempDir()
	cert1, key1 := pki.issue(t, certSpec{cn: "first", client: true})
	cert2, key2 := pki.issue(t, certSpec{cn: "second-renewed", client: true})
	certFile := writeFile(t, dir, "c.crt", cert1)
	keyFile := writeFile(t, dir, "c.key", key1)
	srv := newTLSServer(t, pki, certSpec{}, tls.RequireAndVerifyClientCert, http.HandlerFunc(echoHandler))
	cfg := &Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.pem, CertFile: certFile, KeyFile: keyFile}}
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	if s, _, err := getWith(t, client, srv.URL); err != nil || s.ClientCN != "first" {
		t.Fatalf("got %+v, %v", s, err)
	}
	writeFile(t, dir, "c.crt", cert2)
	writeFile(t, dir, "c.key", key2)
	client.CloseIdleConnections()
	if s, _, err := getWith(t, client, srv.URL); err != nil || s.ClientCN != "second-renewed" {
		t.Fatalf("after renewal got %+v, %v", s, err)
	}
}

func TestHTTPClientErrors(t *testing.T) {
	dir := t.TempDir()
	pki := newTestPKI(t)
	cert, key := pki.issue(t, certSpec{cn: "c", client: true})
	notPEM := writeFile(t, dir, "junk.pem", []byte("junk"))
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"no host", Config{}, ErrNoServer},
		{"bad scheme", Config{Host: "ftp://k"}, ErrInvalidConfig},
		{"missing CA file", Config{Host: "https://k", TLS: TLSConfig{CAFile: filepath.Join(dir, "nope")}}, os.ErrNotExist},
		{"CA without certificates", Config{Host: "https://k", TLS: TLSConfig{CAFile: notPEM}}, ErrInvalidConfig},
		{"missing token file", Config{Host: "https://k", BearerTokenFile: filepath.Join(dir, "nope")}, os.ErrNotExist},
		{"missing cert file", Config{Host: "https://k", TLS: TLSConfig{CertFile: filepath.Join(dir, "nope"), KeyFile: filepath.Join(dir, "nope")}}, os.ErrNotExist},
		{"cert and key mismatch", Config{Host: "https://k", TLS: TLSConfig{CertData: cert, KeyData: pki.pem}}, ErrInvalidConfig},
		{"key without cert", Config{Host: "https://k", TLS: TLSConfig{KeyData: key}}, ErrInvalidConfig},
		{"token and exec", Config{Host: "https://k", BearerToken: "t", Exec: &ExecConfig{Command: "x", APIVersion: ExecAPIVersionV1}}, ErrInvalidConfig},
		{"bad proxy", Config{Host: "https://k", ProxyURL: "http://"}, ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.HTTPClient()
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// TestProxyURL checks that requests go through proxy-url.
func TestProxyURL(t *testing.T) {
	var got string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.URL.String()
		echoHandler(w, r)
	}))
	defer proxy.Close()
	cfg := &Config{Host: "http://kube.invalid:8080", BearerToken: "t", ProxyURL: proxy.URL}
	s, code, err := get(t, cfg, "http://kube.invalid:8080/api/v1/pods")
	if err != nil || code != 200 {
		t.Fatalf("got %d, %v", code, err)
	}
	if got != "GET http://kube.invalid:8080/api/v1/pods" || s.Authorization != "Bearer t" {
		t.Errorf("proxy saw %q with %+v", got, s)
	}
}

func TestCheckValidity(t *testing.T) {
	pki := newTestPKI(t)
	now := time.Now()
	for _, tt := range []struct {
		name     string
		from, to time.Time
		ok       bool
	}{
		{"valid", now.Add(-time.Hour), now.Add(time.Hour), true},
		{"expired", now.Add(-2 * time.Hour), now.Add(-time.Hour), false},
		{"not yet valid", now.Add(time.Hour), now.Add(2 * time.Hour), false},
	} {
		certPEM, keyPEM := pki.issue(t, certSpec{cn: tt.name, client: true, notBefore: tt.from, notAfter: tt.to})
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		cert.Leaf = nil // parsed again from the DER
		if err := checkValidity(&cert, now); (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrCertificateExpired)) {
			t.Errorf("%s: got %v", tt.name, err)
		}
	}
	if err := checkValidity(&tls.Certificate{}, now); err != nil {
		t.Errorf("empty certificate: %v", err)
	}
}

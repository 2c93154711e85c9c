package kube

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"
)

// HTTPClient returns a client for the server in c: HTTP/2 when offered
// (idle connections pinged, so a watch on a dead one fails within a
// minute), c's proxy or the environment's, the server verified with c.TLS's
// CA or the system's, and on every request without an Authorization header
// the credentials, followed as they change (see the package doc's
// Credentials). An expired client certificate fails with
// ErrCertificateExpired. The client has no timeout (watches last long):
// give requests a deadline. Each call builds a new connection pool: call it
// once and share the client. Files named in c are read now.
func (c *Config) HTTPClient() (*http.Client, error) {
	rt, err := c.roundTripper()
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: rt}, nil
}

// roundTripper builds the transport of HTTPClient.
func (c *Config) roundTripper() (http.RoundTripper, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	tlsConfig, err := c.tlsConfig()
	if err != nil {
		return nil, err
	}
	proxy := http.ProxyFromEnvironment
	if c.ProxyURL != "" {
		u, err := parseProxyURL(c.ProxyURL)
		if err != nil {
			return nil, err
		}
		proxy = http.ProxyURL(u)
	}
	newTransport := func() *http.Transport {
		dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		return &http.Transport{
			Proxy:                 proxy,
			DialContext:           dialer.DialContext,
			TLSClientConfig:       tlsConfig.Clone(),
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   25,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
			DisableCompression:    c.DisableCompression,
			HTTP2: &http.HTTP2Config{
				SendPingTimeout: 30 * time.Second,
				PingTimeout:     15 * time.Second,
			},
		}
	}

	var creds credentials
	var execA *execAuth
	switch {
	case c.Exec != nil:
		cluster, err := c.execCluster()
		if err != nil {
			return nil, err
		}
		execA = newExecAuth(*c.Exec, cluster)
		creds = execCredentials{execA}
	case c.BearerTokenFile != "":
		tf, err := newTokenFileCredentials(c.BearerTokenFile, nil)
		if err != nil {
			return nil, err
		}
		creds = tf
	case c.BearerToken != "":
		creds = bearer(c.BearerToken)
	case c.Username != "" || c.Password != "":
		creds = basicAuth(c.Username, c.Password)
	}
	if err := c.setClientCertificate(tlsConfig, execA); err != nil {
		return nil, err
	}
	var base http.RoundTripper = newTransport()
	if execA != nil {
		rt := &rotatingTransport{newTransport: newTransport}
		rt.current.Store(base.(*http.Transport))
		execA.onNewCert = rt.rotate
		base = rt
	}
	ua := c.UserAgent
	if ua == "" {
		ua = defaultUserAgent()
	}
	return &authTransport{base: base, creds: creds, userAgent: ua}, nil
}

// tlsConfig returns the TLS settings without the client certificate.
func (c *Config) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         c.TLS.ServerName,
		InsecureSkipVerify: c.TLS.Insecure,
	}
	ca, err := c.caPEM()
	if err != nil {
		return nil, err
	}
	if ca != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("%w: no PEM certificate in the CA (%s)", ErrInvalidConfig, c.TLS.caSummary())
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// caPEM returns CAData, or the content of CAFile, or nil.
func (c *Config) caPEM() ([]byte, error) {
	if len(c.TLS.CAData) > 0 {
		return c.TLS.CAData, nil
	}
	if c.TLS.CAFile == "" {
		return nil, nil
	}
	data, err := os.ReadFile(c.TLS.CAFile)
	if err != nil {
		return nil, fmt.Errorf("kube: reading the CA: %w", err)
	}
	return data, nil
}

// setClientCertificate makes cfg present the client certificate of c.TLS,
// or else the exec plugin's, when the server asks for one.
func (c *Config) setClientCertificate(cfg *tls.Config, execA *execAuth) error {
	var get func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
	switch {
	case len(c.TLS.CertData) > 0 || len(c.TLS.KeyData) > 0:
		certPEM, keyPEM, err := c.certAndKeyPEM()
		if err != nil {
			return err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return fmt.Errorf("%w: client certificate: %v", ErrInvalidConfig, err)
		}
		get = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	case c.TLS.CertFile != "":
		files := newReloadingFiles(parseKeyPair, nil, c.TLS.CertFile, c.TLS.KeyFile)
		if _, err := files.get(); err != nil {
			return fmt.Errorf("kube: client certificate %s: %w", c.TLS.CertFile, err)
		}
		get = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return files.get() }
	case execA != nil:
		get = func(info *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			cred, err := execA.credential(info.Context())
			if err != nil {
				return nil, err
			}
			if cred.cert == nil {
				return &tls.Certificate{}, nil
			}
			return cred.cert, nil
		}
	default:
		return nil
	}
	cfg.GetClientCertificate = func(info *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		cert, err := get(info)
		if err != nil {
			return nil, err
		}
		if err := checkValidity(cert, time.Now()); err != nil {
			return nil, err
		}
		return cert, nil
	}
	return nil
}

// certAndKeyPEM returns the client certificate and key, each from its
// -Data field or else its file.
func (c *Config) certAndKeyPEM() (cert, key []byte, err error) {
	cert, key = c.TLS.CertData, c.TLS.KeyData
	if len(cert) == 0 {
		if cert, err = os.ReadFile(c.TLS.CertFile); err != nil {
			return nil, nil, fmt.Errorf("kube: client certificate: %w", err)
		}
	}
	if len(key) == 0 {
		if key, err = os.ReadFile(c.TLS.KeyFile); err != nil {
			return nil, nil, fmt.Errorf("kube: client key: %w", err)
		}
	}
	return cert, key, nil
}

// parseKeyPair parses the content of a certificate file and a key file.
func parseKeyPair(data [][]byte) (*tls.Certificate, error) {
	cert, err := tls.X509KeyPair(data[0], data[1])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	return &cert, nil
}

// checkValidity refuses a certificate that is not valid at now, which the
// server would refuse with a less clear message.
func checkValidity(cert *tls.Certificate, now time.Time) error {
	if len(cert.Certificate) == 0 {
		return nil
	}
	leaf := cert.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return fmt.Errorf("%w: client certificate: %v", ErrInvalidConfig, err)
		}
	}
	if now.After(leaf.NotAfter) {
		return fmt.Errorf("%w: %q expired at %s", ErrCertificateExpired, leaf.Subject.CommonName, leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	if now.Before(leaf.NotBefore) {
		return fmt.Errorf("%w: %q is not valid before %s", ErrCertificateExpired, leaf.Subject.CommonName, leaf.NotBefore.UTC().Format(time.RFC3339))
	}
	return nil
}

// execCluster is what a plugin with ProvideClusterInfo learns of the
// cluster, or nil.
func (c *Config) execCluster() (*execCluster, error) {
	if !c.Exec.ProvideClusterInfo {
		return nil, nil
	}
	ca, err := c.caPEM()
	if err != nil {
		return nil, err
	}
	return &execCluster{
		Server:                   c.Host,
		TLSServerName:            c.TLS.ServerName,
		InsecureSkipTLSVerify:    c.TLS.Insecure,
		CertificateAuthorityData: ca,
		ProxyURL:                 c.ProxyURL,
		DisableCompression:       c.DisableCompression,
		Config:                   c.Exec.ClusterConfig,
	}, nil
}

// defaultUserAgent is "<program> (<os>/<arch>) informer-go".
func defaultUserAgent() string {
	prog := "unknown"
	if len(os.Args) > 0 && os.Args[0] != "" {
		prog = filepath.Base(os.Args[0])
	}
	return fmt.Sprintf("%s (%s/%s) informer-go", prog, runtime.GOOS, runtime.GOARCH)
}

// rotatingTransport sends requests through its current transport, and
// replaces it by a new one when the exec plugin's client certificate
// changes: the connections of the old one present the old certificate,
// which the server may refuse. Requests in flight on the old connections
// finish undisturbed; its idle connections are closed at once, the others
// when they have been idle for IdleConnTimeout.
type rotatingTransport struct {
	current      atomic.Pointer[http.Transport]
	newTransport func() *http.Transport
}

// RoundTrip implements http.RoundTripper.
func (r *rotatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return r.current.Load().RoundTrip(req)
}

// rotate makes a new transport current.
func (r *rotatingTransport) rotate() {
	r.current.Swap(r.newTransport()).CloseIdleConnections()
}

// CloseIdleConnections closes the idle connections of the current
// transport.
func (r *rotatingTransport) CloseIdleConnections() {
	r.current.Load().CloseIdleConnections()
}

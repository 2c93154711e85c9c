package kube

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/informer-go/informer/internal/kubewire"
)

// DefaultNamespace is the namespace of a Config whose source names none.
const DefaultNamespace = "default"

// Config says where a Kubernetes API server is and how to talk to it. Load
// one with LoadKubeconfig, InClusterConfig or Load, or fill one in; then call
// HTTPClient once and share the client.
//
// A Config is plain data: copy it and change the copy freely. Its String,
// Format and LogValue methods never print credentials, so a Config can be
// logged as it is.
type Config struct {
	// Host is the server's base URL, for example "https://10.0.0.1:6443",
	// possibly with a path prefix. A host without a scheme is taken as
	// https.
	Host string
	// Namespace is the namespace of the kubeconfig context or of the pod;
	// "default" when the source names none. HTTPClient ignores it.
	Namespace string
	// TLS holds the settings of the TLS connection.
	TLS TLSConfig

	// BearerToken is sent as "Authorization: Bearer <token>".
	BearerToken string
	// BearerTokenFile names a file that holds the bearer token. It takes
	// precedence over BearerToken, and is re-read when it changes.
	BearerTokenFile string
	// Username and Password are sent as basic auth.
	Username string
	Password string
	// Exec, when not nil, runs a credential plugin for a token or a client
	// certificate.
	Exec *ExecConfig

	// ProxyURL is the proxy for every request (http, https or socks5).
	// Empty means the proxy of the environment: HTTPS_PROXY, HTTP_PROXY
	// and NO_PROXY.
	ProxyURL string
	// DisableCompression turns off the transport's gzip negotiation: the
	// server then sends responses uncompressed, which can be faster on
	// fast networks.
	DisableCompression bool
	// UserAgent is sent with every request that does not set its own.
	// Empty means "<program> (<os>/<arch>) informer-go".
	UserAgent string
}

// TLSConfig holds the TLS settings of a Config. For the CA, the client
// certificate and its key, the -Data field wins over the -File field when
// both are set; files are read when the client is built, and the client
// certificate files again when they change.
type TLSConfig struct {
	// Insecure skips the verification of the server's certificate. It
	// cannot be combined with a CA.
	Insecure bool
	// ServerName is the name checked against the server's certificate
	// (and sent as SNI) instead of the host in Config.Host.
	ServerName string
	// CAFile and CAData hold PEM certificates of the CAs trusted to sign
	// the server's certificate. Empty means the system's roots.
	CAFile string
	CAData []byte
	// CertFile and CertData hold the PEM client certificate, KeyFile and
	// KeyData its PEM private key.
	CertFile string
	CertData []byte
	KeyFile  string
	KeyData  []byte
}

// authKind names the one kind of credential a Config carries, or the
// contradiction when it carries several.
func (c *Config) authKinds() []string {
	var kinds []string
	if c.BearerToken != "" || c.BearerTokenFile != "" {
		kinds = append(kinds, "token")
	}
	if c.Username != "" || c.Password != "" {
		kinds = append(kinds, "basic auth")
	}
	if c.Exec != nil {
		kinds = append(kinds, "exec plugin")
	}
	return kinds
}

// validate reports what HTTPClient cannot work with.
func (c *Config) validate() error {
	if c.Host == "" {
		return ErrNoServer
	}
	if _, err := c.BaseURL(); err != nil {
		return err
	}
	if k := c.authKinds(); len(k) > 1 {
		return fmt.Errorf("%w: more than one kind of credentials (%s); use only one", ErrInvalidConfig, strings.Join(k, ", "))
	}
	t := &c.TLS
	if t.Insecure && (t.CAFile != "" || len(t.CAData) > 0) {
		return fmt.Errorf("%w: a CA cannot be combined with insecure-skip-tls-verify", ErrInvalidConfig)
	}
	hasCert := t.CertFile != "" || len(t.CertData) > 0
	hasKey := t.KeyFile != "" || len(t.KeyData) > 0
	if hasCert != hasKey {
		return fmt.Errorf("%w: a client certificate needs both the certificate and its key", ErrInvalidConfig)
	}
	if c.ProxyURL != "" {
		if _, err := parseProxyURL(c.ProxyURL); err != nil {
			return err
		}
	}
	if c.Exec != nil {
		if err := c.Exec.validate(); err != nil {
			return err
		}
	}
	return nil
}

// BaseURL parses Host into the URL that API paths are joined to, adding
// https:// when it has no scheme. It fails with ErrNoServer or
// ErrInvalidConfig.
func (c *Config) BaseURL() (*url.URL, error) {
	if c.Host == "" {
		return nil, ErrNoServer
	}
	h := c.Host
	if !strings.Contains(h, "://") {
		h = "https://" + h
	}
	u, err := url.Parse(h)
	if err != nil {
		return nil, fmt.Errorf("%w: server %q: %v", ErrInvalidConfig, c.Host, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("%w: server %q: scheme must be https or http", ErrInvalidConfig, c.Host)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: server %q has no host", ErrInvalidConfig, c.Host)
	}
	return u, nil
}

// parseProxyURL checks a proxy-url.
func parseProxyURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: proxy-url: %v", ErrInvalidConfig, err)
	}
	switch u.Scheme {
	case "http", "https", "socks5":
	default:
		return nil, fmt.Errorf("%w: proxy-url scheme %q: must be http, https or socks5", ErrInvalidConfig, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: proxy-url has no host", ErrInvalidConfig)
	}
	return u, nil
}

// authSummary describes the credentials without revealing them.
func (c Config) authSummary() string {
	var parts []string
	switch {
	case c.BearerTokenFile != "":
		parts = append(parts, "token file "+c.BearerTokenFile)
	case c.BearerToken != "":
		parts = append(parts, "bearer token")
	}
	if c.Username != "" || c.Password != "" {
		parts = append(parts, fmt.Sprintf("basic auth (user %q)", c.Username))
	}
	if c.Exec != nil {
		parts = append(parts, fmt.Sprintf("exec plugin %q", c.Exec.Command))
	}
	switch {
	case len(c.TLS.CertData) > 0:
		parts = append(parts, "client certificate (inline)")
	case c.TLS.CertFile != "":
		parts = append(parts, "client certificate "+c.TLS.CertFile)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// caSummary says which CA is trusted.
func (t TLSConfig) caSummary() string {
	switch {
	case t.Insecure:
		return "insecure (not verified)"
	case len(t.CAData) > 0:
		return "inline"
	case t.CAFile != "":
		return t.CAFile
	default:
		return "system roots"
	}
}

// String describes the Config for people and logs: server, namespace, CA
// and the kinds of credentials, never their values.
func (c Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kube.Config{Host: %s, Namespace: %s, CA: %s", kubewire.RedactedURL(c.Host), c.Namespace, c.TLS.caSummary())
	if c.TLS.ServerName != "" {
		fmt.Fprintf(&b, ", ServerName: %s", c.TLS.ServerName)
	}
	if c.ProxyURL != "" {
		fmt.Fprintf(&b, ", Proxy: %s", kubewire.RedactedURL(c.ProxyURL))
	}
	fmt.Fprintf(&b, ", Auth: %s}", c.authSummary())
	return b.String()
}

// Format writes String for every verb (%v, %+v, %#v, %s, %d, ...), so
// that no way of printing a Config shows its credentials.
func (c Config) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue describes the Config for log/slog, without credentials.
func (c Config) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("host", kubewire.RedactedURL(c.Host)),
		slog.String("namespace", c.Namespace),
		slog.String("ca", c.TLS.caSummary()),
	}
	if c.TLS.ServerName != "" {
		attrs = append(attrs, slog.String("serverName", c.TLS.ServerName))
	}
	if c.ProxyURL != "" {
		attrs = append(attrs, slog.String("proxy", kubewire.RedactedURL(c.ProxyURL)))
	}
	attrs = append(attrs, slog.String("auth", c.authSummary()))
	return slog.GroupValue(attrs...)
}

// String describes the TLS settings without the key or certificate data.
func (t TLSConfig) String() string {
	cert := "none"
	switch {
	case len(t.CertData) > 0:
		cert = "inline"
	case t.CertFile != "":
		cert = t.CertFile
	}
	return fmt.Sprintf("kube.TLSConfig{CA: %s, ServerName: %q, ClientCert: %s}", t.caSummary(), t.ServerName, cert)
}

// Format writes String for every verb, so that no way of printing a
// TLSConfig shows the key.
func (t TLSConfig) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(t.String())) }

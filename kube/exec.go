package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultExecTimeout is how long a credential plugin may run when
// ExecConfig.Timeout is zero.
const DefaultExecTimeout = time.Minute

// execRefreshBefore is how long before its expiry a plugin's credential is
// replaced by a new one.
const execRefreshBefore = 10 * time.Second

// Limits on what is kept of a plugin's output.
const (
	maxExecStdout = 1 << 20 // an ExecCredential larger than this is refused
	maxStderr     = 1 << 10 // the tail of stderr quoted in an ExecError
)

// The apiVersions of ExecCredential this package speaks.
const (
	ExecAPIVersionV1      = "client.authentication.k8s.io/v1"
	ExecAPIVersionV1beta1 = "client.authentication.k8s.io/v1beta1"
)

// ExecInteractiveMode says whether a credential plugin may talk to the user
// through standard input.
type ExecInteractiveMode string

// The interactive modes of a credential plugin.
const (
	// ExecInteractiveNever never connects standard input.
	ExecInteractiveNever ExecInteractiveMode = "Never"
	// ExecInteractiveIfAvailable connects standard input when it is a
	// terminal. It is the mode of an ExecConfig that names none.
	ExecInteractiveIfAvailable ExecInteractiveMode = "IfAvailable"
	// ExecInteractiveAlways requires standard input to be a terminal, and
	// fails with ErrExecInteractive when it is not.
	ExecInteractiveAlways ExecInteractiveMode = "Always"
)

// ExecConfig runs a credential plugin, the "exec" section of a kubeconfig
// user: a program that prints an ExecCredential holding a token or a client
// certificate. The credential is cached until the expirationTimestamp it
// carries (it is replaced shortly before), or, without one, until the server
// answers 401 Unauthorized.
type ExecConfig struct {
	// Command is the program: a name looked up in $PATH, or a path.
	Command string
	// Args are its arguments.
	Args []string
	// Env is added to the program's environment, which is otherwise this
	// process's.
	Env []ExecEnvVar
	// APIVersion is the ExecCredential version to request:
	// ExecAPIVersionV1 or ExecAPIVersionV1beta1.
	APIVersion string
	// InstallHint is shown when Command cannot be found.
	InstallHint string
	// InteractiveMode says when standard input is connected; empty means
	// ExecInteractiveIfAvailable.
	InteractiveMode ExecInteractiveMode
	// ProvideClusterInfo sends the cluster (server, CA, TLS server name,
	// proxy and ClusterConfig) to the plugin in KUBERNETES_EXEC_INFO.
	ProvideClusterInfo bool
	// ClusterConfig is the cluster's "client.authentication.k8s.io/exec"
	// extension, sent as spec.cluster.config with ProvideClusterInfo.
	ClusterConfig json.RawMessage
	// Timeout bounds one run of the plugin, which is killed when it is
	// exceeded; zero means DefaultExecTimeout. Plugins that wait for a
	// person to log in may need more.
	Timeout time.Duration
}

// ExecEnvVar is one environment variable of a credential plugin.
type ExecEnvVar struct {
	Name  string
	Value string
}

// String is NAME=<value hidden>: the value may be a secret.
func (v ExecEnvVar) String() string { return v.Name + "=<value hidden>" }

// Format writes String for every verb.
func (v ExecEnvVar) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(v.String())) }

// String describes the plugin by its command and apiVersion: arguments and
// environment may carry secrets and are left out.
func (e ExecConfig) String() string {
	return fmt.Sprintf("kube.ExecConfig{Command: %q, APIVersion: %s}", e.Command, e.APIVersion)
}

// Format writes String for every verb, so that no way of printing an
// ExecConfig shows its arguments or environment.
func (e ExecConfig) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(e.String())) }

// validate checks the fields a run needs.
func (e *ExecConfig) validate() error {
	if e.Command == "" {
		return fmt.Errorf("%w: exec plugin without a command", ErrInvalidConfig)
	}
	switch e.APIVersion {
	case ExecAPIVersionV1, ExecAPIVersionV1beta1:
	default:
		return fmt.Errorf("%w: exec plugin apiVersion %q: must be %s or %s", ErrInvalidConfig, e.APIVersion, ExecAPIVersionV1, ExecAPIVersionV1beta1)
	}
	switch e.InteractiveMode {
	case "", ExecInteractiveNever, ExecInteractiveIfAvailable, ExecInteractiveAlways:
	default:
		return fmt.Errorf("%w: exec plugin interactiveMode %q: must be Never, IfAvailable or Always", ErrInvalidConfig, e.InteractiveMode)
	}
	return nil
}

// execCredential is the ExecCredential object of both apiVersions: the
// request in KUBERNETES_EXEC_INFO and the plugin's answer.
type execCredential struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Spec       execSpec    `json:"spec"`
	Status     *execStatus `json:"status,omitempty"`
}

type execSpec struct {
	Cluster     *execCluster `json:"cluster,omitempty"`
	Interactive bool         `json:"interactive"`
}

// execCluster is spec.cluster, sent with ProvideClusterInfo.
type execCluster struct {
	Server                   string          `json:"server"`
	TLSServerName            string          `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool            `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthorityData []byte          `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string          `json:"proxy-url,omitempty"`
	DisableCompression       bool            `json:"disable-compression,omitempty"`
	Config                   json.RawMessage `json:"config,omitempty"`
}

type execStatus struct {
	ExpirationTimestamp   *time.Time `json:"expirationTimestamp,omitempty"`
	Token                 string     `json:"token,omitempty"`
	ClientCertificateData string     `json:"clientCertificateData,omitempty"`
	ClientKeyData         string     `json:"clientKeyData,omitempty"`
}

// execAuth runs a plugin and caches its credential. Concurrent callers that
// need a new credential share one run of the plugin.
type execAuth struct {
	cfg        ExecConfig
	cluster    *execCluster // nil unless ProvideClusterInfo
	now        func() time.Time
	isTerminal func() bool
	// onNewCert is called (outside the lock) when a run returns a client
	// certificate different from the one handed out before; the client
	// then moves to new connections, which present the new certificate.
	onNewCert func()

	lastCert []byte // DER of the last certificate handed out

	mu       sync.Mutex
	cred     *execCred // nil: none, or invalidated
	inflight *execCall
	gen      uint64
}

// execCred is one credential returned by the plugin.
type execCred struct {
	token     string
	cert      *tls.Certificate
	refreshAt time.Time // zero: until invalidated
	gen       uint64
}

// execCall is a run of the plugin that callers wait for.
type execCall struct {
	done chan struct{}
	cred *execCred
	err  error
}

// newExecAuth returns an execAuth for cfg; cluster may be nil.
func newExecAuth(cfg ExecConfig, cluster *execCluster) *execAuth {
	return &execAuth{cfg: cfg, cluster: cluster, now: time.Now, isTerminal: stdinIsTerminal}
}

// credential returns the cached credential, or runs the plugin for a new
// one. A cancelled ctx stops the wait, not the run, which other callers may
// be waiting for too.
func (a *execAuth) credential(ctx context.Context) (*execCred, error) {
	a.mu.Lock()
	if c := a.cred; c != nil && (c.refreshAt.IsZero() || a.now().Before(c.refreshAt)) {
		a.mu.Unlock()
		return c, nil
	}
	call := a.inflight
	if call == nil {
		call = &execCall{done: make(chan struct{})}
		a.inflight = call
		go a.refresh(call)
	}
	a.mu.Unlock()
	select {
	case <-call.done:
		return call.cred, call.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// invalidate drops credential gen after the server refused it, so that the
// next request runs the plugin again. A later credential is kept.
func (a *execAuth) invalidate(gen uint64) {
	a.mu.Lock()
	if a.cred != nil && a.cred.gen == gen {
		a.cred = nil
	}
	a.mu.Unlock()
}

// refresh runs the plugin for call and stores the credential.
func (a *execAuth) refresh(call *execCall) {
	start := a.now()
	cred, expiry, err := a.run()
	if err == nil {
		if !expiry.IsZero() {
			// Refresh a little before the expiry; a credential that comes
			// with less time than that left is used until it expires.
			cred.refreshAt = expiry.Add(-execRefreshBefore)
			if !cred.refreshAt.After(start) {
				cred.refreshAt = expiry
			}
		}
		// Only one refresh runs at a time, so lastCert needs no lock. A
		// new certificate moves the client to new connections before the
		// credential is published: no request may reach an old connection
		// with it, get a 401, and throw it away.
		if cred.cert != nil {
			der := cred.cert.Certificate[0]
			if a.lastCert != nil && !bytes.Equal(a.lastCert, der) && a.onNewCert != nil {
				a.onNewCert()
			}
			a.lastCert = der
		}
	}
	a.mu.Lock()
	if err == nil {
		a.gen++
		cred.gen = a.gen
		a.cred = cred
	}
	a.inflight = nil
	a.mu.Unlock()
	call.cred, call.err = cred, err
	close(call.done)
}

// interactive says whether to connect standard input.
func (a *execAuth) interactive() (bool, error) {
	switch a.cfg.InteractiveMode {
	case ExecInteractiveNever:
		return false, nil
	case ExecInteractiveAlways:
		if !a.isTerminal() {
			return false, &ExecError{Command: a.cfg.Command, Kind: ErrExecInteractive,
				Detail: "interactiveMode is Always but standard input is not a terminal"}
		}
		return true, nil
	default:
		return a.isTerminal(), nil
	}
}

// run runs the plugin once and returns its credential and expiry.
func (a *execAuth) run() (*execCred, time.Time, error) {
	cfg := &a.cfg
	fail := func(kind, err error, detail string) (*execCred, time.Time, error) {
		return nil, time.Time{}, &ExecError{Command: cfg.Command, Kind: kind, Err: err, Detail: detail}
	}
	interactive, err := a.interactive()
	if err != nil {
		return nil, time.Time{}, err
	}
	path, err := exec.LookPath(cfg.Command)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			hint := ""
			if cfg.InstallHint != "" {
				hint = "install hint: " + cfg.InstallHint
			}
			return fail(ErrExecNotFound, err, hint)
		}
		return fail(ErrExecFailed, err, "")
	}
	request, err := json.Marshal(execCredential{
		APIVersion: cfg.APIVersion,
		Kind:       "ExecCredential",
		Spec:       execSpec{Cluster: a.cluster, Interactive: interactive},
	})
	if err != nil {
		return fail(ErrExecFailed, err, "encoding KUBERNETES_EXEC_INFO")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, path, cfg.Args...)
	cmd.Env = os.Environ()
	for _, e := range cfg.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+string(request))
	stdout := &cappedBuffer{max: maxExecStdout}
	stderr := &tailBuffer{max: maxStderr}
	cmd.Stdout = stdout
	if interactive {
		cmd.Stdin = os.Stdin
		cmd.Stderr = io.MultiWriter(os.Stderr, stderr)
	} else {
		// Alone in its process group, so that a timeout kills the
		// plugin's children too.
		killProcessGroupOnCancel(cmd)
		cmd.Stderr = stderr
	}
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		e := &ExecError{Command: cfg.Command, Kind: ErrExecTimeout, Detail: fmt.Sprintf("killed after %v", timeout), Stderr: stderr.String()}
		return nil, time.Time{}, e
	}
	if err != nil {
		e := &ExecError{Command: cfg.Command, Kind: ErrExecFailed, Err: err, Stderr: stderr.String(), ExitCode: -1}
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) && exitErr.ExitCode() >= 0 {
			e.Err, e.ExitCode = nil, exitErr.ExitCode()
		}
		return nil, time.Time{}, e
	}
	if stdout.overflow {
		return fail(ErrExecBadOutput, nil, fmt.Sprintf("standard output is larger than %d bytes", maxExecStdout))
	}
	cred, expiry, detail := parseExecCredential(stdout.Bytes(), cfg.APIVersion)
	if detail != "" {
		return fail(ErrExecBadOutput, nil, detail)
	}
	return cred, expiry, nil
}

// parseExecCredential decodes a plugin's standard output. On failure it
// returns a description that quotes nothing of the output, which may hold
// secrets.
func parseExecCredential(out []byte, apiVersion string) (*execCred, time.Time, string) {
	var ec execCredential
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&ec); err != nil {
		var syn *json.SyntaxError
		switch {
		case len(bytes.TrimSpace(out)) == 0:
			return nil, time.Time{}, "standard output is empty"
		case errors.As(err, &syn):
			return nil, time.Time{}, fmt.Sprintf("standard output (%d bytes) is not JSON: syntax error at byte %d", len(out), syn.Offset)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, time.Time{}, fmt.Sprintf("standard output (%d bytes) is truncated JSON", len(out))
		default:
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return nil, time.Time{}, fmt.Sprintf("field %s is not a %s", typ.Field, typ.Type)
			}
			return nil, time.Time{}, "standard output is not an ExecCredential: " + err.Error()
		}
	}
	if rest := bytes.TrimSpace(out[dec.InputOffset():]); len(rest) > 0 {
		return nil, time.Time{}, fmt.Sprintf("standard output has %d bytes after the ExecCredential", len(rest))
	}
	if ec.Kind != "ExecCredential" {
		return nil, time.Time{}, fmt.Sprintf("kind is %q, want ExecCredential", ec.Kind)
	}
	if ec.APIVersion != apiVersion {
		return nil, time.Time{}, fmt.Sprintf("apiVersion is %q, want %q as requested", ec.APIVersion, apiVersion)
	}
	st := ec.Status
	if st == nil {
		return nil, time.Time{}, "no status"
	}
	if (st.ClientCertificateData == "") != (st.ClientKeyData == "") {
		return nil, time.Time{}, "status.clientCertificateData and status.clientKeyData must be set together"
	}
	if st.Token == "" && st.ClientCertificateData == "" {
		return nil, time.Time{}, "status has neither a token nor a client certificate"
	}
	cred := &execCred{token: st.Token}
	if st.ClientCertificateData != "" {
		cert, err := tls.X509KeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData))
		if err != nil {
			return nil, time.Time{}, "status.clientCertificateData/clientKeyData: " + err.Error()
		}
		cred.cert = &cert
	}
	var expiry time.Time
	if st.ExpirationTimestamp != nil {
		expiry = *st.ExpirationTimestamp
	}
	return cred, expiry, ""
}

// cappedBuffer keeps up to max bytes and notes whether more came.
type cappedBuffer struct {
	bytes.Buffer
	max      int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.Len(); len(p) > room {
		b.overflow = true
		p = p[:max(room, 0)]
	}
	b.Buffer.Write(p)
	return n, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
	cut bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return n, nil
}

// String is the tail on one line (lines joined by " | "), marked when the
// beginning was cut.
func (b *tailBuffer) String() string {
	var lines []string
	for l := range strings.Lines(strings.ToValidUTF8(string(b.buf), "")) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	s := strings.Join(lines, " | ")
	if len(s) > b.max {
		s, b.cut = strings.ToValidUTF8(s[len(s)-b.max:], ""), true
	}
	if b.cut {
		return "..." + s
	}
	return s
}

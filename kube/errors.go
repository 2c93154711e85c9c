package kube

import (
	"errors"
	"fmt"
	"strings"

	"github.com/informer-go/informer/internal/kubewire"
)

// Sentinel errors. Match them with errors.Is: the package wraps them with
// the file, the name or the plugin concerned.
var (
	// ErrNoKubeconfig reports that no kubeconfig file could be read: the
	// explicit path does not exist, or neither $KUBECONFIG nor
	// ~/.kube/config name a file that does.
	ErrNoKubeconfig = errors.New("kube: no kubeconfig file")
	// ErrMalformedKubeconfig reports a kubeconfig that is not valid YAML or
	// JSON, or whose fields have the wrong types or are duplicated.
	ErrMalformedKubeconfig = errors.New("kube: malformed kubeconfig")
	// ErrBadBase64 reports a *-data field of a kubeconfig that is not valid
	// base64.
	ErrBadBase64 = errors.New("kube: invalid base64")
	// ErrNoContext reports that no context was asked for and the kubeconfig
	// sets no current-context.
	ErrNoContext = errors.New("kube: no context given and no current-context set")
	// ErrContextNotFound reports a context name the kubeconfig does not
	// define.
	ErrContextNotFound = errors.New("kube: context not found")
	// ErrClusterNotFound reports a cluster name the kubeconfig does not
	// define.
	ErrClusterNotFound = errors.New("kube: cluster not found")
	// ErrUserNotFound reports a user name the kubeconfig does not define.
	ErrUserNotFound = errors.New("kube: user not found")
	// ErrNoServer reports a cluster or Config without a server address.
	ErrNoServer = errors.New("kube: no server address")
	// ErrInvalidConfig reports settings that contradict each other or make
	// no sense: a certificate without its key, two kinds of credentials, a
	// CA together with insecure-skip-tls-verify, a malformed URL, an
	// unsupported auth-provider.
	ErrInvalidConfig = kubewire.ErrInvalidConfig
	// ErrNotInCluster reports that the process does not run in a
	// Kubernetes pod: KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT
	// is not set.
	ErrNotInCluster = errors.New("kube: not running in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)")
	// ErrCertificateExpired reports a client certificate whose validity has
	// ended (or not begun): it is not sent, since the server would refuse it.
	ErrCertificateExpired = errors.New("kube: client certificate expired")

	// ErrExecNotFound reports a credential plugin whose command cannot be
	// found.
	ErrExecNotFound = errors.New("kube: credential plugin not found")
	// ErrExecFailed reports a credential plugin that exited with an error.
	ErrExecFailed = errors.New("kube: credential plugin failed")
	// ErrExecTimeout reports a credential plugin that did not finish in
	// time and was killed.
	ErrExecTimeout = errors.New("kube: credential plugin timed out")
	// ErrExecBadOutput reports a credential plugin whose output is not an
	// ExecCredential of the requested apiVersion with a token or a
	// certificate and key.
	ErrExecBadOutput = errors.New("kube: credential plugin printed an invalid ExecCredential")
	// ErrExecInteractive reports a credential plugin with interactiveMode
	// Always while standard input is not a terminal.
	ErrExecInteractive = errors.New("kube: credential plugin needs a terminal")
)

// KubeconfigError is an error about a kubeconfig: Path names the file (or
// the files, joined by the OS's path list separator, when the error is about
// their merged content) and Err says what is wrong; Err wraps one of the
// sentinel errors.
type KubeconfigError struct {
	Path string
	Err  error
}

func (e *KubeconfigError) Error() string {
	return "kube: kubeconfig " + e.Path + ": " + strings.TrimPrefix(e.Err.Error(), "kube: ")
}

// Unwrap returns Err.
func (e *KubeconfigError) Unwrap() error { return e.Err }

// ExecError is an error of a credential plugin. It wraps Kind (one of
// ErrExecNotFound, ErrExecFailed, ErrExecTimeout, ErrExecBadOutput,
// ErrExecInteractive) and Err, the underlying cause if any. It never holds
// what the plugin printed on standard output, which carries secrets.
type ExecError struct {
	// Command is the plugin's command as configured.
	Command string
	// Kind is the sentinel error that classifies the failure.
	Kind error
	// Err is the underlying error, or nil.
	Err error
	// Detail is more text for a person: the install hint of a missing
	// plugin, what is wrong with the output.
	Detail string
	// ExitCode is the plugin's exit status when it exited with an error
	// (Kind is ErrExecFailed and Err is nil).
	ExitCode int
	// Stderr is the end of what the plugin wrote on standard error, at most
	// maxStderr bytes.
	Stderr string
}

func (e *ExecError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %q", e.Kind, e.Command)
	if e.Kind == ErrExecFailed && e.Err == nil {
		fmt.Fprintf(&b, " exited with status %d", e.ExitCode)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString("; stderr: ")
		b.WriteString(s)
	}
	return b.String()
}

// Unwrap returns Kind and Err.
func (e *ExecError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

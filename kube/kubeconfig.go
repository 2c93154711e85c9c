package kube

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/yaml"
)

// LoadOptions choose the kubeconfig files and the context to load. The zero
// value loads the current context of the default files.
type LoadOptions struct {
	// ExplicitPath is the kubeconfig file to read (kubectl's
	// --kubeconfig). It must exist. Empty means the files in $KUBECONFIG,
	// or else ~/.kube/config.
	ExplicitPath string
	// Context is the context to use (kubectl's --context); empty means
	// the current-context.
	Context string
	// Cluster and User, when set, replace the context's cluster and user
	// (kubectl's --cluster and --user).
	Cluster string
	User    string
	// Namespace, when set, replaces the context's namespace (kubectl's
	// --namespace).
	Namespace string
}

// RecommendedHome is the kubeconfig read when neither an explicit path
// nor $KUBECONFIG is given: ~/.kube/config.
var recommendedHome = func() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".kube", "config")
}

// LoadKubeconfig reads kubeconfig files the way kubectl does and returns
// the Config of opts.Context, or of current-context. The files are
// opts.ExplicitPath, else $KUBECONFIG's (merged with kubectl's precedence:
// the first file to define a name, or current-context, wins), else
// ~/.kube/config. Relative paths resolve against the file that names
// them; a -data field wins over its file. The namespace defaults to
// "default". Errors are *KubeconfigError values naming the files and
// wrapping one of the ErrNoKubeconfig... sentinels.
func LoadKubeconfig(opts LoadOptions) (*Config, error) {
	paths, err := kubeconfigPaths(opts.ExplicitPath)
	if err != nil {
		return nil, err
	}
	merged := &mergedKubeconfig{
		clusters: map[string]sourced[kubeCluster]{},
		users:    map[string]sourced[kubeUser]{},
		contexts: map[string]sourced[kubeContext]{},
	}
	var read []string
	for _, p := range paths {
		f, err := readKubeconfig(p)
		if errors.Is(err, fs.ErrNotExist) && opts.ExplicitPath == "" {
			continue // kubectl skips missing files listed in $KUBECONFIG
		}
		if err != nil {
			return nil, err
		}
		read = append(read, p)
		if err := merged.add(p, f); err != nil {
			return nil, err
		}
	}
	if len(read) == 0 {
		return nil, &KubeconfigError{Path: strings.Join(paths, string(os.PathListSeparator)), Err: fmt.Errorf("%w: none of the files exists", ErrNoKubeconfig)}
	}
	return merged.config(opts, strings.Join(read, string(os.PathListSeparator)))
}

// kubeconfigPaths lists the candidate files, first one first.
func kubeconfigPaths(explicit string) ([]string, error) {
	if explicit != "" {
		return []string{explicit}, nil
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		var paths []string
		seen := map[string]bool{}
		for _, p := range filepath.SplitList(env) {
			if p != "" && !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
		if len(paths) > 0 {
			return paths, nil
		}
	}
	home := recommendedHome()
	if home == "" {
		return nil, &KubeconfigError{Path: "~/.kube/config", Err: fmt.Errorf("%w: no home directory", ErrNoKubeconfig)}
	}
	return []string{home}, nil
}

// The kubeconfig file format (kind Config, apiVersion v1), the fields this
// package uses.
type kubeconfigFile struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string      `json:"name"`
		Cluster kubeCluster `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string   `json:"name"`
		User kubeUser `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string      `json:"name"`
		Context kubeContext `json:"context"`
	} `json:"contexts"`
}

type kubeCluster struct {
	Server                   string `json:"server"`
	TLSServerName            string `json:"tls-server-name"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify"`
	CertificateAuthority     string `json:"certificate-authority"`
	CertificateAuthorityData string `json:"certificate-authority-data"`
	ProxyURL                 string `json:"proxy-url"`
	DisableCompression       bool   `json:"disable-compression"`
	Extensions               []struct {
		Name      string          `json:"name"`
		Extension json.RawMessage `json:"extension"`
	} `json:"extensions"`
}

type kubeUser struct {
	ClientCertificate     string `json:"client-certificate"`
	ClientCertificateData string `json:"client-certificate-data"`
	ClientKey             string `json:"client-key"`
	ClientKeyData         string `json:"client-key-data"`
	Token                 string `json:"token"`
	TokenFile             string `json:"tokenFile"`
	Username              string `json:"username"`
	Password              string `json:"password"`
	AuthProvider          *struct {
		Name string `json:"name"`
	} `json:"auth-provider"`
	Exec *struct {
		Command            string              `json:"command"`
		Args               []string            `json:"args"`
		Env                []kubeExecEnv       `json:"env"`
		APIVersion         string              `json:"apiVersion"`
		InstallHint        string              `json:"installHint"`
		ProvideClusterInfo bool                `json:"provideClusterInfo"`
		InteractiveMode    ExecInteractiveMode `json:"interactiveMode"`
	} `json:"exec"`
}

// kubeExecEnv is an exec plugin's environment variable in a kubeconfig.
type kubeExecEnv struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type kubeContext struct {
	Cluster   string `json:"cluster"`
	User      string `json:"user"`
	Namespace string `json:"namespace"`
}

// readKubeconfig parses one file; an empty file is an empty kubeconfig.
func readKubeconfig(path string) (*kubeconfigFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		wrapped := err
		if errors.Is(err, fs.ErrNotExist) {
			wrapped = fmt.Errorf("%w: %w", ErrNoKubeconfig, err)
		}
		return nil, &KubeconfigError{Path: path, Err: wrapped}
	}
	js, err := yaml.ToJSON(data)
	if err != nil {
		return nil, &KubeconfigError{Path: path, Err: fmt.Errorf("%w: %v", ErrMalformedKubeconfig, err)}
	}
	var f kubeconfigFile
	if err := json.Unmarshal(js, &f); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return nil, &KubeconfigError{Path: path, Err: fmt.Errorf("%w: %s is a %s, want a %s",
				ErrMalformedKubeconfig, typ.Field, yamlKind(typ.Value), yamlKind(typ.Type.Kind().String()))}
		}
		return nil, &KubeconfigError{Path: path, Err: fmt.Errorf("%w: %v", ErrMalformedKubeconfig, err)}
	}
	return &f, nil
}

// yamlKind names a JSON value or Go kind as YAML calls it.
func yamlKind(s string) string {
	switch s {
	case "object", "struct", "map":
		return "mapping"
	case "array", "slice":
		return "list"
	case "bool":
		return "boolean"
	case "int", "float64", "number":
		return "number"
	}
	return s
}

// sourced is an entry of a kubeconfig with the file it came from.
type sourced[T any] struct {
	v    T
	file string
}

// mergedKubeconfig is the merge of several files.
type mergedKubeconfig struct {
	currentContext string
	clusters       map[string]sourced[kubeCluster]
	users          map[string]sourced[kubeUser]
	contexts       map[string]sourced[kubeContext]
}

// add merges file f, read from path, under the entries already there.
func (m *mergedKubeconfig) add(path string, f *kubeconfigFile) error {
	if m.currentContext == "" {
		m.currentContext = f.CurrentContext
	}
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	dup := func(kind, name string) error {
		return &KubeconfigError{Path: path, Err: fmt.Errorf("%w: %s %q is defined twice", ErrMalformedKubeconfig, kind, name)}
	}
	seen := map[string]bool{}
	for _, c := range f.Clusters {
		if seen[c.Name] {
			return dup("cluster", c.Name)
		}
		seen[c.Name] = true
		if _, ok := m.clusters[c.Name]; !ok {
			c.Cluster.CertificateAuthority = resolvePath(dir, c.Cluster.CertificateAuthority)
			m.clusters[c.Name] = sourced[kubeCluster]{c.Cluster, path}
		}
	}
	clear(seen)
	for _, u := range f.Users {
		if seen[u.Name] {
			return dup("user", u.Name)
		}
		seen[u.Name] = true
		if _, ok := m.users[u.Name]; !ok {
			u.User.ClientCertificate = resolvePath(dir, u.User.ClientCertificate)
			u.User.ClientKey = resolvePath(dir, u.User.ClientKey)
			u.User.TokenFile = resolvePath(dir, u.User.TokenFile)
			if u.User.Exec != nil && strings.ContainsRune(u.User.Exec.Command, '/') {
				u.User.Exec.Command = resolvePath(dir, u.User.Exec.Command)
			}
			m.users[u.Name] = sourced[kubeUser]{u.User, path}
		}
	}
	clear(seen)
	for _, c := range f.Contexts {
		if seen[c.Name] {
			return dup("context", c.Name)
		}
		seen[c.Name] = true
		if _, ok := m.contexts[c.Name]; !ok {
			m.contexts[c.Name] = sourced[kubeContext]{c.Context, path}
		}
	}
	return nil
}

// resolvePath makes a relative path absolute against dir.
func resolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// config builds the Config of the chosen context; files names the merged
// files for errors.
func (m *mergedKubeconfig) config(opts LoadOptions, files string) (*Config, error) {
	fail := func(path string, err error) (*Config, error) {
		return nil, &KubeconfigError{Path: path, Err: err}
	}
	name := opts.Context
	if name == "" {
		name = m.currentContext
	}
	if name == "" {
		return fail(files, ErrNoContext)
	}
	ctx, ok := m.contexts[name]
	if !ok {
		return fail(files, fmt.Errorf("%w: %q", ErrContextNotFound, name))
	}
	kctx := ctx.v
	if opts.Cluster != "" {
		kctx.Cluster = opts.Cluster
	}
	if opts.User != "" {
		kctx.User = opts.User
	}
	if kctx.Cluster == "" {
		return fail(ctx.file, fmt.Errorf("%w: context %q names no cluster", ErrClusterNotFound, name))
	}
	cl, ok := m.clusters[kctx.Cluster]
	if !ok {
		return fail(files, fmt.Errorf("%w: %q (of context %q)", ErrClusterNotFound, kctx.Cluster, name))
	}
	cfg := &Config{Namespace: kctx.Namespace}
	if opts.Namespace != "" {
		cfg.Namespace = opts.Namespace
	}
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultNamespace
	}
	if err := applyCluster(cfg, kctx.Cluster, &cl.v); err != nil {
		return fail(cl.file, err)
	}
	if kctx.User != "" {
		u, ok := m.users[kctx.User]
		if !ok {
			return fail(files, fmt.Errorf("%w: %q (of context %q)", ErrUserNotFound, kctx.User, name))
		}
		if err := applyUser(cfg, kctx.User, &u.v, &cl.v); err != nil {
			return fail(u.file, err)
		}
	}
	if err := cfg.validate(); err != nil {
		return fail(files, fmt.Errorf("%w (context %q)", err, name))
	}
	return cfg, nil
}

// applyCluster copies a cluster's settings into cfg.
func applyCluster(cfg *Config, name string, c *kubeCluster) error {
	if c.Server == "" {
		return fmt.Errorf("%w: cluster %q has no server", ErrNoServer, name)
	}
	cfg.Host = c.Server
	if !strings.Contains(cfg.Host, "://") {
		cfg.Host = "https://" + cfg.Host
	}
	cfg.TLS.ServerName = c.TLSServerName
	cfg.TLS.Insecure = c.InsecureSkipTLSVerify
	cfg.TLS.CAFile = c.CertificateAuthority
	cfg.ProxyURL = c.ProxyURL
	cfg.DisableCompression = c.DisableCompression
	var err error
	if cfg.TLS.CAData, err = decodeData("cluster", name, "certificate-authority-data", c.CertificateAuthorityData); err != nil {
		return err
	}
	if len(cfg.TLS.CAData) > 0 {
		cfg.TLS.CAFile = ""
	}
	return nil
}

// execExtension is the cluster extension passed to exec plugins.
const execExtension = "client.authentication.k8s.io/exec"

// applyUser copies a user's credentials into cfg; cluster is the context's
// cluster, whose exec extension a plugin may receive.
func applyUser(cfg *Config, name string, u *kubeUser, cluster *kubeCluster) error {
	if u.AuthProvider != nil && u.Exec == nil && u.Token == "" && u.TokenFile == "" {
		return fmt.Errorf("%w: user %q: auth-provider %q is not supported; use an exec credential plugin", ErrInvalidConfig, name, u.AuthProvider.Name)
	}
	cfg.BearerToken = u.Token
	cfg.BearerTokenFile = u.TokenFile
	cfg.Username = u.Username
	cfg.Password = u.Password
	cfg.TLS.CertFile = u.ClientCertificate
	cfg.TLS.KeyFile = u.ClientKey
	var err error
	if cfg.TLS.CertData, err = decodeData("user", name, "client-certificate-data", u.ClientCertificateData); err != nil {
		return err
	}
	if cfg.TLS.KeyData, err = decodeData("user", name, "client-key-data", u.ClientKeyData); err != nil {
		return err
	}
	if len(cfg.TLS.CertData) > 0 {
		cfg.TLS.CertFile = ""
	}
	if len(cfg.TLS.KeyData) > 0 {
		cfg.TLS.KeyFile = ""
	}
	if e := u.Exec; e != nil {
		x := &ExecConfig{
			Command:            e.Command,
			Args:               e.Args,
			APIVersion:         e.APIVersion,
			InstallHint:        e.InstallHint,
			InteractiveMode:    e.InteractiveMode,
			ProvideClusterInfo: e.ProvideClusterInfo,
		}
		for _, v := range e.Env {
			x.Env = append(x.Env, ExecEnvVar{Name: v.Name, Value: v.Value})
		}
		for _, ext := range cluster.Extensions {
			if ext.Name == execExtension {
				x.ClusterConfig = ext.Extension
			}
		}
		if err := x.validate(); err != nil {
			return fmt.Errorf("%w (user %q)", err, name)
		}
		cfg.Exec = x
	}
	return nil
}

// decodeData decodes a base64 -data field.
func decodeData(kind, name, field, s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q: %s: %v", ErrBadBase64, kind, name, field, err)
	}
	return b, nil
}

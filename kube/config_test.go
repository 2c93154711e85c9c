package kube

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestConfigNeverPrintsCredentials prints a Config full of secrets in every
// way a program might log it.
func TestConfigNeverPrintsCredentials(t *testing.T) {
	secrets := []string{"TOKEN-S3CRET", "PASSW0RD-S3CRET", "KEY-S3CRET", "CERT-S3CRET", "ARG-S3CRET", "ENV-S3CRET", "PROXYPW-S3CRET"}
	cfg := Config{
		Host:        "https://user:PASSW0RD-S3CRET@k.example:6443",
		Namespace:   "ns",
		BearerToken: "TOKEN-S3CRET",
		Username:    "alice",
		Password:    "PASSW0RD-S3CRET",
		TLS: TLSConfig{
			CAData:   []byte("CA"),
			CertData: []byte("CERT-S3CRET"),
			KeyData:  []byte("KEY-S3CRET"),
		},
		Exec: &ExecConfig{
			Command: "get-token", APIVersion: ExecAPIVersionV1,
			Args: []string{"--token=ARG-S3CRET"},
			Env:  []ExecEnvVar{{"SECRET", "ENV-S3CRET"}},
		},
		ProxyURL: "http://proxyuser:PROXYPW-S3CRET@proxy:3128",
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", cfg, "ptr", &cfg)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "cfg", cfg, "exec", cfg.Exec, "tls", cfg.TLS)
	outputs := map[string]string{
		"String":   cfg.String(),
		"%v":       fmt.Sprintf("%v", cfg),
		"%+v":      fmt.Sprintf("%+v", cfg),
		"%#v":      fmt.Sprintf("%#v", cfg),
		"%s ptr":   fmt.Sprintf("%s", &cfg),
		"%d":       fmt.Sprintf("%d", cfg),
		"%x":       fmt.Sprintf("%x", cfg),
		"slice":    fmt.Sprint([]Config{cfg}),
		"TLS %#v":  fmt.Sprintf("%#v", cfg.TLS),
		"exec %+v": fmt.Sprintf("%+v", cfg.Exec),
		"exec %#v": fmt.Sprintf("%#v", *cfg.Exec),
		"env %v":   fmt.Sprintf("%v", cfg.Exec.Env),
		"slog":     logs.String(),
	}
	for how, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) || strings.Contains(out, base64.StdEncoding.EncodeToString([]byte(s))) {
				t.Errorf("%s prints %s: %s", how, s, out)
			}
		}
	}
	want := `kube.Config{Host: https://user:xxxxx@k.example:6443, Namespace: ns, CA: inline, Proxy: http://proxyuser:xxxxx@proxy:3128, Auth: bearer token, basic auth (user "alice"), exec plugin "get-token", client certificate (inline)}`
	if got := cfg.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(logs.String(), `"auth":"bearer token, basic auth (user \"alice\"), exec plugin \"get-token\", client certificate (inline)"`) {
		t.Errorf("slog JSON: %s", logs.String())
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		host, want string
		err        error
	}{
		{"https://k:6443", "https://k:6443", nil},
		{"k.example:6443", "https://k.example:6443", nil},
		{"http://127.0.0.1:8080/prefix/", "http://127.0.0.1:8080/prefix/", nil},
		{"https://[fd00::1]:443", "https://[fd00::1]:443", nil},
		{"", "", ErrNoServer},
		{"ftp://k", "", ErrInvalidConfig},
		{"https://", "", ErrInvalidConfig},
	}
	for _, tt := range tests {
		u, err := (&Config{Host: tt.host}).BaseURL()
		if !errors.Is(err, tt.err) || (err == nil && u.String() != tt.want) {
			t.Errorf("BaseURL(%q) = %v, %v; want %s, %v", tt.host, u, err, tt.want, tt.err)
		}
	}
}

func TestConfigStringSummaries(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Host: "https://k"}, "kube.Config{Host: https://k, Namespace: , CA: system roots, Auth: none}"},
		{Config{Host: "https://k", Namespace: "n", TLS: TLSConfig{CAFile: "/ca", ServerName: "s", CertFile: "/c", KeyFile: "/k"}, BearerTokenFile: "/t"},
			"kube.Config{Host: https://k, Namespace: n, CA: /ca, ServerName: s, Auth: token file /t, client certificate /c}"},
		{Config{Host: "https://k", TLS: TLSConfig{Insecure: true}}, "kube.Config{Host: https://k, Namespace: , CA: insecure (not verified), Auth: none}"},
	}
	for _, tt := range tests {
		if got := tt.cfg.String(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

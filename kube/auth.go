package kube

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// credentials produce the Authorization header of a request. authorize
// returns the header's value ("" for none) and, when the credential can be
// renewed, a function to call when the server answers 401 Unauthorized.
type credentials interface {
	authorize(ctx context.Context) (header string, onUnauthorized func(), err error)
}

// staticCredentials is a fixed header: a bearer token or basic auth.
type staticCredentials string

func (s staticCredentials) authorize(context.Context) (string, func(), error) {
	return string(s), nil, nil
}

// bearer returns the credentials of a fixed token.
func bearer(token string) staticCredentials { return staticCredentials("Bearer " + token) }

// basicAuth returns the credentials of a user name and password.
func basicAuth(user, password string) staticCredentials {
	return staticCredentials("Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password)))
}

// tokenFileCredentials read the bearer token from a file, again whenever
// it changes (see reloadingFiles) and after a 401.
type tokenFileCredentials struct {
	path  string
	token *reloadingFiles[string]
}

// newTokenFileCredentials reads path once and returns credentials that
// keep reading it; now nil means time.Now.
func newTokenFileCredentials(path string, now func() time.Time) (*tokenFileCredentials, error) {
	c := &tokenFileCredentials{path: path, token: newReloadingFiles(parseTokenFile, now, path)}
	if _, err := c.token.get(); err != nil {
		return nil, fmt.Errorf("kube: token file: %w", err)
	}
	return c, nil
}

// parseTokenFile trims the token; an empty one is an error.
func parseTokenFile(data [][]byte) (string, error) {
	t := strings.TrimSpace(string(data[0]))
	if t == "" {
		return "", errors.New("empty token")
	}
	return t, nil
}

func (c *tokenFileCredentials) authorize(context.Context) (string, func(), error) {
	t, err := c.token.get()
	if err != nil {
		return "", nil, fmt.Errorf("kube: token file %s: %w", c.path, err)
	}
	return "Bearer " + t, c.token.invalidate, nil
}

// execCredentials take the token, if any, of an exec plugin's credential.
type execCredentials struct{ auth *execAuth }

func (c execCredentials) authorize(ctx context.Context) (string, func(), error) {
	cred, err := c.auth.credential(ctx)
	if err != nil {
		return "", nil, err
	}
	onUnauthorized := func() { c.auth.invalidate(cred.gen) }
	if cred.token == "" {
		return "", onUnauthorized, nil
	}
	return "Bearer " + cred.token, onUnauthorized, nil
}

// authTransport adds the User-Agent and the Authorization header to the
// requests that have none, and tells renewable credentials about a 401.
// The request that got the 401 is not retried: the next one carries the
// renewed credential.
type authTransport struct {
	base      http.RoundTripper
	creds     credentials // nil: no Authorization header
	userAgent string
}

// RoundTrip implements http.RoundTripper. It leaves req unchanged and
// sends a copy.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	setUA := req.Header.Get("User-Agent") == "" && t.userAgent != ""
	setAuth := req.Header.Get("Authorization") == "" && t.creds != nil
	if !setUA && !setAuth {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	if setUA {
		r.Header.Set("User-Agent", t.userAgent)
	}
	var onUnauthorized func()
	if setAuth {
		header, on401, err := t.creds.authorize(req.Context())
		if err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		onUnauthorized = on401
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && onUnauthorized != nil {
		onUnauthorized()
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of the underlying
// transport; http.Client.CloseIdleConnections calls it.
func (t *authTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

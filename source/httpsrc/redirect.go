package httpsrc

import (
	"errors"
	"net/http"
	"slices"
)

// addedHeadersKey is the context key of a request's addedHeaders.
type addedHeadersKey struct{}

// addedHeaders are the names of the headers Options.Header set or changed
// on a request: its credentials, which a redirect must not carry to
// another host.
type addedHeaders struct{ names []string }

// note records the headers that differ between before and after.
func (a *addedHeaders) note(before, after http.Header) {
	for k, v := range after {
		if !slices.Equal(before[k], v) {
			a.names = append(a.names, k)
		}
	}
}

// sensitiveHeaders are removed on a redirect to another origin whoever set
// them (net/http keeps them on a subdomain).
var sensitiveHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// withRedirectCheck returns a copy of c (http.DefaultClient if nil) whose
// CheckRedirect removes, on a redirect to another origin (scheme and
// host:port) than the first request's, the headers Options.Header set and
// the usual credentials, and then applies c's own CheckRedirect (or
// net/http's default: at most 10 redirects). The caller's Client is not
// changed.
func withRedirectCheck(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
			if a, ok := req.Context().Value(addedHeadersKey{}).(*addedHeaders); ok {
				for _, k := range a.names {
					req.Header.Del(k)
				}
			}
			for _, k := range sensitiveHeaders {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cc
}

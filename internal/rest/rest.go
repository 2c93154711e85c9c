// Package rest is the small JSON-over-HTTP client that leaderelection and
// events write through until the typed write client of issue 21 is on main:
// one request, a JSON body in, a JSON object or a *kube.APIError out.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxBody bounds what is read of a response.
const maxBody = 4 << 20

// Client sends requests to one API server.
type Client struct {
	http    *http.Client
	base    string
	limiter *kube.RateLimiter
}

// New returns a Client for cfg's server, sending through hc (nil means
// cfg.HTTPClient()) and pacing requests with limiter (nil means none).
func New(cfg *kube.Config, hc *http.Client, limiter *kube.RateLimiter) (*Client, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil Config", kube.ErrInvalidConfig)
	}
	u, err := cfg.BaseURL()
	if err != nil {
		return nil, err
	}
	if hc == nil {
		if hc, err = cfg.HTTPClient(); err != nil {
			return nil, err
		}
	}
	return &Client{http: hc, base: strings.TrimSuffix(u.String(), "/"), limiter: limiter}, nil
}

// Path joins an API path: /api/v1 for the core group, /apis/GROUP/VERSION
// otherwise, then namespaces/NS (when ns is set), the resource, and the
// name (when set), each escaped.
func Path(group, version, ns, resource, name string) string {
	var b strings.Builder
	if group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(url.PathEscape(group))
		b.WriteByte('/')
	}
	b.WriteString(url.PathEscape(version))
	if ns != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(ns))
	}
	b.WriteByte('/')
	b.WriteString(url.PathEscape(resource))
	if name != "" {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(name))
	}
	return b.String()
}

// Do sends method to path with body (marshalled to JSON, or nil) in
// contentType ("" means application/json), and decodes a 2xx answer into
// out (unless nil). Any other answer is a *kube.APIError with op as its Op,
// decoded from the Status the server sent when it sent one.
func (c *Client) Do(ctx context.Context, op, method, path, contentType string, body, out any) error {
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx); err != nil {
			return err
		}
	}
	var rd io.Reader
	if body != nil {
		var data []byte
		switch b := body.(type) {
		case []byte:
			data = b
		default:
			var err error
			if data, err = json.Marshal(body); err != nil {
				return fmt.Errorf("kube: %s %s: encoding: %w", op, path, err)
			}
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("kube: %s %s: %w", op, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("kube: %s %s: reading the answer: %w", op, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return apiError(op, path, resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	if out == nil {
		return nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return &kube.ContentTypeError{Op: op, Path: path, Code: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &kube.DecodeError{Op: op, Resource: path, Item: -1, Err: err}
	}
	return nil
}

// apiError builds the error of a non-2xx answer; a body that is not a
// Status is not quoted (it may hold an object).
func apiError(op, path string, code int, contentType string, body []byte) error {
	e := &kube.APIError{Op: op, Path: path, Code: code}
	var st metav1.Status
	if strings.HasPrefix(contentType, "application/json") && json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		e.Status = st
		e.Reason = st.Reason
		e.Message = st.Message
		if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
			e.RetryAfter = secs(st.Details.RetryAfterSeconds)
		}
	} else if contentType != "" {
		e.Message = "a " + strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]) + " body that is not a Status"
	}
	return e
}

// IsConflict reports whether err is a 409 Conflict answer: an update whose
// resourceVersion is not the current one, or a create of a name that
// exists.
func IsConflict(err error) bool {
	var e *kube.APIError
	return errors.As(err, &e) && (e.Code == http.StatusConflict || e.Reason == metav1.StatusReasonConflict || e.Reason == metav1.StatusReasonAlreadyExists)
}

// IsNotFound reports whether err is a 404 Not Found answer.
func IsNotFound(err error) bool { return errors.Is(err, kube.ErrNotFound) }

func secs(n int32) time.Duration { return time.Duration(n) * time.Second }

package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/informer-go/informer/internal/kubewire"
)

// call is one request of a Client.
type call struct {
	op          string // "get", "create", ... for errors
	method      string
	path        string // below the server's base path, escaped
	query       url.Values
	body        []byte // nil for none
	contentType string // of body
	accept      string
	object      string // "namespace/name" for errors; "" for a collection
	// write: a failed connection or a 5xx leaves the outcome unknown, and
	// the request is never repeated after one.
	write bool
}

// describe names the call for errors: "create configmaps/v1 ns/name".
func (c *Client[T]) describe(k *call) string {
	s := k.op + " " + c.name
	if k.object != "" {
		s += " " + k.object
	}
	return s
}

// retryDelay is the wait before repeating a call after a 429 without
// Retry-After, or a Get or List after a failure, before jitter.
const retryDelay = time.Second

// send sends k until it gets an answer that is not to be repeated, and
// returns a 2xx response for the caller to read and close. Everything
// else is an error: *APIError for the server's refusals; for a write
// whose request may have reached the server, an error matching
// ErrUnknownOutcome.
func (c *Client[T]) send(ctx context.Context, k *call) (*http.Response, error) {
	target, errPath := c.base+k.path, c.basePath+k.path
	if len(k.query) > 0 {
		q := "?" + k.query.Encode()
		target, errPath = target+q, errPath+q
	}
	m := &c.opts.Metrics
	timed := m.timed()
	var start time.Time
	for attempt := 0; ; attempt++ {
		if timed {
			start = time.Now()
		}
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, fmt.Errorf("kube: %s: waiting for the rate limiter: %w", c.describe(k), err)
		}
		if timed {
			m.waited(k.method, start)
			start = time.Now()
		}
		req, err := c.newRequest(ctx, k, target)
		if err != nil {
			return nil, err
		}
		resp, err := c.client.Do(req)
		if timed {
			m.request(k.method, resp, start)
		}
		if err != nil {
			if err := c.afterTransportError(ctx, k, attempt, err); err != nil {
				return nil, err
			}
			m.retry(k.method, 0)
			continue
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return resp, nil
		}
		e := kubewire.ReadAPIError(k.op, errPath, resp, c.limiter.HoldFor, !k.write)
		resp.Body.Close()
		e.Object = k.object
		if k.write {
			kubewire.MarkWrite(e)
		}
		if err := c.afterRefusal(ctx, k, attempt, e); err != nil {
			return nil, err
		}
		m.retry(k.method, e.Code)
	}
}

// newRequest builds the HTTP request of one attempt at k.
func (c *Client[T]) newRequest(ctx context.Context, k *call, target string) (*http.Request, error) {
	var body io.Reader
	if k.body != nil {
		body = bytes.NewReader(k.body)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, target, body)
	if err != nil {
		return nil, fmt.Errorf("kube: %s: %w", c.describe(k), err)
	}
	req.Header.Set("Accept", k.accept)
	if k.contentType != "" {
		req.Header.Set("Content-Type", k.contentType)
	}
	if c.gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	if c.opts.UserAgent != "" {
		req.Header.Set("User-Agent", c.opts.UserAgent)
	}
	return req, nil
}

// afterTransportError decides what follows a request that got no answer:
// nil to send it again (after a wait), or the error to return.
func (c *Client[T]) afterTransportError(ctx context.Context, k *call, attempt int, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = kubewire.RedactedURL(ue.URL)
	}
	switch {
	case errors.Is(err, ErrRedirect):
		// Refused by checkRedirect before following it: the first
		// request was answered with a redirect, not done.
		return fmt.Errorf("kube: %s: %w", c.describe(k), err)
	case k.write:
		// Sent, perhaps only in part: net/http repeats by itself only a
		// request of which nothing was written.
		return fmt.Errorf("kube: %s: %w: %w", c.describe(k), ErrUnknownOutcome, errors.Join(kubewire.ContextError(ctx), err))
	case kubewire.ContextError(ctx) != nil:
		return fmt.Errorf("kube: %s: %w", c.describe(k), kubewire.ContextError(ctx))
	case attempt < c.opts.MaxRetries:
		if err := c.sleep(ctx, retryDelay); err != nil {
			return fmt.Errorf("kube: %s: %w", c.describe(k), err)
		}
		return nil
	}
	return fmt.Errorf("kube: %s: %w", c.describe(k), err)
}

// afterRefusal decides what follows the server's refusal e of k: nil to
// send it again (after the limiter's or its own wait), or the error to
// return.
func (c *Client[T]) afterRefusal(ctx context.Context, k *call, attempt int, e *APIError) error {
	if attempt >= c.opts.MaxRetries || !c.repeatable(k, e) {
		return e
	}
	switch {
	case e.RetryAfter > maxRetryAfterHold:
		// A longer wait than the limiter holds is the server's to ask;
		// the caller decides.
		return e
	case e.RetryAfter == 0:
		// Without Retry-After the limiter holds nothing back: wait here.
		if err := c.sleep(ctx, retryDelay); err != nil {
			return errors.Join(e, err)
		}
	}
	return nil
}

// repeatable reports whether a call answered with e may be sent again: any
// call after a 429 (the server refused it before doing it), a read after
// 502, 503, 504 or another 5xx with Retry-After.
func (c *Client[T]) repeatable(k *call, e *APIError) bool {
	if e.Code == http.StatusTooManyRequests {
		return true
	}
	if k.write {
		return false
	}
	switch e.Code {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return e.Code >= 500 && e.RetryAfter > 0
}

// sleep waits about d (with up to 25% jitter) or until ctx ends.
func (c *Client[T]) sleep(ctx context.Context, d time.Duration) error {
	d += time.Duration(float64(d) * 0.25 * rand.Float64())
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return kubewire.ContextError(ctx)
	}
}

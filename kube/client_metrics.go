package kube

import (
	"net/http"
	"time"
)

// ClientMetrics receives a Client's measurements through callbacks, so
// that any metrics system can record them without this package depending
// on one (metrics/prometheus records them as client-go's
// rest_client_requests_total, rest_client_request_duration_seconds,
// rest_client_request_retries_total and
// rest_client_rate_limiter_duration_seconds). Nil fields are not called;
// with none set nothing is measured. Callbacks run on the goroutine of
// the call, never under a lock; they must be quick and safe for
// concurrent use.
type ClientMetrics struct {
	// Request is called after each request sent (each attempt of a
	// call), with its verb (the HTTP method: GET, POST, PUT, PATCH,
	// DELETE), the status code (0 when no answer came: a failed
	// connection) and how long it took until the answer's headers.
	Request func(verb string, code int, d time.Duration)
	// Retry is called before a call is sent again, with its verb and the
	// status code that made it repeat (429, 503...; 0 after a failed
	// connection).
	Retry func(verb string, code int)
	// RateLimiterWait is called with how long each request waited for
	// the rate limiter (and a Retry-After), 0 included.
	RateLimiterWait func(verb string, d time.Duration)
}

// timed reports whether a callback needs the clock.
func (m *ClientMetrics) timed() bool { return m.Request != nil || m.RateLimiterWait != nil }

func (m *ClientMetrics) request(verb string, resp *http.Response, start time.Time) {
	if m.Request == nil {
		return
	}
	code := 0
	if resp != nil {
		code = resp.StatusCode
	}
	m.Request(verb, code, time.Since(start))
}

func (m *ClientMetrics) retry(verb string, code int) {
	if m.Retry != nil {
		m.Retry(verb, code)
	}
}

func (m *ClientMetrics) waited(verb string, start time.Time) {
	if m.RateLimiterWait != nil {
		m.RateLimiterWait(verb, time.Since(start))
	}
}

package kube

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// TestRetryAfterHoldsBackNextRequest: a 429 or 5xx answer that asks for a
// wait (the Retry-After header, or the Status's retryAfterSeconds) holds
// the Source's next request back that long; the error's RetryAfter says
// it. Another status with Retry-After, and a 5xx without one, hold nothing.
func TestRetryAfterHoldsBackNextRequest(t *testing.T) {
	statusWithRetry := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`
	tests := []struct {
		name   string
		code   int
		header string // Retry-After
		body   string
		ct     string
		want   time.Duration // the error's RetryAfter
		held   time.Duration // the next request's wait
	}{
		{"503 with a Retry-After header, no Status", 503, "3", "upstream busy", "text/plain", 3 * time.Second, 3 * time.Second},
		{"500 with a Retry-After header", 500, "2", kubefixture.StatusJSON(500, "InternalError", "boom"), "application/json", 2 * time.Second, 2 * time.Second},
		{"429 with retryAfterSeconds in its Status", 429, "", statusWithRetry, "application/json", time.Second, time.Second},
		{"500 without Retry-After", 500, "", kubefixture.StatusJSON(500, "InternalError", "boom"), "application/json", 0, 0},
		{"400 with a Retry-After header", 400, "5", kubefixture.StatusJSON(400, "BadRequest", "no"), "application/json", 5 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var calls atomic.Int32
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if calls.Add(1) == 1 {
						if tt.header != "" {
							w.Header().Set("Retry-After", tt.header)
						}
						w.Header().Set("Content-Type", tt.ct)
						w.WriteHeader(tt.code)
						io.WriteString(w, tt.body)
						return
					}
					serveJSON(200, kubefixture.ListJSON("1", ""))(w, r)
				})
				src := inMemorySource(t, h, Options{QPS: -1})
				start := time.Now()
				_, err := src.List(t.Context(), informer.ListOptions{})
				var ae *kube.APIError
				if !errors.As(err, &ae) || ae.Code != tt.code {
					t.Fatalf("first list: %v, want an *APIError %d", err, tt.code)
				}
				if ae.RetryAfter != tt.want {
					t.Errorf("RetryAfter %v, want %v", ae.RetryAfter, tt.want)
				}
				if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d != tt.held {
					t.Errorf("the next list came after %v, want %v", d, tt.held)
				}
			})
		})
	}
}

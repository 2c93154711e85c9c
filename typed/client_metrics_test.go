package typed_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/kube"
)

// A Client's metrics: each request with its verb and status code, the
// retry after a 429 and after a 503, and a rate limiter wait per request;
// counts exact.
func TestClientMetrics(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch n.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`)
			return
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","code":503}`)
			return
		}
		fmt.Fprint(w, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"ns","name":"a","resourceVersion":"1"}}`)
	}))
	defer srv.Close()
	var mu sync.Mutex
	var got []string
	waits := 0
	note := func(format string, args ...any) {
		mu.Lock()
		got = append(got, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	c, err := kube.NewClient[*ConfigMap](&kube.Config{Host: srv.URL}, kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, kube.ClientOptions{
		Metrics: kube.ClientMetrics{
			Request:         func(verb string, code int, d time.Duration) { note("%s %d", verb, code) },
			Retry:           func(verb string, code int) { note("retry %s %d", verb, code) },
			RateLimiterWait: func(string, time.Duration) { mu.Lock(); waits++; mu.Unlock() },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Get(context.Background(), "ns", "a", kube.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "[GET 429 retry GET 429 GET 503 retry GET 503 GET 200]"
	if fmt.Sprint(got) != want || waits != 3 {
		t.Errorf("callbacks %v, %d waits; want %s and 3", got, waits, want)
	}
}

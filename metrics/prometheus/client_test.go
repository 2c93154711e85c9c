package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/informer-go/informer/kube"
	infprom "github.com/informer-go/informer/metrics/prometheus"
	prom "github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type object struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
}

// A Client's requests under client-go's rest_client_* names: a 429, its
// retry and the 200 after it.
func TestClientScraped(t *testing.T) {
	var n atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`)
			return
		}
		fmt.Fprint(w, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"ns","name":"a","resourceVersion":"1"}}`)
	}))
	defer api.Close()
	reg := prom.NewRegistry()
	m, err := infprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kube.NewClient[*object](&kube.Config{Host: api.URL}, kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		kube.ClientOptions{Metrics: m.Client("api"), DisableKindCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Get(context.Background(), "ns", "a", kube.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(infprom.Handler(reg, infprom.Checks{}))
	defer srv.Close()
	fams := scrape(t, srv)
	for _, c := range []struct {
		name, labels string
		want         float64
	}{
		{"rest_client_requests_total", "code=429,host=api,method=GET", 1},
		{"rest_client_requests_total", "code=200,host=api,method=GET", 1},
		{"rest_client_request_retries_total", "code=429,host=api,verb=GET", 1},
		{"rest_client_request_duration_seconds", "host=api,verb=GET", 2},
		{"rest_client_rate_limiter_duration_seconds", "host=api,verb=GET", 2},
	} {
		if got := value(t, fams, c.name, c.labels); got != c.want {
			t.Errorf("%s{%s} = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

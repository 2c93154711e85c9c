package prometheus

import (
	"strconv"
	"time"

	"github.com/informer-go/informer/kube"
	prom "github.com/prometheus/client_golang/prometheus"
)

// clientCollectors are client-go's rest_client_* metrics.
type clientCollectors struct {
	requests *prom.CounterVec
	latency  *prom.HistogramVec
	retries  *prom.CounterVec
	limiter  *prom.HistogramVec
}

func newClientCollectors() clientCollectors {
	latencyBuckets := []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0}
	return clientCollectors{
		requests: prom.NewCounterVec(prom.CounterOpts{Name: "rest_client_requests_total", Help: "Number of HTTP requests, partitioned by status code, method, and host."}, []string{"code", "method", "host"}),
		latency:  prom.NewHistogramVec(prom.HistogramOpts{Name: "rest_client_request_duration_seconds", Help: "Request latency in seconds. Broken down by verb, and host.", Buckets: latencyBuckets}, []string{"verb", "host"}),
		retries:  prom.NewCounterVec(prom.CounterOpts{Name: "rest_client_request_retries_total", Help: "Number of request retries, partitioned by status code, verb, and host."}, []string{"code", "verb", "host"}),
		limiter:  prom.NewHistogramVec(prom.HistogramOpts{Name: "rest_client_rate_limiter_duration_seconds", Help: "Client side rate limiter latency in seconds. Broken down by verb, and host.", Buckets: latencyBuckets}, []string{"verb", "host"}),
	}
}

func (c clientCollectors) all() []prom.Collector {
	return []prom.Collector{c.requests, c.latency, c.retries, c.limiter}
}

// codeLabel is client-go's code label: the status code, or "<error>"
// when no answer came.
func codeLabel(code int) string {
	if code == 0 {
		return "<error>"
	}
	return strconv.Itoa(code)
}

// Client returns the callbacks of a kube.Client (kube.ClientOptions.Metrics)
// of the server host, recorded as client-go's rest_client_requests_total,
// rest_client_request_duration_seconds, rest_client_request_retries_total
// and rest_client_rate_limiter_duration_seconds; 429s are the requests
// with code="429".
func (m *Metrics) Client(host string) kube.ClientMetrics {
	c := &m.client
	return kube.ClientMetrics{
		Request: func(verb string, code int, d time.Duration) {
			c.requests.WithLabelValues(codeLabel(code), verb, host).Inc()
			c.latency.WithLabelValues(verb, host).Observe(d.Seconds())
		},
		Retry: func(verb string, code int) { c.retries.WithLabelValues(codeLabel(code), verb, host).Inc() },
		RateLimiterWait: func(verb string, d time.Duration) {
			c.limiter.WithLabelValues(verb, host).Observe(d.Seconds())
		},
	}
}

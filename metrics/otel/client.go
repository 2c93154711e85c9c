package otel

import (
	"time"

	"github.com/informer-go/informer/kube"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// clientInstruments are the instruments of kube.Client metrics.
type clientInstruments struct {
	requests, retries metric.Int64Counter
	latency, limiter  metric.Float64Histogram
}

func newClientInstruments(meter metric.Meter) (clientInstruments, []error) {
	var c clientInstruments
	var e1, e2, e3, e4 error
	c.requests, e1 = meter.Int64Counter("rest_client.requests", metric.WithDescription("HTTP requests, by status code, method and host"))
	c.retries, e2 = meter.Int64Counter("rest_client.request.retries", metric.WithDescription("Request retries, by status code, verb and host"))
	c.latency, e3 = meter.Float64Histogram("rest_client.request.duration", metric.WithDescription("Request latency"), metric.WithUnit("s"))
	c.limiter, e4 = meter.Float64Histogram("rest_client.rate_limiter.duration", metric.WithDescription("Client side rate limiter latency"), metric.WithUnit("s"))
	return c, []error{e1, e2, e3, e4}
}

// Client returns the callbacks of a kube.Client of the server host
// (kube.ClientOptions.Metrics); a request without an answer has code 0.
func (m *Metrics) Client(host string) kube.ClientMetrics {
	c := &m.client
	return kube.ClientMetrics{
		Request: func(verb string, code int, d time.Duration) {
			c.requests.Add(ctx, 1, metric.WithAttributes(attribute.Int("code", code), attribute.String("method", verb), attribute.String("host", host)))
			c.latency.Record(ctx, d.Seconds(), metric.WithAttributes(attribute.String("verb", verb), attribute.String("host", host)))
		},
		Retry: func(verb string, code int) {
			c.retries.Add(ctx, 1, metric.WithAttributes(attribute.Int("code", code), attribute.String("verb", verb), attribute.String("host", host)))
		},
		RateLimiterWait: func(verb string, d time.Duration) {
			c.limiter.Record(ctx, d.Seconds(), metric.WithAttributes(attribute.String("verb", verb), attribute.String("host", host)))
		},
	}
}

// Package metrics is the root of the metrics adapters, a module of its
// own so that the informer module depends on no metrics system: package
// prometheus records the library's metrics callbacks into a Prometheus
// registry (client_golang) under client-go's and controller-runtime's
// names and serves /healthz, /readyz and /metrics; package otel records
// them as OpenTelemetry instruments.
package metrics

package otel

import (
	"context"
	"time"

	"github.com/informer-go/informer"
	kubesrc "github.com/informer-go/informer/source/kube"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// informerInstruments are the informers' instruments.
type informerInstruments struct {
	events, skipped, lists, items, restarts, panics metric.Int64Counter
	decodedObjects, decodedBytes, decodeFailures    metric.Int64Counter
	latency                                         metric.Float64Histogram
	storeItems, synced, pending                     metric.Int64ObservableGauge
	lag                                             metric.Float64ObservableGauge
}

func newInformerInstruments(meter metric.Meter) (informerInstruments, []error) {
	var i informerInstruments
	var errs []error
	c := func(name, desc string) metric.Int64Counter {
		v, err := meter.Int64Counter(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return v
	}
	g := func(name, desc string) metric.Int64ObservableGauge {
		v, err := meter.Int64ObservableGauge(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return v
	}
	i.events = c("informer.events", "Watch events received, by type")
	i.skipped = c("informer.skipped_events", "Watch events skipped as unreadable (decode failures)")
	i.lists = c("informer.lists", "Lists and streaming lists started, by reason")
	i.items = c("informer.list_items", "Objects received in list pages")
	i.restarts = c("informer.watch_restarts", "Watches started again after one ended, by reason")
	i.panics = c("informer.handler_panics", "Panics recovered from a handler")
	i.decodedObjects = c("informer.decoded_objects", "Objects a Kubernetes Source decoded, by op (list, watch)")
	i.decodedBytes = c("informer.decoded_bytes", "Bytes a Kubernetes Source decoded, by op (list, watch)")
	i.decodeFailures = c("informer.decode_failures", "Objects or events a Kubernetes Source could not decode, by op")
	var err error
	i.latency, err = meter.Float64Histogram("informer.processing_latency", metric.WithDescription("How long a handler takes to process a notification (sampled)"), metric.WithUnit("s"))
	errs = append(errs, err)
	i.storeItems = g("informer.store_items", "Objects in the informer's cache")
	i.synced = g("informer.synced", "1 once the informer's first list is in its cache")
	i.pending = g("informer.pending_notifications", "Notifications a handler has yet to process")
	i.lag, err = meter.Float64ObservableGauge("informer.lag", metric.WithDescription("Time since the source last confirmed the cache current"), metric.WithUnit("s"))
	errs = append(errs, err)
	return i, errs
}

// Informer returns the callbacks of the informer called name, for its
// Options.Metrics; WatchInformer and WatchHandler add the gauges.
func (m *Metrics) Informer(name string) informer.Metrics {
	i := &m.informer
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name)))
	var byType [informer.EventInitialEventsEnd + 1]metric.AddOption
	for t := range byType {
		byType[t] = metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name), attribute.String("type", informer.EventType(t).String())))
	}
	return informer.Metrics{
		Event: func(t informer.EventType) {
			if int(t) < len(byType) {
				i.events.Add(ctx, 1, byType[t])
			}
		},
		Skipped: func() { i.skipped.Add(ctx, 1, attrs) },
		List: func(streaming bool, reason string) {
			i.lists.Add(ctx, 1, metric.WithAttributes(attribute.String("name", name), attribute.Bool("streaming", streaming), attribute.String("reason", reason)))
		},
		ListItems: func(n int) { i.items.Add(ctx, int64(n), attrs) },
		WatchRestart: func(reason string) {
			i.restarts.Add(ctx, 1, metric.WithAttributes(attribute.String("name", name), attribute.String("reason", reason)))
		},
		HandlerLatency: func(handler string, d time.Duration) {
			i.latency.Record(ctx, d.Seconds(), metric.WithAttributes(attribute.String("name", name), attribute.String("handler", handler)))
		},
		HandlerPanic: func(handler string) {
			i.panics.Add(ctx, 1, metric.WithAttributes(attribute.String("name", name), attribute.String("handler", handler)))
		},
	}
}

// Source returns the callbacks of a Kubernetes Source (source/kube's
// Options.Metrics) of the informer called name:
// informer.decoded_objects, informer.decoded_bytes and
// informer.decode_failures, with attribute op "list" or "watch".
func (m *Metrics) Source(name string) kubesrc.Metrics {
	i := &m.informer
	byOp := func(op string) metric.AddOption {
		return metric.WithAttributes(attribute.String("name", name), attribute.String("op", op))
	}
	return kubesrc.Metrics{
		Decoded: func(op string, objects int, bytes int64) {
			o := byOp(op)
			i.decodedObjects.Add(ctx, int64(objects), o)
			i.decodedBytes.Add(ctx, bytes, o)
		},
		DecodeFailed: func(op string) { i.decodeFailures.Add(ctx, 1, byOp(op)) },
	}
}

// WatchInformer observes the gauges of inf, the informer called name, at
// each collection: informer.store_items, informer.lag (seconds since the
// source last confirmed the cache current) and informer.synced. It
// returns a function that stops observing them.
func WatchInformer[T informer.Object](m *Metrics, name string, inf *informer.Informer[T]) (remove func(), err error) {
	i := &m.informer
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name)))
	reg, err := m.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		h := inf.Health()
		var synced int64
		if h.Synced {
			synced = 1
		}
		o.ObserveInt64(i.storeItems, int64(inf.Lister().Len()), attrs)
		o.ObserveInt64(i.synced, synced, attrs)
		o.ObserveFloat64(i.lag, h.SinceActivity.Seconds(), attrs)
		return nil
	}, i.storeItems, i.synced, i.lag)
	if err != nil {
		return nil, err
	}
	return func() { _ = reg.Unregister() }, nil
}

// WatchHandler observes informer.pending_notifications of reg's handler
// at each collection. It returns a function that stops observing it.
func WatchHandler[T informer.Object](m *Metrics, name, handler string, reg *informer.Registration[T]) (remove func(), err error) {
	i := &m.informer
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name), attribute.String("handler", handler)))
	r, err := m.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(i.pending, int64(reg.Pending()), attrs)
		return nil
	}, i.pending)
	if err != nil {
		return nil, err
	}
	return func() { _ = r.Unregister() }, nil
}

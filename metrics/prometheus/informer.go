package prometheus

import (
	"sync"
	"time"

	"github.com/informer-go/informer"
	kubesrc "github.com/informer-go/informer/source/kube"
	prom "github.com/prometheus/client_golang/prometheus"
)

// informerCollectors are the informers' metrics: counters fed by the
// callbacks, and gauges read from the informers and registrations at
// scrape time (gauges).
type informerCollectors struct {
	events   *prom.CounterVec
	skipped  *prom.CounterVec
	lists    *prom.CounterVec
	items    *prom.CounterVec
	restarts *prom.CounterVec
	latency  *prom.HistogramVec
	panics   *prom.CounterVec
	gauges   *stateGauges
	objects  *prom.CounterVec
	bytes    *prom.CounterVec
	failures *prom.CounterVec
}

func newInformerCollectors() informerCollectors {
	name := []string{"name"}
	handler := []string{"name", "handler"}
	return informerCollectors{
		events:   prom.NewCounterVec(prom.CounterOpts{Name: "informer_events_total", Help: "Watch events received, by type"}, []string{"name", "type"}),
		skipped:  prom.NewCounterVec(prom.CounterOpts{Name: "informer_skipped_events_total", Help: "Watch events skipped as unreadable (decode failures)"}, name),
		lists:    prom.NewCounterVec(prom.CounterOpts{Name: "informer_lists_total", Help: "Lists and streaming lists started, by reason"}, []string{"name", "streaming", "reason"}),
		items:    prom.NewCounterVec(prom.CounterOpts{Name: "informer_list_items_total", Help: "Objects received in list pages"}, name),
		restarts: prom.NewCounterVec(prom.CounterOpts{Name: "informer_watch_restarts_total", Help: "Watches started again after one ended, by reason"}, []string{"name", "reason"}),
		latency:  prom.NewHistogramVec(prom.HistogramOpts{Name: "informer_processing_latency_seconds", Help: "How long a handler takes to process a notification (sampled)", Buckets: durationBuckets}, handler),
		panics:   prom.NewCounterVec(prom.CounterOpts{Name: "informer_handler_panics_total", Help: "Panics recovered from a handler"}, handler),
		gauges:   &stateGauges{},
		objects:  prom.NewCounterVec(prom.CounterOpts{Name: "informer_decoded_objects_total", Help: "Objects decoded by the source, by operation"}, []string{"name", "op"}),
		bytes:    prom.NewCounterVec(prom.CounterOpts{Name: "informer_decoded_bytes_total", Help: "Bytes of response bodies decoded by the source, by operation"}, []string{"name", "op"}),
		failures: prom.NewCounterVec(prom.CounterOpts{Name: "informer_decode_failures_total", Help: "Lists and watch events the source could not decode, by operation"}, []string{"name", "op"}),
	}
}

func (c informerCollectors) all() []prom.Collector {
	return []prom.Collector{c.events, c.skipped, c.lists, c.items, c.restarts, c.latency, c.panics, c.gauges, c.objects, c.bytes, c.failures}
}

// Informer returns the callbacks of the informer called name, for its
// Options.Metrics: informer_events_total{type},
// informer_skipped_events_total, informer_lists_total{streaming,reason},
// informer_list_items_total, informer_watch_restarts_total{reason},
// informer_processing_latency_seconds{handler} (client-go's name) and
// informer_handler_panics_total{handler}. WatchInformer and WatchHandler
// add the gauges.
func (m *Metrics) Informer(name string) informer.Metrics {
	c := &m.informer
	var byType [informer.EventInitialEventsEnd + 1]prom.Counter
	for t := range byType {
		if t > 0 {
			byType[t] = c.events.WithLabelValues(name, informer.EventType(t).String())
		}
	}
	skipped, items := c.skipped.WithLabelValues(name), c.items.WithLabelValues(name)
	return informer.Metrics{
		Event: func(t informer.EventType) {
			if int(t) < len(byType) && byType[t] != nil {
				byType[t].Inc()
			}
		},
		Skipped: skipped.Inc,
		List: func(streaming bool, reason string) {
			s := "false"
			if streaming {
				s = "true"
			}
			c.lists.WithLabelValues(name, s, reason).Inc()
		},
		ListItems:    func(n int) { items.Add(float64(n)) },
		WatchRestart: func(reason string) { c.restarts.WithLabelValues(name, reason).Inc() },
		HandlerLatency: func(handler string, d time.Duration) {
			c.latency.WithLabelValues(name, handler).Observe(d.Seconds())
		},
		HandlerPanic: func(handler string) { c.panics.WithLabelValues(name, handler).Inc() },
	}
}

// Source returns the callbacks of a Kubernetes Source (source/kube's
// Options.Metrics) of the informer called name:
// informer_decoded_objects_total{op}, informer_decoded_bytes_total{op}
// and informer_decode_failures_total{op}, op "list" or "watch".
func (m *Metrics) Source(name string) kubesrc.Metrics {
	c := &m.informer
	return kubesrc.Metrics{
		Decoded: func(op string, objects int, bytes int64) {
			c.objects.WithLabelValues(name, op).Add(float64(objects))
			c.bytes.WithLabelValues(name, op).Add(float64(bytes))
		},
		DecodeFailed: func(op string) { c.failures.WithLabelValues(name, op).Inc() },
	}
}

// WatchInformer adds the gauges of inf, the informer called name, read at
// each scrape: informer_store_items (objects in the cache),
// informer_lag_seconds (how long since the source last confirmed the
// cache current: Health().SinceActivity, growing while it cannot be
// reached; on a quiet resource it also grows between kube-apiserver's
// bookmarks, up to about a minute, so alert above that) and
// informer_synced (1 once synced). It returns a function that removes
// them.
func WatchInformer[T informer.Object](m *Metrics, name string, inf *informer.Informer[T]) (remove func()) {
	return m.informer.gauges.add(gaugeKey{name: name}, func(ch chan<- prom.Metric) {
		h := inf.Health()
		synced := 0.0
		if h.Synced {
			synced = 1
		}
		ch <- prom.MustNewConstMetric(storeItemsDesc, prom.GaugeValue, float64(inf.Lister().Len()), name)
		ch <- prom.MustNewConstMetric(lagDesc, prom.GaugeValue, h.SinceActivity.Seconds(), name)
		ch <- prom.MustNewConstMetric(syncedDesc, prom.GaugeValue, synced, name)
	})
}

// WatchHandler adds informer_pending_notifications{handler}: the
// notifications reg's handler has yet to process, read at each scrape.
// Give handler the registration's HandlerOptions.Name (workqueue.Enqueue's
// default: the queue's name), the label informer_processing_latency_seconds
// has. It returns a function that removes it.
func WatchHandler[T informer.Object](m *Metrics, name, handler string, reg *informer.Registration[T]) (remove func()) {
	return m.informer.gauges.add(gaugeKey{name: name, handler: handler}, func(ch chan<- prom.Metric) {
		ch <- prom.MustNewConstMetric(pendingDesc, prom.GaugeValue, float64(reg.Pending()), name, handler)
	})
}

var (
	storeItemsDesc = prom.NewDesc("informer_store_items", "Objects in the informer's cache", []string{"name"}, nil)
	lagDesc        = prom.NewDesc("informer_lag_seconds", "Time since the source last confirmed the cache current", []string{"name"}, nil)
	syncedDesc     = prom.NewDesc("informer_synced", "1 once the informer's first list is in its cache", []string{"name"}, nil)
	pendingDesc    = prom.NewDesc("informer_pending_notifications", "Notifications a handler has yet to process", []string{"name", "handler"}, nil)
)

type gaugeKey struct {
	name, handler string
	queue         bool // a queue's gauges, not an informer's
}

// stateGauges is a collector of gauges read from informers and queues at
// scrape time.
type stateGauges struct {
	mu  sync.Mutex
	fns map[gaugeKey]func(chan<- prom.Metric)
}

func (g *stateGauges) add(k gaugeKey, fn func(chan<- prom.Metric)) func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fns == nil {
		g.fns = map[gaugeKey]func(chan<- prom.Metric){}
	}
	g.fns[k] = fn
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.fns, k)
	}
}

// Describe sends the gauges' descriptions.
func (g *stateGauges) Describe(ch chan<- *prom.Desc) {
	for _, d := range []*prom.Desc{storeItemsDesc, lagDesc, syncedDesc, pendingDesc, unfinishedDesc, longestDesc} {
		ch <- d
	}
}

// Collect reads every gauge, outside the collector's lock.
func (g *stateGauges) Collect(ch chan<- prom.Metric) {
	g.mu.Lock()
	fns := make([]func(chan<- prom.Metric), 0, len(g.fns))
	for _, fn := range g.fns {
		fns = append(fns, fn)
	}
	g.mu.Unlock()
	for _, fn := range fns {
		fn(ch)
	}
}

// Package otel records the informer library's metrics callbacks as
// OpenTelemetry instruments of a metric.Meter, with the names of package
// prometheus in OpenTelemetry's dotted form (workqueue.depth,
// workqueue.adds, ...) and the queue's, lease's or recorder's name as the
// attribute "name".
//
//	m, _ := otel.New(provider.Meter("github.com/informer-go/informer"))
//	q := workqueue.New(workqueue.Options[string]{Name: "widgets", Metrics: otel.Workqueue[string](m, "widgets")})
//	otel.WatchQueue(m, "widgets", q)
package otel

import (
	"context"
	"errors"
	"time"

	"github.com/informer-go/informer/events"
	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/workqueue"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metrics holds the instruments of one Meter; its methods return the
// callbacks of one queue, elector, recorder or informer.
type Metrics struct {
	wqDepth     metric.Int64Gauge
	wqAdds      metric.Int64Counter
	wqQueueDur  metric.Float64Histogram
	wqWorkDur   metric.Float64Histogram
	wqRetries   metric.Int64Counter
	wqUnfinish  metric.Float64ObservableGauge
	wqLongest   metric.Float64ObservableGauge
	leStatus    metric.Int64Gauge
	leTrans     metric.Int64Counter
	leAttempt   metric.Float64Histogram
	leFailures  metric.Int64Counter
	evRecorded  metric.Int64Counter
	evAggregate metric.Int64Counter
	evDropped   metric.Int64Counter
	informer    informerInstruments
	client      clientInstruments
	meter       metric.Meter
}

// New makes the instruments of meter.
func New(meter metric.Meter) (*Metrics, error) {
	var m Metrics
	var errs []error
	i64c := func(name, desc string) metric.Int64Counter {
		c, err := meter.Int64Counter(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	i64g := func(name, desc string) metric.Int64Gauge {
		g, err := meter.Int64Gauge(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	hist := func(name, desc string) metric.Float64Histogram {
		h, err := meter.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit("s"))
		errs = append(errs, err)
		return h
	}
	m.wqDepth = i64g("workqueue.depth", "Current depth of the workqueue")
	m.wqAdds = i64c("workqueue.adds", "Adds handled by the workqueue")
	m.wqQueueDur = hist("workqueue.queue.duration", "How long an item stays in the workqueue before being requested")
	m.wqWorkDur = hist("workqueue.work.duration", "How long processing an item from the workqueue takes")
	m.wqRetries = i64c("workqueue.retries", "Retries handled by the workqueue")
	seconds := func(name, desc string) metric.Float64ObservableGauge {
		g, err := meter.Float64ObservableGauge(name, metric.WithDescription(desc), metric.WithUnit("s"))
		errs = append(errs, err)
		return g
	}
	m.wqUnfinish = seconds("workqueue.unfinished_work", "How long the keys being processed have run, summed")
	m.wqLongest = seconds("workqueue.longest_running_processor", "How long the longest running key has been processed")
	m.leStatus = i64g("leader_election.master_status", "1 while this candidate leads the lease, else 0")
	m.leTrans = i64c("leader_election.transitions", "Times the lease was seen to change holder")
	m.leAttempt = hist("leader_election.attempt.duration", "Latency of attempts to acquire or renew the lease")
	m.leFailures = i64c("leader_election.attempt.failures", "Attempts to acquire or renew the lease that failed")
	m.evRecorded = i64c("events_recorder.recorded", "Events written as new Events")
	m.evAggregate = i64c("events_recorder.aggregated", "Repeats counted into the series of an earlier event")
	m.evDropped = i64c("events_recorder.dropped", "Events not written, by reason")
	var ierrs []error
	m.informer, ierrs = newInformerInstruments(meter)
	m.meter = meter
	errs = append(errs, ierrs...)
	m.client, ierrs = newClientInstruments(meter)
	errs = append(errs, ierrs...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &m, nil
}

// ctx is the context of every recording: the callbacks have none.
var ctx = context.Background()

// Workqueue returns the callbacks of the queue called name; WatchQueue
// adds the two gauges read from the queue itself.
func Workqueue[K comparable](m *Metrics, name string) workqueue.Metrics[K] {
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name)))
	return workqueue.Metrics[K]{
		Depth:        func(n int) { m.wqDepth.Record(ctx, int64(n), attrs) },
		Added:        func(K) { m.wqAdds.Add(ctx, 1, attrs) },
		Latency:      func(d time.Duration) { m.wqQueueDur.Record(ctx, d.Seconds(), attrs) },
		WorkDuration: func(d time.Duration) { m.wqWorkDur.Record(ctx, d.Seconds(), attrs) },
		Retry:        func(K) { m.wqRetries.Add(ctx, 1, attrs) },
	}
}

// WatchQueue observes workqueue.unfinished_work (how long the keys being
// processed have run, summed: it grows while a worker is stuck) and
// workqueue.longest_running_processor of q, the queue called name, at each
// collection. They are 0 unless q was made with Metrics callbacks
// (Workqueue's). It returns a function that stops observing them.
func WatchQueue[K comparable](m *Metrics, name string, q *workqueue.Queue[K]) (remove func(), err error) {
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name)))
	reg, err := m.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		p := q.Processing()
		o.ObserveFloat64(m.wqUnfinish, p.Unfinished.Seconds(), attrs)
		o.ObserveFloat64(m.wqLongest, p.Longest.Seconds(), attrs)
		return nil
	}, m.wqUnfinish, m.wqLongest)
	if err != nil {
		return nil, err
	}
	return func() { _ = reg.Unregister() }, nil
}

// LeaderElection returns the callbacks of the elector of the lease
// called name; attempts carry op "acquire" or "renew".
func (m *Metrics) LeaderElection(name string) leaderelection.Metrics {
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name)))
	ops := map[bool]metric.MeasurementOption{
		false: metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name), attribute.String("op", "acquire"))),
		true:  metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name), attribute.String("op", "renew"))),
	}
	m.leStatus.Record(ctx, 0, attrs)
	return leaderelection.Metrics{
		Leading: func(v bool) {
			var n int64
			if v {
				n = 1
			}
			m.leStatus.Record(ctx, n, attrs)
		},
		Transition: func(string) { m.leTrans.Add(ctx, 1, attrs) },
		Attempt: func(renewing bool, d time.Duration, err error) {
			m.leAttempt.Record(ctx, d.Seconds(), ops[renewing])
			if err != nil {
				m.leFailures.Add(ctx, 1, ops[renewing])
			}
		},
	}
}

// Events returns the callbacks of the recorder called name; drops carry
// their reason.
func (m *Metrics) Events(name string) events.Metrics {
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("name", name)))
	return events.Metrics{
		Recorded:   func() { m.evRecorded.Add(ctx, 1, attrs) },
		Aggregated: func() { m.evAggregate.Add(ctx, 1, attrs) },
		Dropped: func(reason string) {
			m.evDropped.Add(ctx, 1, metric.WithAttributes(attribute.String("name", name), attribute.String("reason", reason)))
		},
	}
}

// Package prometheus records the informer library's metrics callbacks
// into a Prometheus registry (client_golang), under the names and labels
// of client-go and controller-runtime where they have one, so that
// dashboards and alerts written for them carry over, and serves
// /healthz, /readyz and /metrics (Handler).
//
//	m, _ := prometheus.New(reg) // reg: a *prom.Registry, or prom.DefaultRegisterer
//	q := workqueue.New(workqueue.Options[string]{Name: "widgets", Metrics: prometheus.Workqueue[string](m, "widgets")})
//	prometheus.WatchQueue(m, "widgets", q)
//	el, _ := leaderelection.New(leases, leaderelection.Options{..., Metrics: m.LeaderElection("my-controller")})
//	http.ListenAndServe(":8080", prometheus.Handler(reg, prometheus.Checks{...}))
package prometheus

import (
	"time"

	"github.com/informer-go/informer/events"
	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/workqueue"
	prom "github.com/prometheus/client_golang/prometheus"
)

// Metrics holds the collectors, registered once in a registry; its
// methods return the callbacks of one queue, elector or recorder,
// labelled with its name.
type Metrics struct {
	wqDepth     *prom.GaugeVec
	wqAdds      *prom.CounterVec
	wqQueueDur  *prom.HistogramVec
	wqWorkDur   *prom.HistogramVec
	wqRetries   *prom.CounterVec
	leStatus    *prom.GaugeVec
	leTrans     *prom.CounterVec
	leAttempt   *prom.HistogramVec
	leFailures  *prom.CounterVec
	evRecorded  *prom.CounterVec
	evAggregate *prom.CounterVec
	evDropped   *prom.CounterVec
	informer    informerCollectors
	client      clientCollectors
}

// durationBuckets are client-go's workqueue buckets: 10 ns to 10^3 s.
var durationBuckets = prom.ExponentialBuckets(10e-9, 10, 12)

// New makes the collectors and registers them with reg; it fails if reg
// has collectors of the same names.
func New(reg prom.Registerer) (*Metrics, error) {
	name := []string{"name"}
	m := &Metrics{
		wqDepth:    prom.NewGaugeVec(prom.GaugeOpts{Name: "workqueue_depth", Help: "Current depth of workqueue"}, name),
		wqAdds:     prom.NewCounterVec(prom.CounterOpts{Name: "workqueue_adds_total", Help: "Total number of adds handled by workqueue"}, name),
		wqQueueDur: prom.NewHistogramVec(prom.HistogramOpts{Name: "workqueue_queue_duration_seconds", Help: "How long in seconds an item stays in workqueue before being requested", Buckets: durationBuckets}, name),
		wqWorkDur:  prom.NewHistogramVec(prom.HistogramOpts{Name: "workqueue_work_duration_seconds", Help: "How long in seconds processing an item from workqueue takes", Buckets: durationBuckets}, name),
		wqRetries:  prom.NewCounterVec(prom.CounterOpts{Name: "workqueue_retries_total", Help: "Total number of retries handled by workqueue"}, name),

		leStatus:   prom.NewGaugeVec(prom.GaugeOpts{Name: "leader_election_master_status", Help: "Gauge of whether the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master"}, name),
		leTrans:    prom.NewCounterVec(prom.CounterOpts{Name: "leader_election_transitions_total", Help: "Number of times the lease was seen to change holder"}, name),
		leAttempt:  prom.NewHistogramVec(prom.HistogramOpts{Name: "leader_election_attempt_duration_seconds", Help: "Latency of attempts to acquire or renew the lease", Buckets: prom.DefBuckets}, []string{"name", "op"}),
		leFailures: prom.NewCounterVec(prom.CounterOpts{Name: "leader_election_attempt_failures_total", Help: "Attempts to acquire or renew the lease that failed"}, []string{"name", "op"}),

		evRecorded:  prom.NewCounterVec(prom.CounterOpts{Name: "events_recorder_recorded_total", Help: "Events written as new Events"}, name),
		evAggregate: prom.NewCounterVec(prom.CounterOpts{Name: "events_recorder_aggregated_total", Help: "Repeats counted into the series of an earlier event"}, name),
		evDropped:   prom.NewCounterVec(prom.CounterOpts{Name: "events_recorder_dropped_total", Help: "Events not written, by reason"}, []string{"name", "reason"}),
	}
	m.informer = newInformerCollectors()
	m.client = newClientCollectors()
	cs := []prom.Collector{m.wqDepth, m.wqAdds, m.wqQueueDur, m.wqWorkDur, m.wqRetries,
		m.leStatus, m.leTrans, m.leAttempt, m.leFailures, m.evRecorded, m.evAggregate, m.evDropped}
	cs = append(cs, m.informer.all()...)
	cs = append(cs, m.client.all()...)
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Workqueue returns the callbacks of the queue called name, recorded as
// controller-runtime's workqueue_depth, workqueue_adds_total,
// workqueue_queue_duration_seconds, workqueue_work_duration_seconds and
// workqueue_retries_total. WatchQueue adds the two gauges read from the
// queue itself.
func Workqueue[K comparable](m *Metrics, name string) workqueue.Metrics[K] {
	depth, adds := m.wqDepth.WithLabelValues(name), m.wqAdds.WithLabelValues(name)
	queued, work := m.wqQueueDur.WithLabelValues(name), m.wqWorkDur.WithLabelValues(name)
	retries := m.wqRetries.WithLabelValues(name)
	return workqueue.Metrics[K]{
		Depth:        func(n int) { depth.Set(float64(n)) },
		Added:        func(K) { adds.Inc() },
		Latency:      func(d time.Duration) { queued.Observe(d.Seconds()) },
		WorkDuration: func(d time.Duration) { work.Observe(d.Seconds()) },
		Retry:        func(K) { retries.Inc() },
	}
}

// WatchQueue adds controller-runtime's workqueue_unfinished_work_seconds
// (how long the keys being processed have run, summed: it grows while a
// worker is stuck) and workqueue_longest_running_processor_seconds of q,
// the queue called name, read at each scrape. They are 0 unless q was
// made with Metrics callbacks (Workqueue's): without them the queue takes
// no timestamps. It returns a function that removes them.
func WatchQueue[K comparable](m *Metrics, name string, q *workqueue.Queue[K]) (remove func()) {
	return m.informer.gauges.add(gaugeKey{name: name, queue: true}, func(ch chan<- prom.Metric) {
		p := q.Processing()
		ch <- prom.MustNewConstMetric(unfinishedDesc, prom.GaugeValue, p.Unfinished.Seconds(), name)
		ch <- prom.MustNewConstMetric(longestDesc, prom.GaugeValue, p.Longest.Seconds(), name)
	})
}

var (
	unfinishedDesc = prom.NewDesc("workqueue_unfinished_work_seconds", "How many seconds of work has been done that is in progress and hasn't been observed by work_duration", []string{"name"}, nil)
	longestDesc    = prom.NewDesc("workqueue_longest_running_processor_seconds", "How many seconds has the longest running processor for workqueue been running", []string{"name"}, nil)
)

// LeaderElection returns the callbacks of the elector of the lease called
// name: client-go's leader_election_master_status, and
// leader_election_transitions_total,
// leader_election_attempt_duration_seconds{op="acquire"|"renew"} and
// leader_election_attempt_failures_total.
func (m *Metrics) LeaderElection(name string) leaderelection.Metrics {
	status, trans := m.leStatus.WithLabelValues(name), m.leTrans.WithLabelValues(name)
	status.Set(0)
	op := func(renewing bool) string {
		if renewing {
			return "renew"
		}
		return "acquire"
	}
	return leaderelection.Metrics{
		Leading: func(v bool) {
			if v {
				status.Set(1)
			} else {
				status.Set(0)
			}
		},
		Transition: func(string) { trans.Inc() },
		Attempt: func(renewing bool, d time.Duration, err error) {
			m.leAttempt.WithLabelValues(name, op(renewing)).Observe(d.Seconds())
			if err != nil {
				m.leFailures.WithLabelValues(name, op(renewing)).Inc()
			}
		},
	}
}

// Events returns the callbacks of the recorder called name:
// events_recorder_recorded_total, events_recorder_aggregated_total and
// events_recorder_dropped_total{reason}.
func (m *Metrics) Events(name string) events.Metrics {
	rec, agg := m.evRecorded.WithLabelValues(name), m.evAggregate.WithLabelValues(name)
	return events.Metrics{
		Recorded:   rec.Inc,
		Aggregated: agg.Inc,
		Dropped:    func(reason string) { m.evDropped.WithLabelValues(name, reason).Inc() },
	}
}

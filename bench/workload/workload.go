// Package workload builds the objects, events and measurements shared by the
// side-by-side benchmarks in bench/informer and bench/clientgo, so that both
// run exactly the same workloads under exactly the same benchmark names.
//
// Objects are small ConfigMaps (three labels, one data key) spread over
// Namespaces namespaces. Everything is built before a timed section starts,
// and built objects are never changed afterwards: both libraries share the
// objects they are handed with their caches and handlers.
package workload

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sizes of the workloads. The benchmark names carry the ones that vary.
const (
	// Namespaces is how many namespaces objects are spread over.
	Namespaces = 100

	// SteadyObjects are cached before SteadyEvents MODIFIED events arrive.
	SteadyObjects = 10_000
	SteadyEvents  = 100_000

	// FanOutEvents MODIFIED events (over SteadyObjects cached objects) go to
	// FanOutFast counting handlers and one handler that sleeps SlowDelay
	// per event.
	FanOutEvents = 20_000
	FanOutFast   = 9
	SlowDelay    = time.Millisecond

	// BlockedEvents MODIFIED events over BlockedKeys keys arrive while one
	// handler never returns.
	BlockedKeys   = 1000
	BlockedEvents = 1_000_000
	// CoalesceAbove is the bound of the "bounded" policy (ours only).
	CoalesceAbove = 1000

	// IndexerObjects are stored in the Indexer micro benchmarks; ByIndex
	// reads ByIndexNamespace, which holds IndexerObjects/Namespaces.
	IndexerObjects   = 100_000
	ByIndexNamespace = "ns-7"

	// FIFOKeys distinct keys are added, then popped, per FIFO op.
	FIFOKeys = 10_000
)

// InitialSyncSizes and HandlerCounts are the N= and H= of the end-to-end
// benchmarks.
var (
	InitialSyncSizes = []int{10_000, 100_000}
	HandlerCounts    = []int{1, 10}
)

// RV formats a resourceVersion.
func RV(v int) string { return strconv.Itoa(v) }

// ConfigMap returns object i at resourceVersion rv: namespace "ns-<i%100>",
// name "cm-<i>", three labels, one data key.
func ConfigMap(i, rv int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       "ns-" + strconv.Itoa(i%Namespaces),
			Name:            "cm-" + strconv.Itoa(i),
			ResourceVersion: RV(rv),
			Labels: map[string]string{
				"app":     "app-" + strconv.Itoa(i%10),
				"tier":    "backend",
				"release": "stable",
			},
		},
		Data: map[string]string{"config.yaml": "key: value\n"},
	}
}

// Objects returns objects 0..n-1, object i at resourceVersion i+1, so that a
// list of them is at resourceVersion n.
func Objects(n int) []*corev1.ConfigMap {
	objs := make([]*corev1.ConfigMap, n)
	for i := range objs {
		objs[i] = ConfigMap(i, i+1)
	}
	return objs
}

// Modified returns e new states of objs, round-robin: state i is a copy of
// objs[i%len(objs)] at resourceVersion firstRV+i. Copies are shallow: the
// label and data maps are shared, as nothing ever changes them.
func Modified(objs []*corev1.ConfigMap, e, firstRV int) []*corev1.ConfigMap {
	out := make([]*corev1.ConfigMap, e)
	block := make([]corev1.ConfigMap, e) // one allocation, not e
	for i := range out {
		block[i] = *objs[i%len(objs)]
		block[i].ResourceVersion = RV(firstRV + i)
		out[i] = &block[i]
	}
	return out
}

// Counter counts handler calls and closes Done when it reaches its target.
type Counter struct {
	n      atomic.Int64
	target int64
	done   chan struct{}
}

// NewCounter returns a Counter that is done after target hits.
func NewCounter(target int) *Counter {
	return &Counter{target: int64(target), done: make(chan struct{})}
}

// Hit counts one call.
func (c *Counter) Hit() {
	if c.n.Add(1) == c.target {
		close(c.done)
	}
}

// Load returns the count so far.
func (c *Counter) Load() int64 { return c.n.Load() }

// Done is closed when the target is reached.
func (c *Counter) Done() <-chan struct{} { return c.done }

// WaitAtLeast spins (yielding) until the count reaches n. Used only outside
// timed sections.
func (c *Counter) WaitAtLeast(n int) {
	for c.n.Load() < int64(n) {
		runtime.Gosched()
	}
}

// WaitAll waits until every counter is done.
func WaitAll(cs []*Counter) {
	for _, c := range cs {
		<-c.done
	}
}

// Counters returns h counters with the same target.
func Counters(h, target int) []*Counter {
	cs := make([]*Counter, h)
	for i := range cs {
		cs[i] = NewCounter(target)
	}
	return cs
}

// Slow is the slow handler of FanOut: it sleeps SlowDelay per call until
// Release, then returns at once (so the benchmark can shut down without
// waiting for its backlog).
type Slow struct{ released atomic.Bool }

// Call is the handler body.
func (s *Slow) Call() {
	if !s.released.Load() {
		time.Sleep(SlowDelay)
	}
}

// Release stops the sleeping.
func (s *Slow) Release() { s.released.Store(true) }

// Span marks the timed section of one iteration of Measure.
type Span struct {
	b       *testing.B
	t0      time.Time
	m0, m1  runtime.MemStats
	started bool
	stopped bool
	ns      int64
	cpu0    time.Duration
	cpu     time.Duration // process CPU time during the span
}

// Start starts the timed section: memory statistics are read, then the
// clock starts.
func (s *Span) Start() {
	runtime.ReadMemStats(&s.m0)
	s.started = true
	s.b.StartTimer()
	s.cpu0 = processCPU()
	s.t0 = time.Now()
}

// Stop ends the timed section.
func (s *Span) Stop() {
	s.ns = time.Since(s.t0).Nanoseconds()
	s.cpu = processCPU() - s.cpu0
	s.b.StopTimer()
	runtime.ReadMemStats(&s.m1)
	s.stopped = true
}

// Measure runs fn b.N times. Each call builds its workload, calls
// span.Start, runs it, calls span.Stop, and tears down; only the span is
// timed. It reports per unit (of which one run has units): ns, allocations
// and bytes allocated by all goroutines during the span (runtime.MemStats
// deltas), units per second, and the CPU time of the whole process (every
// goroutine and the garbage collector) per unit, cpu-ns: on a shared
// machine, where the elapsed time of a pipeline of goroutines depends on
// what else runs, it is the steadier figure. ns/op is the time of one
// whole span.
func Measure(b *testing.B, units int, unit string, fn func(span *Span)) {
	b.StopTimer()
	var ns, cpu, allocs, bytes float64
	for range b.N {
		s := &Span{b: b}
		fn(s)
		if !s.started || !s.stopped {
			b.Fatal("workload did not start and stop its span")
		}
		ns += float64(s.ns)
		cpu += float64(s.cpu)
		allocs += float64(s.m1.Mallocs - s.m0.Mallocs)
		bytes += float64(s.m1.TotalAlloc - s.m0.TotalAlloc)
	}
	total := float64(b.N) * float64(units)
	b.ReportMetric(ns/total, "ns/"+unit)
	b.ReportMetric(allocs/total, "allocs/"+unit)
	b.ReportMetric(bytes/total, "B/"+unit)
	b.ReportMetric(total*1e9/ns, unit+"s/s")
	b.ReportMetric(cpu/total, "cpu-ns/"+unit)
}

// MeasureMillis runs fn b.N times like Measure and reports only the mean
// span in milliseconds, as "ms".
func MeasureMillis(b *testing.B, fn func(span *Span)) {
	b.StopTimer()
	var ns float64
	for range b.N {
		s := &Span{b: b}
		fn(s)
		if !s.started || !s.stopped {
			b.Fatal("workload did not start and stop its span")
		}
		ns += float64(s.ns)
	}
	b.ReportMetric(ns/float64(b.N)/1e6, "ms")
}

// LiveHeap returns the live heap after two garbage collections.
func LiveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Micro benchmark helpers.

// Mallocs counts allocations from its creation to Report.
type Mallocs struct{ m0 runtime.MemStats }

// StartMallocs starts counting.
func StartMallocs() *Mallocs {
	m := &Mallocs{}
	runtime.ReadMemStats(&m.m0)
	return m
}

// Report reports allocs and bytes per unit, for perOp units per b.N.
func (m *Mallocs) Report(b *testing.B, perOp int, unit string) {
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	n := float64(b.N) * float64(perOp)
	b.ReportMetric(float64(m1.Mallocs-m.m0.Mallocs)/n, "allocs/"+unit)
	b.ReportMetric(float64(m1.TotalAlloc-m.m0.TotalAlloc)/n, "B/"+unit)
}

// ReportNsPer reports the elapsed time per unit, for perOp units per b.N.
func ReportNsPer(b *testing.B, perOp int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(perOp), "ns/"+unit)
}

var cache sync.Map // int -> []*corev1.ConfigMap

// SharedObjects is Objects(n), built once per process; callers must not
// change it.
func SharedObjects(n int) []*corev1.ConfigMap {
	if v, ok := cache.Load(n); ok {
		return v.([]*corev1.ConfigMap)
	}
	v, _ := cache.LoadOrStore(n, Objects(n))
	return v.([]*corev1.ConfigMap)
}

// Work queue workloads: QueueKeys distinct keys cycled through by the
// Add/Get/Done benchmarks, DelayPending keys waiting in AddAfter, and
// QueueWorkers reconciling the SteadyState events in the informer → queue
// → worker benchmark.
const (
	QueueKeys    = 1024
	DelayPending = 100_000
	QueueWorkers = 2
)

// Keys returns n distinct namespace/name keys.
func Keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = "ns-" + strconv.Itoa(i%10) + "/key-" + strconv.Itoa(i)
	}
	return ks
}

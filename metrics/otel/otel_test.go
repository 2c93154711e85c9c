package otel_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/events"
	infotel "github.com/informer-go/informer/metrics/otel"
	"github.com/informer-go/informer/workqueue"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// A queue and a recorder record through an SDK MeterProvider; a manual
// reader collects exactly what happened.
func TestRecordedThroughTheSDK(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m, err := infotel.New(provider.Meter("github.com/informer-go/informer"))
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	q := workqueue.New(workqueue.Options[string]{Metrics: infotel.Workqueue[string](m, "widgets"), Logger: quiet,
		RateLimiter: noDelay{}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls sync.WaitGroup
	calls.Add(2)
	failed := false
	qctx, stopQ := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() {
		ran <- q.Run(qctx, 1, func(context.Context, string) error {
			defer calls.Done()
			if !failed {
				failed = true
				return errors.New("once")
			}
			return nil
		})
	}()
	q.Add("a")
	calls.Wait()
	stopQ()
	<-ran // the workers have returned: every callback of their Done is in
	rec, _ := events.NewRecorder(nil2{}, events.Options{ReportingController: "example.com/c", Metrics: m.Events("c"), Logger: quiet})
	rec.Eventf(events.ObjectReference{Kind: "ConfigMap", Name: "a"}, nil, "Odd", "R", "A", "")
	cl := m.Client("api")
	cl.Request("GET", 429, time.Millisecond)
	cl.Retry("GET", 429)
	el := m.LeaderElection("lease")
	el.Leading(true)
	el.Attempt(true, 3*time.Millisecond, errors.New("403"))

	got := collect(t, reader)
	for k, want := range map[string]float64{
		"workqueue.depth{name=widgets}":                           0, // drained: the last Depth call carries 0
		"workqueue.adds{name=widgets}":                            2,
		"workqueue.retries{name=widgets}":                         1,
		"workqueue.work.duration{name=widgets}":                   2,
		"rest_client.requests{code=429,host=api,method=GET}":      1,
		"rest_client.request.retries{code=429,host=api,verb=GET}": 1,
		"rest_client.request.duration{host=api,verb=GET}":         1,
		"events_recorder.dropped{name=c,reason=invalid}":          1,
		"leader_election.master_status{name=lease}":               1,
		"leader_election.attempt.duration{name=lease,op=renew}":   1,
		"leader_election.attempt.failures{name=lease,op=renew}":   1,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (recorded: %v), want %v", k, v, ok, want)
		}
	}
}

func attrs(s attribute.Set) string {
	out := "{"
	for i, kv := range s.ToSlice() {
		if i > 0 {
			out += ","
		}
		out += string(kv.Key) + "=" + kv.Value.Emit()
	}
	return out + "}"
}

// nil2 is an EventClient that is never called (no Run).
type nil2 struct{}

func (nil2) Create(context.Context, *events.Event) (*events.Event, error) { return nil, nil }
func (nil2) Patch(context.Context, string, string, []byte) (*events.Event, error) {
	return nil, nil
}

// noDelay retries at once: AddRateLimited then adds on the worker's
// goroutine, so that every callback has run when Run returns.
type noDelay struct{}

func (noDelay) When(string) time.Duration { return 0 }
func (noDelay) Forget(string)             {}
func (noDelay) NumRequeues(string) int    { return 0 }

// WatchQueue's gauges read the keys being processed at each collection.
func TestWatchQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		m, err := infotel.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("informer"))
		if err != nil {
			t.Fatal(err)
		}
		q := workqueue.New(workqueue.Options[string]{Metrics: infotel.Workqueue[string](m, "widgets")})
		remove, err := infotel.WatchQueue(m, "widgets", q)
		if err != nil {
			t.Fatal(err)
		}
		q.Add("a")
		q.Add("b")
		q.Get(t.Context())
		time.Sleep(2 * time.Second)
		q.Get(t.Context())
		time.Sleep(time.Second)
		got := collect(t, reader)
		if u, l := got["workqueue.unfinished_work{name=widgets}"], got["workqueue.longest_running_processor{name=widgets}"]; u != 4 || l != 3 {
			t.Errorf("unfinished %v, longest %v; want 4, 3 (recorded: %v)", u, l, got)
		}
		remove()
		got = collect(t, reader)
		for _, k := range []string{"workqueue.unfinished_work{name=widgets}", "workqueue.longest_running_processor{name=widgets}"} {
			if v, ok := got[k]; ok {
				t.Errorf("after remove: %s = %v", k, v)
			}
		}
	})
}

// collect reads what reader holds, by name and attributes ("name{k=v}"):
// a counter's sum, a gauge's value, a histogram's count.
func collect(t *testing.T, reader *sdkmetric.ManualReader) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			switch d := mt.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					got[mt.Name+attrs(p.Attributes)] += float64(p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					got[mt.Name+attrs(p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					got[mt.Name+attrs(p.Attributes)] = p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					got[mt.Name+attrs(p.Attributes)] += float64(p.Count)
				}
			}
		}
	}
	return got
}

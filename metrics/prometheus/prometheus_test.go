package prometheus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/events"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
	infprom "github.com/informer-go/informer/metrics/prometheus"
	"github.com/informer-go/informer/workqueue"
	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var quiet = slog.New(slog.DiscardHandler)

// scrape GETs /metrics from srv and parses it.
func scrape(t *testing.T, srv *httptest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// value returns the value of the sample of family name whose labels are
// labels ("k=v,k=v"): a counter's or gauge's value, a histogram's count.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name, labels string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
	for _, m := range f.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		if strings.Join(ls, ",") != labels {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("no sample %s{%s}", name, labels)
	return 0
}

// leases is a LeaseClient of one lease in memory.
type leases struct {
	mu sync.Mutex
	l  *leaderelection.Lease
	rv int
}

func (s *leases) Get(_ context.Context, _, _ string) (*leaderelection.Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.l == nil {
		return nil, &kube.APIError{Op: "get", Code: http.StatusNotFound}
	}
	return s.l.DeepCopy(), nil
}

func (s *leases) Create(_ context.Context, l *leaderelection.Lease) (*leaderelection.Lease, error) {
	return s.Update(context.Background(), l)
}

func (s *leases) Update(_ context.Context, l *leaderelection.Lease) (*leaderelection.Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	s.l = l.DeepCopy()
	s.l.ResourceVersion = fmt.Sprint(s.rv)
	return s.l.DeepCopy(), nil
}

// eventSink is an EventClient that stores nothing.
type eventSink struct{}

func (eventSink) Create(_ context.Context, ev *events.Event) (*events.Event, error) { return ev, nil }
func (eventSink) Patch(context.Context, string, string, []byte) (*events.Event, error) {
	return &events.Event{}, nil
}

// A queue, an elector and a recorder record into a registry, served by
// Handler and read back over HTTP with client-go's and
// controller-runtime's names.
func TestScrapedOverHTTP(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := infprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := infprom.New(reg); err == nil {
		t.Error("New registered the same collectors twice")
	}

	q := workqueue.New(workqueue.Options[string]{Name: "widgets", Metrics: infprom.Workqueue[string](m, "widgets"), Logger: quiet,
		RateLimiter: noDelay{}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls sync.WaitGroup
	calls.Add(3)
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
	q.Add("b")
	calls.Wait()
	stopQ()
	<-ran // the workers have returned: every callback of their Done is in

	el, err := leaderelection.New(&leases{}, leaderelection.Options{Namespace: "ns", Name: "lease", Identity: "me", Logger: quiet,
		Metrics: m.LeaderElection("my-controller")})
	if err != nil {
		t.Fatal(err)
	}
	leading := make(chan struct{})
	elDone := make(chan error, 1)
	elCtx, stopEl := context.WithCancel(ctx)
	go func() { elDone <- el.Run(elCtx, func(ctx context.Context) { close(leading); <-ctx.Done() }) }()
	<-leading

	rec, err := events.NewRecorder(eventSink{}, events.Options{ReportingController: "example.com/c", QueueSize: 1, Metrics: m.Events("c"), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ref := events.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "a"}
	rec.Eventf(ref, nil, events.Normal, "R", "A", "")
	rec.Eventf(ref, nil, events.Normal, "R", "A", "")  // a repeat
	rec.Eventf(ref, nil, events.Normal, "R2", "A", "") // the queue (1) is full
	rec.Eventf(ref, nil, "Odd", "R", "A", "")          // invalid

	healthy := true
	srv := httptest.NewServer(infprom.Handler(reg, infprom.Checks{
		Healthz: map[string]infprom.Check{"leader-election": infprom.HealthErr(func() error { return el.Health().Err() })},
		Readyz: map[string]infprom.Check{"cache": func() error {
			if !healthy {
				return errors.New("not synced\nsecond line")
			}
			return nil
		}},
	}))
	defer srv.Close()

	fams := scrape(t, srv)
	for _, c := range []struct {
		name, labels string
		want         float64
	}{
		{"workqueue_adds_total", "name=widgets", 3}, // a, b, a again
		{"workqueue_retries_total", "name=widgets", 1},
		{"workqueue_queue_duration_seconds", "name=widgets", 3},
		{"workqueue_work_duration_seconds", "name=widgets", 3},
		{"leader_election_master_status", "name=my-controller", 1},
		{"leader_election_transitions_total", "name=my-controller", 1},
		{"leader_election_attempt_duration_seconds", "name=my-controller,op=acquire", 1},
		{"events_recorder_aggregated_total", "name=c", 1},
		{"events_recorder_dropped_total", "name=c,reason=queue_full", 1},
		{"events_recorder_dropped_total", "name=c,reason=invalid", 1},
	} {
		if got := value(t, fams, c.name, c.labels); got != c.want {
			t.Errorf("%s{%s} = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// The last Depth call carries the queue's depth, whatever order the
	// workers' and the retry's reports raced in.
	if got := value(t, fams, "workqueue_depth", "name=widgets"); got != float64(q.Len()) {
		t.Errorf("workqueue_depth = %v, the queue holds %d", got, q.Len())
	}
	stopEl()
	<-elDone
	if got := value(t, scrape(t, srv), "leader_election_master_status", "name=my-controller"); got != 0 {
		t.Errorf("leader_election_master_status after stepping down = %v", got)
	}

	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	if code, body := get("/readyz?verbose"); code != 200 || !strings.Contains(body, "[+] cache ok") {
		t.Errorf("/readyz?verbose = %d %q", code, body)
	}
	healthy = false
	if code, body := get("/readyz"); code != 503 || body != "[-] cache failed: not synced second line\nfailed\n" {
		t.Errorf("/readyz failing = %d %q", code, body)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz with a readiness check failing = %d, want 200", code)
	}
}

// noDelay retries at once: AddRateLimited then adds on the worker's
// goroutine, so that every callback has run when Run returns.
type noDelay struct{}

func (noDelay) When(string) time.Duration { return 0 }
func (noDelay) Forget(string)             {}
func (noDelay) NumRequeues(string) int    { return 0 }

// valueOr is value, or def when the sample is missing.
func valueOr(fams map[string]*dto.MetricFamily, name, labels string, def float64) float64 {
	for _, m := range fams[name].GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		if strings.Join(ls, ",") != labels {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
	}
	return def
}

// dump is the informer_ lines of /metrics, for a failure's message.
func dump(t *testing.T, srv *httptest.Server) string {
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out []string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "informer_") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return strings.Join(out, "\n")
}

func jsonDecode(resp *http.Response, v any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// gather reads reg directly, as a scrape would.
func gather(t *testing.T, reg *prom.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	fs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]*dto.MetricFamily{}
	for _, f := range fs {
		fams[f.GetName()] = f
	}
	return fams
}

// WatchQueue's gauges read the keys being processed at each scrape, and
// the depth gauge ends at the queue's depth.
func TestWatchQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewRegistry()
		m, err := infprom.New(reg)
		if err != nil {
			t.Fatal(err)
		}
		q := workqueue.New(workqueue.Options[string]{Name: "widgets", Metrics: infprom.Workqueue[string](m, "widgets"), Logger: quiet})
		remove := infprom.WatchQueue(m, "widgets", q)
		for _, k := range []string{"a", "b", "c"} {
			q.Add(k)
		}
		a, _ := q.Get(t.Context())
		time.Sleep(2 * time.Second)
		q.Get(t.Context())
		time.Sleep(time.Second)
		fams := gather(t, reg)
		for _, c := range []struct {
			name string
			want float64
		}{
			{"workqueue_unfinished_work_seconds", 4}, // 3 s + 1 s
			{"workqueue_longest_running_processor_seconds", 3},
			{"workqueue_depth", 1},
		} {
			if got := value(t, fams, c.name, "name=widgets"); got != c.want {
				t.Errorf("%s = %v, want %v", c.name, got, c.want)
			}
		}
		q.Done(a)
		if got := value(t, gather(t, reg), "workqueue_longest_running_processor_seconds", "name=widgets"); got != 1 {
			t.Errorf("longest running after a's Done = %v, want 1", got)
		}
		remove()
		if f := gather(t, reg)["workqueue_unfinished_work_seconds"]; f != nil {
			t.Errorf("after remove: %v", f)
		}
	})
}

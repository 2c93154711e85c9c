package prometheus_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/informer-go/informer"
	infprom "github.com/informer-go/informer/metrics/prometheus"
	"github.com/informer-go/informer/source/memory"
	prom "github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type widget struct{ metav1.ObjectMeta }

func newWidget(name string) *widget {
	return &widget{metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

// An informer's callbacks and gauges, scraped over HTTP: events by type,
// the initial list and its items, a watch restart, the objects in the
// cache, synced, and a handler's pending notifications.
func TestInformerScraped(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := infprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	src := memory.New[*widget](memory.Options{})
	src.Create(newWidget("a"))
	src.Create(newWidget("b"))
	inf := informer.New(src, informer.Options[*widget]{Logger: quiet, Metrics: m.Informer("widgets")})
	block := make(chan struct{})
	reg1, _ := inf.AddHandler(informer.HandlerFuncs[*widget]{AddFunc: func(w *widget, _ bool) {
		if w.Name == "c" {
			<-block // c and what follows stay pending
		}
	}}, informer.HandlerOptions{Name: "enqueue"})
	defer infprom.WatchInformer(m, "widgets", inf)()
	defer infprom.WatchHandler(m, "widgets", "enqueue", reg1)()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); close(block); <-done }()
	if err := informer.WaitForCacheSync(ctx, inf, reg1); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"c", "d", "e"} {
		src.Create(newWidget(n))
	}
	src.Update(newWidget("a"))
	srv := httptest.NewServer(infprom.Handler(reg, infprom.Checks{Readyz: map[string]infprom.Check{"widgets": infprom.Synced(inf)}}))
	defer srv.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		fams := scrape(t, srv)
		if fams["informer_pending_notifications"] != nil && value(t, fams, "informer_pending_notifications", "handler=enqueue,name=widgets") == 3 {
			for _, c := range []struct {
				name, labels string
				want         float64
			}{
				{"informer_events_total", "name=widgets,type=ADDED", 3},
				{"informer_events_total", "name=widgets,type=MODIFIED", 1},
				{"informer_lists_total", "name=widgets,reason=initial,streaming=false", 1},
				{"informer_list_items_total", "name=widgets", 2},
				{"informer_store_items", "name=widgets", 5},
				{"informer_synced", "name=widgets", 1},
			} {
				if got := value(t, fams, c.name, c.labels); got != c.want {
					t.Errorf("%s{%s} = %v, want %v", c.name, c.labels, got, c.want)
				}
			}
			if lag := value(t, fams, "informer_lag_seconds", "name=widgets"); lag < 0 || lag > 10 {
				t.Errorf("informer_lag_seconds = %v", lag)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the handler's 3 pending notifications never showed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	src.DropWatches(nil)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		fams := scrape(t, srv)
		if f := fams["informer_watch_restarts_total"]; f != nil && value(t, fams, "informer_watch_restarts_total", "name=widgets,reason=closed") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no informer_watch_restarts_total{reason=closed}")
		}
	}
}

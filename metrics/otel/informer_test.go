package otel_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/informer-go/informer"
	infotel "github.com/informer-go/informer/metrics/otel"
	"github.com/informer-go/informer/source/memory"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type widget struct{ metav1.ObjectMeta }

// An informer's list and events, and its gauges, through the SDK.
func TestInformerThroughTheSDK(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := infotel.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("informer"))
	if err != nil {
		t.Fatal(err)
	}
	src := memory.New[*widget](memory.Options{})
	src.Create(&widget{metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	src.Create(&widget{metav1.ObjectMeta{Namespace: "ns", Name: "b"}})
	inf := informer.New(src, informer.Options[*widget]{Logger: slog.New(slog.DiscardHandler), Metrics: m.Informer("widgets")})
	seen := make(chan struct{})
	reg, _ := inf.AddHandler(informer.HandlerFuncs[*widget]{AddFunc: func(w *widget, _ bool) {
		if w.Name == "c" {
			close(seen)
		}
	}}, informer.HandlerOptions{Name: "h"})
	remove, err := infotel.WatchInformer(m, "widgets", inf)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	removeH, err := infotel.WatchHandler(m, "widgets", "h", reg)
	if err != nil {
		t.Fatal(err)
	}
	defer removeH()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		t.Fatal(err)
	}
	src.Create(&widget{metav1.ObjectMeta{Namespace: "ns", Name: "c"}})
	<-seen
	got := collect(t, reader)
	for k, want := range map[string]float64{
		"informer.lists{name=widgets,reason=initial,streaming=false}": 1,
		"informer.list_items{name=widgets}":                           2,
		"informer.events{name=widgets,type=ADDED}":                    1,
		"informer.store_items{name=widgets}":                          3,
		"informer.synced{name=widgets}":                               1,
		"informer.pending_notifications{handler=h,name=widgets}":      0,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (recorded: %v), want %v", k, v, ok, want)
		}
	}
	if _, ok := got["informer.lag{name=widgets}"]; !ok {
		t.Error("no informer.lag")
	}
}

// A Source's callbacks reach the SDK with their op.
func TestSourceThroughTheSDK(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := infotel.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("informer"))
	if err != nil {
		t.Fatal(err)
	}
	s := m.Source("pods")
	s.Decoded("list", 2, 300)
	s.Decoded("watch", 1, 120)
	s.DecodeFailed("watch")
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if d, ok := mt.Data.(metricdata.Sum[int64]); ok {
				for _, p := range d.DataPoints {
					got[mt.Name+attrs(p.Attributes)] += p.Value
				}
			}
		}
	}
	for k, want := range map[string]int64{
		"informer.decoded_objects{name=pods,op=list}":  2,
		"informer.decoded_bytes{name=pods,op=list}":    300,
		"informer.decoded_objects{name=pods,op=watch}": 1,
		"informer.decoded_bytes{name=pods,op=watch}":   120,
		"informer.decode_failures{name=pods,op=watch}": 1,
	} {
		if got[k] != want {
			t.Errorf("%s = %d, want %d (all: %v)", k, got[k], want, got)
		}
	}
}

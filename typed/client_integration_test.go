package typed_test

import (
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// countingTransport counts the requests that are not watches.
type countingTransport struct {
	rt   http.RoundTripper
	sent atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.sent.Add(1)
	return c.rt.RoundTrip(req)
}

// TestIntegrationFactoryClient writes through a factory's Client and
// reads the writes from the factory's informer, and checks that the
// Client's requests go through the factory's HTTP client and rate
// limiter.
func TestIntegrationFactoryClient(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("factory-client-%d", time.Now().UnixNano()%1e6)
	createNamespace(t, r, ns)
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	ct := &countingTransport{rt: hc.Transport}
	hc.Transport = ct
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{Namespace: ns, HTTPClient: hc, QPS: 4, Burst: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Shutdown()
	ctx := t.Context()
	ref, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Release()
	client, err := typed.NewClient(f, configMaps, kube.ClientOptions{FieldManager: "factory-test"})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}

	before := ct.sent.Load()
	start := time.Now()
	var last *ConfigMap
	for i := range 4 {
		cm := &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w-%d", i), Namespace: ns}, Data: map[string]string{"i": fmt.Sprint(i)}}
		if last, err = client.Create(ctx, cm, kube.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The factory's limiter lets 4 requests a second through, one at a
	// time: the informer's list and watch took the burst, so 4 creates
	// take about a second.
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Errorf("4 creates took %s: not paced by the factory's limiter (4 a second)", d)
	}
	if got := ct.sent.Load() - before; got != 4 {
		t.Errorf("%d requests through the factory's HTTP client, want 4", got)
	}
	if err := ref.Informer().WaitForResourceVersion(ctx, last.ResourceVersion); err != nil {
		t.Fatal(err)
	}
	lister := ref.Lister().Namespace(ns)
	if cm, ok := lister.Get("w-3"); !ok || cm.Data["i"] != "3" {
		t.Errorf("the informer's cache after WaitForResourceVersion: %v", cm)
	}
	if _, err := client.Create(ctx, last, kube.WriteOptions{}); !errors.Is(err, kube.ErrInvalidArgument) {
		t.Errorf("Create of an object with a resourceVersion: %v, want ErrInvalidArgument", err)
	}
	last.ResourceVersion = ""
	if _, err := client.Create(ctx, last, kube.WriteOptions{}); !errors.Is(err, kube.ErrAlreadyExists) {
		t.Errorf("Create again: %v", err)
	}
}

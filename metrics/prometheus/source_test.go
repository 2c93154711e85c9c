package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	infprom "github.com/informer-go/informer/metrics/prometheus"
	kubesrc "github.com/informer-go/informer/source/kube"
	prom "github.com/prometheus/client_golang/prometheus"
)

// A Source's decoded objects and bytes, and an event it could not
// decode, from a fake API server: a list of two objects (its body's
// exact size), then a watch of an ADDED event and a garbled one.
func TestSourceScraped(t *testing.T) {
	list := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[` +
		`{"metadata":{"namespace":"ns","name":"a","resourceVersion":"5"}},{"metadata":{"namespace":"ns","name":"b","resourceVersion":"6"}}]}`
	added := `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"ns","name":"c","resourceVersion":"11"}}}` + "\n"
	garbled := `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"ns","name":7}}}` + "\n"
	watched := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "" {
			fmt.Fprint(w, list)
			return
		}
		select {
		case <-watched: // later watches: nothing until the test ends
			<-r.Context().Done()
			return
		default:
			close(watched)
		}
		fmt.Fprint(w, added+garbled)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer api.Close()
	reg := prom.NewRegistry()
	m, err := infprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := kubesrc.New[*object](&kube.Config{Host: api.URL}, kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		kubesrc.Options{Metrics: m.Source("cms"), DisableKindCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	inf := informer.New(src, informer.Options[*object]{Logger: quiet, Reflector: informer.ReflectorOptions{WatchList: informer.WatchListOff}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	srv := httptest.NewServer(infprom.Handler(reg, infprom.Checks{}))
	defer srv.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		fams := scrape(t, srv)
		if fams["informer_decode_failures_total"] == nil || fams["informer_decoded_objects_total"] == nil ||
			valueOr(fams, "informer_decoded_objects_total", "name=cms,op=watch", 0) != 1 {
			if time.Now().After(deadline) {
				t.Fatalf("no watch event and decode failure counted:\n%s", dump(t, srv))
			}
			continue
		}
		// The skipped event makes the informer list again within a
		// second: one list or more, each of 2 objects and len(list) bytes.
		objs := valueOr(fams, "informer_decoded_objects_total", "name=cms,op=list", -1)
		lists := float64(int(objs / 2))
		if objs < 2 || objs != 2*lists {
			t.Errorf("informer_decoded_objects_total{op=list} = %v, want a multiple of 2", objs)
		}
		if got := valueOr(fams, "informer_decoded_bytes_total", "name=cms,op=list", -1); got != lists*float64(len(list)) {
			t.Errorf("informer_decoded_bytes_total{op=list} = %v, want %v (%v lists of %d bytes)", got, lists*float64(len(list)), lists, len(list))
		}
		if got := valueOr(fams, "informer_decode_failures_total", "name=cms,op=watch", -1); got != 1 {
			t.Errorf("informer_decode_failures_total{op=watch} = %v, want 1", got)
		}
		if got := valueOr(fams, "informer_decoded_bytes_total", "name=cms,op=watch", -1); got < float64(len(added)) {
			t.Errorf("informer_decoded_bytes_total{op=watch} = %v, want at least %d", got, len(added))
		}
		return
	}
}

package kube

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// TestSourceClose: Close closes the idle connections of the client New
// made, and leaves a client given in Options.HTTPClient alone.
func TestSourceClose(t *testing.T) {
	for _, own := range []bool{true, false} {
		var closed atomic.Int32
		srv := httptest.NewUnstartedServer(serveJSON(200, kubefixture.ListJSON("5", "")))
		srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
			if s == http.StateClosed {
				closed.Add(1)
			}
		}
		srv.Start()
		t.Cleanup(srv.Close)
		opts := Options{QPS: -1}
		var given *http.Client
		if !own {
			given = &http.Client{Transport: &http.Transport{}}
			opts.HTTPClient = given
		}
		src, err := New[*kubefixture.Widget](&kube.Config{Host: srv.URL}, widgetRes, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for own && closed.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := closed.Load() == 1; got != own {
			t.Errorf("own client %v: connection closed %v", own, got)
		}
		if given != nil {
			given.CloseIdleConnections()
		}
	}
}

package kube

import (
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// TestCloseEndsBlockedNextWithEOF: Close makes a Next that is blocked
// reading the stream return io.EOF, not the error of the read that Close
// cut short (the reflector takes io.EOF as a clean end).
func TestCloseEndsBlockedNextWithEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		go func() { // one event, then a silent stream
			io.WriteString(pw, kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("ns", "w1", "5", "red")))
		}()
		transport := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{
				StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
				Body: pr, Request: r,
			}, nil
		})
		src, err := New[*kubefixture.Widget](&kube.Config{Host: "https://apiserver.test"}, widgetRes, Options{QPS: -1, HTTPClient: &http.Client{Transport: transport}})
		if err != nil {
			t.Fatal(err)
		}
		w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "4"})
		if err != nil {
			t.Fatal(err)
		}
		if ev, err := w.Next(); err != nil || ev.Object.Name != "w1" {
			t.Fatalf("first event: %+v, %v", ev, err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := w.Next()
			done <- err
		}()
		synctest.Wait() // Next is blocked reading the stream
		w.Close()
		if err := <-done; err != io.EOF {
			t.Errorf("a blocked Next after Close: %v, want io.EOF", err)
		}
	})
}

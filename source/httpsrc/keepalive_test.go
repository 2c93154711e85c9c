package httpsrc_test

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Keep-alive events (mapped to Ignore) are heartbeats too
// (WatchOptions.Heartbeat), as SSE comments and blank NDJSON lines are
// (TestHeartbeats), and so, in poll mode, is a poll that finds nothing
// new: a quiet, healthy stream is not taken for a stalled one.
func TestHeartbeatsFromKeepAlivesAndPolls(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		min               int64
	}{
		{"SSE keep-alive events", "text/event-stream", "event: ping\ndata: keep-alive\n\nevent: keepalive\ndata: {}\n\n", 2},
		{"NDJSON pings", "application/x-ndjson", `{"type":"ping"}` + "\n" + `{"type":"keep-alive"}` + "\n", 2},
		// A bookmark without a version is a keep-alive too, not an
		// error ("bookmark without resourceVersion").
		{"SSE heartbeat events without an id", "text/event-stream", "event: heartbeat\ndata: {}\n\nevent: bookmark\ndata: now\n\n", 2},
		{"NDJSON bookmarks without a version", "application/x-ndjson", `{"type":"heartbeat","object":{}}` + "\n" + `{"type":"BOOKMARK","object":{"metadata":{}}}` + "\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				io.WriteString(w, tt.body)
			})
			src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
			var beats atomic.Int64
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1", Heartbeat: func() { beats.Add(1) }})
			if err != nil {
				t.Fatal(err)
			}
			got, err := drain(t, w)
			if err != io.EOF || len(got) != 0 {
				t.Errorf("events %q, err %v; want none, EOF", got, err)
			}
			if n := beats.Load(); n != tt.min {
				t.Errorf("%d heartbeats, want %d", n, tt.min)
			}
		})
	}
	t.Run("poll", func(t *testing.T) {
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("If-None-Match") == `"1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"1"`)
			io.WriteString(w, `[{"metadata":{"name":"a","resourceVersion":"1"}}]`)
		})
		src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL, PollInterval: time.Millisecond})
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		beats := make(chan struct{}, 100)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion, Heartbeat: func() {
			select {
			case beats <- struct{}{}:
			default:
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		go w.Next()
		for range 3 {
			select {
			case <-beats:
			case <-ctx.Done():
				t.Fatal("no heartbeat from polls answered 304")
			}
		}
	})
}

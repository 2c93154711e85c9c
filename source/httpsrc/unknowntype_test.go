package httpsrc_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// An event of a type the options do not map is informer.ErrUnknownEventType
// as well as ErrBadEvent: a message that carries no change, which a
// reflector reports and skips. It was only ErrBadEvent (the sentinel's text
// was in the message), so a reflector counted each as a lost change and,
// after a few on one stream (a service's own "stats" events, say), listed
// again, and again after each new watch: the change after them never came.
func TestUnknownEventTypeIsErrUnknownEventType(t *testing.T) {
	var lists atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/items" {
			lists.Add(1)
			io.WriteString(w, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, strings.Repeat("event: stats\ndata: {\"watchers\":3}\n\n", 12))
		io.WriteString(w, "id: 2\nevent: added\ndata: {\"metadata\":{\"name\":\"b\"}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	opts := httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", NumericVersions: true}

	src, err := httpsrc.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Next()
	w.Close()
	if !errors.Is(err, informer.ErrUnknownEventType) || !errors.Is(err, informer.ErrBadEvent) {
		t.Errorf("Next: %v, want ErrUnknownEventType and ErrBadEvent", err)
	}

	src, _ = httpsrc.New(opts)
	inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	if err := inf.WaitForResourceVersion(wctx, "2"); err != nil {
		t.Fatalf("the change after 12 unknown events: %v (lists: %d)", err, lists.Load())
	}
	if n := lists.Load(); n != 1 {
		t.Errorf("%d lists, want 1: unknown event types were taken for lost changes", n)
	}
}

// An event of a type the options do not map and without an object (an
// NDJSON greeting on connect, {"type":"hello"}) is ErrUnknownEventType
// too, not an unreadable change ("no object at /object"): the reflector
// lists again within a second of a skipped change, and would after each
// watch.
func TestUnknownEventTypeWithoutObject(t *testing.T) {
	var lists atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/items" {
			lists.Add(1)
			io.WriteString(w, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}}]}`)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, `{"type":"hello","server":"flags/1.0"}`+"\n")
		io.WriteString(w, `{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"2"}}}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	opts := httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", NumericVersions: true}
	src, err := httpsrc.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Next()
	w.Close()
	if !errors.Is(err, informer.ErrUnknownEventType) || !errors.Is(err, informer.ErrBadEvent) {
		t.Errorf("Next: %v, want ErrUnknownEventType and ErrBadEvent", err)
	}

	inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	if err := inf.WaitForResourceVersion(wctx, "2"); err != nil {
		t.Fatalf("the change after a greeting: %v (lists: %d)", err, lists.Load())
	}
	// Longer than the reflector's repair delay (1 s), on a real server.
	time.Sleep(1500 * time.Millisecond)
	if n := lists.Load(); n != 1 {
		t.Errorf("%d lists, want 1: the greeting was taken for a lost change", n)
	}
	if h := inf.Health(); !h.Healthy() {
		t.Errorf("Health %s, want healthy", h)
	}
}

package httpsrc_test

import (
	"context"
	"errors"
	"fmt"
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

// drain reads a watch to its end: the events (kind:name@version) and the
// final error; bad events are recorded as "bad" and skipped.
func drain(t *testing.T, w informer.Watcher[*Item]) ([]string, error) {
	t.Helper()
	defer w.Close()
	var got []string
	for {
		ev, err := w.Next()
		if errors.Is(err, informer.ErrBadEvent) {
			got = append(got, "bad")
			continue
		}
		if err != nil {
			return got, err
		}
		s := ev.Type.String()
		if ev.Object != nil {
			s += ":" + ev.Object.Name
		}
		got = append(got, s+"@"+ev.ResourceVersion)
	}
}

func TestWatchFormats(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		opts              httpsrc.Options[*Item]
		want              string
		err               error
	}{
		{
			name: "SSE", ctype: "text/event-stream",
			body: ": hello\n\nid: 2\nevent: added\ndata: {\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"2\"}}\n\n" +
				"id: 3\nevent: updated\ndata: {\"metadata\":\n" + "data: {\"name\":\"a\"}}\n\n" +
				"id: 4\n\n" +
				"id: 5\nevent: remove\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n" +
				"event: teleported\ndata: {\"metadata\":{\"name\":\"b\"}}\n\n" +
				"data: not json\n\n" +
				"event: added\ndata: {\"count\":1}\n\n",
			want: "ADDED:a@2 MODIFIED:a@3 BOOKMARK@4 DELETED:a@5 bad bad bad", err: io.EOF,
		},
		{
			name: "NDJSON", ctype: "application/x-ndjson",
			body: `{"type":"create","object":{"metadata":{"name":"a","resourceVersion":"2"}}}` + "\n\n" +
				"garbage\r\n" +
				`{"type":"delete","object":{"metadata":{"name":"a","resourceVersion":"3"}}}` + "\n" +
				`{"type":"bookmark","object":{"metadata":{"resourceVersion":"9"}}}` + "\n" +
				`{"type":"added"}` + "\n",
			want: "ADDED:a@ bad DELETED:a@ BOOKMARK@9 bad", err: io.EOF,
		},
		{
			name: "Kubernetes shape, ERROR 410", ctype: "application/json",
			body: `{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2"}}}` + "\n" +
				`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}}` + "\n" +
				`{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}` + "\n",
			want: "ADDED:a@ BOOKMARK@5", err: informer.ErrExpired,
		},
		{
			name: "versions from a field", ctype: "application/jsonl", opts: httpsrc.Options[*Item]{EventType: "/op", EventObject: "/item", EventVersion: "/seq"},
			body: `{"op":"put","seq":11,"item":{"metadata":{"name":"x"}}}` + "\n",
			want: "MODIFIED:x@11", err: io.EOF,
		},
		{name: "expired event", ctype: "text/event-stream", body: "event: expired\ndata: {}\n\n", err: informer.ErrExpired},
		{name: "cut mid-event", ctype: "text/event-stream", body: "id: 2\nevent: added\ndata: {\"metadata\":{\"name\":\"a\"}}\n\nid: 3\ndata: {", want: "ADDED:a@2", err: io.ErrUnexpectedEOF},
		{name: "line too long", ctype: "application/x-ndjson", opts: httpsrc.Options[*Item]{MaxObjectBytes: 32}, body: `{"type":"added","object":{"metadata":{"name":"aaaaaaaaaaaaaaaaaa"}}}` + "\n", err: httpsrc.ErrTooLarge},
		{name: "HTML page", ctype: "text/html", body: "<html></html>", err: httpsrc.ErrUnexpectedContentType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lastEventID, param string
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				lastEventID, param = r.Header.Get("Last-Event-ID"), r.URL.Query().Get("resourceVersion")
				w.Header().Set("Content-Type", tt.ctype)
				io.WriteString(w, tt.body)
			})
			tt.opts.ListURL, tt.opts.WatchURL = srv.URL+"/items", srv.URL+"/events"
			src, _ := httpsrc.New(tt.opts)
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
			var got []string
			if err == nil {
				got, err = drain(t, w)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("err %v, want %v", err, tt.err)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("events %q, want %q", strings.Join(got, " "), tt.want)
			}
			if err == nil || !errors.Is(err, httpsrc.ErrUnexpectedContentType) {
				if lastEventID != "1" || param != "1" {
					t.Errorf("resumed with Last-Event-ID %q and resourceVersion %q, want 1", lastEventID, param)
				}
			}
		})
	}
}

func TestWatchStatus(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) })
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
	if _, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"}); !errors.Is(err, informer.ErrExpired) {
		t.Errorf("410: %v", err)
	}
	src, _ = httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", ExpiredStatus: []int{409}})
	if _, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"}); errors.Is(err, informer.ErrExpired) {
		t.Errorf("410 with ExpiredStatus [409]: %v", err)
	}
	if _, err := src.Watch(t.Context(), informer.WatchOptions{SendInitialEvents: true}); !errors.Is(err, informer.ErrWatchListUnsupported) {
		t.Errorf("streaming list: %v", err)
	}
}

func TestServerThatNeverAnswers(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	src, _ := httpsrc.New(httpsrc.Options[*Item]{
		ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events",
		ListTimeout: 50 * time.Millisecond, ConnectTimeout: 50 * time.Millisecond,
	})
	if _, err := src.List(t.Context(), informer.ListOptions{}); !errors.Is(err, httpsrc.ErrTimeout) {
		t.Errorf("list: %v", err)
	}
	if _, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"}); !errors.Is(err, httpsrc.ErrTimeout) {
		t.Errorf("watch: %v", err)
	}
}

func TestNDJSONObjectNotLast(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, `{"object":{"metadata":{"name":"a"}},"type":"added","extra":{"x":"}"}}`+"\n"+`{"type":"added","object":{"metadata":{"name":"b"}} }`+"\n")
	})
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
	w, err := src.Watch(t.Context(), informer.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(t, w)
	if strings.Join(got, " ") != "ADDED:a@ ADDED:b@" || !errors.Is(err, io.EOF) {
		t.Errorf("%v %v", got, err)
	}
}

func TestInvalidUTF8(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: added\ndata: {\"metadata\":{\"name\":\"a\xff\xfe\"}}\n\nevent: add\xffed\ndata: {\"metadata\":{\"name\":\"b\"}}\n\n")
	})
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
	w, err := src.Watch(t.Context(), informer.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(t, w)
	// As encoding/json does, invalid bytes in a string become U+FFFD; an
	// invalid type name is an unknown type.
	if strings.Join(got, " ") != "ADDED:a\uFFFD\uFFFD@ bad" || !errors.Is(err, io.EOF) {
		t.Errorf("%q %v", got, err)
	}
}

// A stream whose versions go backwards makes the reflector list again,
// when the versions are known to be ordered (NumericVersions; opaque
// versions are never compared: TestDecimalETagsAreOpaque).
func TestVersionsGoingBackwardsRelist(t *testing.T) {
	var lists atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/items" {
			n := lists.Add(1)
			fmt.Fprintf(w, `{"metadata":{"resourceVersion":"%d"},"items":[{"metadata":{"name":"a","resourceVersion":"%d"}}]}`, 10*n, 10*n)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		if lists.Load() == 1 {
			io.WriteString(w, `{"type":"modified","object":{"metadata":{"name":"a","resourceVersion":"15"}}}`+"\n")
			io.WriteString(w, `{"type":"modified","object":{"metadata":{"name":"a","resourceVersion":"12"}}}`+"\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", NumericVersions: true})
	inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	go inf.Run(ctx)
	if err := inf.WaitForResourceVersion(ctx, "20"); err != nil {
		t.Fatalf("no relist after versions went backwards: %v (lists: %d)", err, lists.Load())
	}
	if it, _ := inf.Lister().Get("a"); it.ResourceVersion != "20" {
		t.Errorf("cached %v", it)
	}
}

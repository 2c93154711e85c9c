package httpsrc_test

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Event type names: Types' keys match whatever their case (only lower-case
// keys did: a server's flag.created was skipped for {"Flag.Created": ...}
// and the cache stayed at its first list), and names mapped to Ignore
// (gin's "event: ping" keep-alives, by default) are skipped without a
// word (each was a bad event).
func TestEventTypeNames(t *testing.T) {
	flags := map[string]informer.EventType{
		"Flag.Created": informer.EventAdded, "FLAG.DELETED": informer.EventDeleted, "KeepAlive": httpsrc.Ignore,
		"Geändert": informer.EventModified,
	}
	tests := []struct {
		name, ctype, body string
		types             map[string]informer.EventType
		want              string
	}{
		{
			name: "keys in any case", ctype: "text/event-stream", types: flags,
			body: "id: 2\nevent: flag.created\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n" +
				"id: 3\nevent: Flag.Deleted\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n" +
				"id: 4\nevent: GEÄNDERT\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n",
			want: "ADDED:a@2 DELETED:a@3 MODIFIED:a@4",
		},
		{
			name: "ignored by the user's map", ctype: "text/event-stream", types: flags,
			body: "event: keepalive\ndata: {}\n\nevent: KEEPALIVE\ndata: now\n\n" +
				"id: 2\nevent: flag.created\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n",
			want: "ADDED:a@2",
		},
		{
			name: "gin's ping, by default", ctype: "text/event-stream",
			body: "event: ping\ndata: keep-alive\n\n" +
				"id: 2\nevent: added\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n" +
				"event: ping\ndata: keep-alive\n\n",
			want: "ADDED:a@2",
		},
		{
			name: "NDJSON keep-alives, by default", ctype: "application/x-ndjson",
			body: `{"type":"ping"}` + "\n" + `{"type":"keep-alive","object":"x"}` + "\n" +
				`{"type":"added","object":{"metadata":{"name":"a","resourceVersion":"2"}}}` + "\n",
			want: "ADDED:a@",
		},
		{
			name: "unknown names are still bad events", ctype: "text/event-stream", types: flags,
			body: "event: flag.renamed\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n",
			want: "bad",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				io.WriteString(w, tt.body)
			})
			src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", Types: tt.types})
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := drain(t, w)
			if !errors.Is(err, io.EOF) {
				t.Errorf("err %v, want EOF", err)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("events %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

// gzipBuffering is a compressing middleware of the common kind (as
// FastAPI's GZipMiddleware): when the client accepts gzip, the answer is
// compressed, and what the handler writes reaches the client only when
// the compressor's buffer fills or the handler returns; the handler's
// Flush does not get through.
func gzipBuffering(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		defer zw.Close()
		next.ServeHTTP(bufferedWriter{w, zw}, r)
	})
}

type bufferedWriter struct {
	http.ResponseWriter
	zw *gzip.Writer
}

func (b bufferedWriter) Write(p []byte) (int, error) { return b.zw.Write(p) }
func (b bufferedWriter) Flush()                      {} // buffered

// A change stream does not ask for compression (lists still do): behind a
// compressing middleware, a stream that asked for gzip got no event for
// as long as the stream lasted.
func TestStreamsAreNotCompressed(t *testing.T) {
	listEncoding := make(chan string, 1)
	srv := serve(t, gzipBuffering(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/items" {
			listEncoding <- r.Header.Get("Accept-Encoding")
			io.WriteString(w, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: 2\nevent: added\ndata: {\"metadata\":{\"name\":\"b\"}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})).ServeHTTP)
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil || names(page.Items) != "a" {
		t.Fatalf("list %q, %v", names(page.Items), err)
	}
	if enc := <-listEncoding; enc != "gzip" {
		t.Errorf("the list asked for Accept-Encoding %q, want gzip", enc)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ev, err := w.Next()
	if err != nil || ev.Object == nil || ev.Object.Name != "b" {
		t.Fatalf("no event through the middleware: %v, %v", ev, err)
	}
}

package httpsrc_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// SSE comments and blank NDJSON lines, which servers send to keep a quiet
// stream open, are reported as heartbeats (WatchOptions.Heartbeat), so that
// a reflector does not take a quiet, healthy stream for a stalled one.
func TestHeartbeats(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		want              string
		beats             int64
	}{
		{
			name: "SSE comments", ctype: "text/event-stream",
			body: ": ping\r\n\r\n:\n\nid: 2\nevent: added\n: a comment inside an event\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n: ping\n\n",
			want: "ADDED:a@2", beats: 4,
		},
		{
			name: "NDJSON blank lines", ctype: "application/x-ndjson",
			body: "\n\r\n" + `{"type":"added","object":{"metadata":{"name":"a","resourceVersion":"2"}}}` + "\n \n",
			want: "ADDED:a@", beats: 3,
		},
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
			if err != io.EOF || strings.Join(got, " ") != tt.want {
				t.Errorf("events %q, %v; want %q, EOF", got, err, tt.want)
			}
			if n := beats.Load(); n != tt.beats {
				t.Errorf("%d heartbeats, want %d", n, tt.beats)
			}
		})
	}
}

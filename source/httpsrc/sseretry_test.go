package httpsrc_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// inMemoryClient serves requests with h without a network, so that a
// Source can run inside a testing/synctest bubble. A response is whole
// once h returns.
func inMemoryClient(h http.HandlerFunc) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h(rec, r)
		return rec.Result(), nil
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSSERetryDelaysReconnect: the retry field of an SSE stream delays the
// next watch by that many milliseconds, as the standard says of the next
// reconnection; a later retry field replaces it, and a stream without one
// leaves the last in force. The first watch is not delayed.
func TestSSERetryDelaysReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		streams := []string{
			"retry: 3000\n\nid: 5\nevent: added\ndata: {\"metadata\":{\"name\":\"a\",\"namespace\":\"shop\"}}\n\n",
			"retry: 1500\n\nid: 6\nevent: modified\ndata: {\"metadata\":{\"name\":\"a\",\"namespace\":\"shop\"}}\n\n",
			"id: 7\n\n",
			"id: 8\n\n",
		}
		var mu sync.Mutex
		var requests []time.Time
		h := func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			n := len(requests)
			requests = append(requests, time.Now())
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, streams[min(n, len(streams)-1)])
		}
		src, err := httpsrc.New(httpsrc.Options[*Item]{
			ListURL:  "http://inventory.test/items",
			WatchURL: "http://inventory.test/events",
			Client:   inMemoryClient(h),
		})
		if err != nil {
			t.Fatal(err)
		}
		// Each watch reads its stream to the end, as the reflector does
		// before it reconnects, and the next starts at once.
		for i, wantDelay := range []time.Duration{0, 3 * time.Second, 1500 * time.Millisecond, 1500 * time.Millisecond} {
			start := time.Now()
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "4"})
			if err != nil {
				t.Fatalf("watch %d: %v", i, err)
			}
			if d := time.Since(start); d != wantDelay {
				t.Errorf("watch %d opened after %v, want %v", i, d, wantDelay)
			}
			mu.Lock()
			if got := requests[len(requests)-1].Sub(start); got != wantDelay {
				t.Errorf("watch %d: the request was sent after %v, want %v", i, got, wantDelay)
			}
			mu.Unlock()
			for {
				if _, err := w.Next(); err != nil {
					break
				}
			}
			w.Close()
		}
	})
}

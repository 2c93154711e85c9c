package httpsrc_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// A server that ends every stream right after one event (a close-after-send
// endpoint), with retry: 0, retry: 1 or no retry field, is reconnected to
// about once a second at most, not at once for ever: a retry field is
// raised to Options.MinRetry (1 s), and without one a stream that ended
// within a second of opening is followed by Options.ReconnectDelay (3 s).
// (Before: 300 to 7,000 requests a second, healthy and silent.)
func TestCloseAfterSendIsNotAStorm(t *testing.T) {
	for _, tc := range []struct {
		name, retry string
		max         int64 // stream requests in the 3 s measured
	}{
		{"retry 0", "0", 5},
		{"retry 1", "1", 5},
		{"no retry", "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc := newCounterService("a")
			svc.closeAfterSend, svc.retry = true, tc.retry
			base := svc.serve(t)
			src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: base + "/items", WatchURL: base + "/events", NumericVersions: true})
			if err != nil {
				t.Fatal(err)
			}
			inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go inf.Run(ctx)
			if err := informer.WaitForCacheSync(ctx, inf); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			defer close(stop)
			go func() { // a change every 20 ms: every stream has one to send
				for {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
						svc.put("a")
					}
				}
			}()
			before, start := svc.streams.Load(), time.Now()
			time.Sleep(3 * time.Second)
			n := svc.streams.Load() - before
			t.Logf("%d stream requests in %s: %.1f/s", n, time.Since(start).Round(time.Millisecond), float64(n)/time.Since(start).Seconds())
			if n > tc.max {
				t.Errorf("%d stream requests in 3 s to a close-after-send server, want at most %d", n, tc.max)
			}
		})
	}
}

// A quiet stream that the server ends at once, with retry: 500, or a
// keep-alive comment and no retry field: a write after a long silence
// reaches the cache within the reconnection wait (1 s: 500 ms raised to
// MinRetry; 3 s: ReconnectDelay), not after a backoff grown through the
// silence (before: 3.6 s and 28.6 s late). A stream that ends at once with
// nothing at all is the limit: it looks like one that refuses the version,
// the reflector backs off and lists again, and LastError says "watch ended
// at once without an event".
func TestQuietShortStreamsDeliverPromptly(t *testing.T) {
	for _, tc := range []struct {
		name, retry string
		comment     bool
		within      time.Duration
	}{
		{"retry 500", "500", false, 1100 * time.Millisecond},
		{"a comment, no retry", "", true, 3100 * time.Millisecond},
		{"nothing (the limit)", "", false, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				svc := newCounterService("a")
				svc.closeAfterSend, svc.retry, svc.comment = true, tc.retry, tc.comment
				src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: "http://svc.test/items", WatchURL: "http://svc.test/events",
					NumericVersions: true, Client: inMemoryClient(svc.ServeHTTP)})
				if err != nil {
					t.Fatal(err)
				}
				inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go inf.Run(ctx)
				if err := informer.WaitForCacheSync(ctx, inf); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Minute) // quiet
				if err := inf.LastError(); tc.within == time.Minute && (err == nil || !strings.Contains(err.Error(), "without an event")) {
					t.Errorf("LastError %v, want it to say the watches end without an event", err)
				}
				start := time.Now()
				svc.put("b")
				for {
					if _, ok := inf.Lister().Get("b"); ok {
						break
					}
					if time.Since(start) > time.Minute {
						t.Fatalf("the write is not in the cache a minute later: %s", inf.Health())
					}
					time.Sleep(10 * time.Millisecond)
				}
				if d := time.Since(start); d > tc.within {
					t.Errorf("the write reached the cache %s after it was made, want within %s", d, tc.within)
				}
				cancel()
				synctest.Wait()
			})
		})
	}
}

// The wait after a short stream is once: a watch that then fails (a 502)
// is the reflector's to back off, and the next watch does not wait again;
// and a stream that ended with nothing at all is not followed by it (the
// reflector escalates such streams to a relist).
func TestReconnectDelayOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answers := []string{"event", "502", "", "nothing", ""}
		n := 0
		h := func(w http.ResponseWriter, r *http.Request) {
			a := answers[min(n, len(answers)-1)]
			n++
			switch a {
			case "502":
				http.Error(w, "bad gateway", http.StatusBadGateway)
				return
			case "event":
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "id: 2\nevent: added\ndata: {\"metadata\":{\"name\":\"a\"}}\n\n")
			default:
				w.Header().Set("Content-Type", "text/event-stream")
			}
		}
		src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: "http://svc.test/items", WatchURL: "http://svc.test/events",
			Client: inMemoryClient(h)})
		if err != nil {
			t.Fatal(err)
		}
		// The waits before each watch: none; 3 s after the short stream
		// with an event; none after the failed watch; none after the
		// stream that ended with nothing.
		for i, want := range []time.Duration{0, 3 * time.Second, 0, 0} {
			start := time.Now()
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
			if d := time.Since(start); d != want {
				t.Errorf("watch %d waited %s, want %s", i, d, want)
			}
			if err != nil {
				continue
			}
			for {
				if _, err := w.Next(); err != nil {
					break
				}
			}
			w.Close()
		}
	})
}

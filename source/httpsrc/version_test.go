package httpsrc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// The Source orders versions only when told they are numbers, and the
// versions poll mode makes up always.
func TestCompareVersions(t *testing.T) {
	opaque, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: "http://x/items"})
	numeric, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: "http://x/items", NumericVersions: true})
	tests := []struct {
		src  *httpsrc.Source[*Item]
		a, b string
		c    int
		ok   bool
	}{
		{opaque, "1", "2", 0, false},
		{opaque, "poll-2", "poll-10", -1, true},
		{opaque, "poll-3", "poll-3", 0, true},
		{numeric, "10", "9", 1, true},
		{numeric, "9", "10", -1, true},
		{numeric, "abc", "10", 0, false},
		{numeric, "poll-1", "10", 0, false},
		{numeric, `"1"`, "1", 0, false},
	}
	for _, tc := range tests {
		c, ok := tc.src.CompareVersions(tc.a, tc.b)
		if c != tc.c || ok != tc.ok {
			t.Errorf("CompareVersions(%q, %q) = %d, %v; want %d, %v", tc.a, tc.b, c, ok, tc.c, tc.ok)
		}
	}
}

// A version taken from an ETag is its opaque value: no quotes, no W/.
// It goes back in Last-Event-ID and the version parameter as that value;
// If-None-Match sends the ETag exactly as received. (The quoted tag was
// sent back, and a service answered 400 forever.)
func TestETagVersion(t *testing.T) {
	for _, tag := range []string{`"5"`, `W/"5"`} {
		t.Run(tag, func(t *testing.T) {
			type watchReq struct{ lastEventID, param string }
			watches := make(chan watchReq, 10)
			ifNoneMatch := make(chan string, 10)
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/items" {
					if inm := r.Header.Get("If-None-Match"); inm != "" {
						ifNoneMatch <- inm
						w.WriteHeader(http.StatusNotModified)
						return
					}
					w.Header().Set("ETag", tag)
					io.WriteString(w, `[{"metadata":{"name":"a","resourceVersion":"5"}}]`)
					return
				}
				watches <- watchReq{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("resourceVersion")}
				w.Header().Set("Content-Type", "text/event-stream")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			})
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()

			src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
			page, err := src.List(ctx, informer.ListOptions{})
			if err != nil || page.ResourceVersion != "5" {
				t.Fatalf("list version %q, %v; want 5", page.ResourceVersion, err)
			}
			w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			if got := <-watches; got.lastEventID != "5" || got.param != "5" {
				t.Errorf("watch sent Last-Event-ID %q, resourceVersion %q; want 5", got.lastEventID, got.param)
			}

			poll, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", PollInterval: time.Millisecond})
			page, err = poll.List(ctx, informer.ListOptions{})
			if err != nil || page.ResourceVersion != "5" {
				t.Fatalf("poll mode: list version %q, %v; want 5", page.ResourceVersion, err)
			}
			pw, err := poll.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			go pw.Next()
			if got := <-ifNoneMatch; got != tag {
				t.Errorf("If-None-Match %q, want the ETag as received, %q", got, tag)
			}
		})
	}
}

// A list whose objects did not change but whose version did (a create and
// a delete between two polls) is recorded: the applied version reaches
// the service's, and later polls are 304s. (The snapshot stayed at the
// old ETag: every later poll was a whole list, and the version never
// moved.)
func TestPollRecordsAnUnchangedList(t *testing.T) {
	var mu sync.Mutex
	version := 1
	var full, notModified int
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		etag := fmt.Sprintf(`"%d"`, version)
		if r.Header.Get("If-None-Match") == etag {
			notModified++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full++
		w.Header().Set("ETag", etag)
		io.WriteString(w, `[{"metadata":{"name":"a","resourceVersion":"1"}}]`)
	})
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL, PollInterval: 5 * time.Millisecond})
	inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	go inf.Run(ctx)
	if err := inf.WaitForResourceVersion(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	version = 3 // b created and deleted: the same objects, a new version
	mu.Unlock()
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	if err := inf.WaitForResourceVersion(wctx, "3"); err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the applied version never reached 3: %v (applied %q; %d full lists, %d not modified)", err, inf.AppliedResourceVersion(), full, notModified)
	}
	mu.Lock()
	fullAt3 := full
	mu.Unlock()
	for { // a few more polls: each a 304
		mu.Lock()
		n, f := notModified, full
		mu.Unlock()
		if n >= 3 {
			if f != fullAt3 {
				t.Errorf("%d whole lists after the version reached 3, want none", f-fullAt3)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatal(errors.New("no 304 after the version reached 3"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ETags that happen to be decimal numbers (a hash, say) are opaque
// versions all the same: poll mode's versions may go "down" from one
// list to the next, and the reflector must neither ignore the new
// version nor take the next poll's changes for out of order (it guessed
// that versions that look like numbers are ordered: the version stayed
// at 500 and every later change forced a relist).
func TestDecimalETagsAreOpaque(t *testing.T) {
	var mu sync.Mutex
	etag, count := `"500"`, 1
	var unconditional int
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if inm := r.Header.Get("If-None-Match"); inm == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		} else if inm == "" {
			unconditional++
		}
		w.Header().Set("ETag", etag)
		fmt.Fprintf(w, `[{"metadata":{"name":"a"},"count":%d}]`, count)
	})
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL, PollInterval: 5 * time.Millisecond})
	inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	go inf.Run(ctx)
	if err := inf.WaitForResourceVersion(ctx, "500"); err != nil {
		t.Fatal(err)
	}
	for i, next := range []string{"300", "200", "900", "100"} {
		mu.Lock()
		etag, count = `"`+next+`"`, i+2
		mu.Unlock()
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		err := inf.WaitForResourceVersion(wctx, next)
		wcancel()
		if err != nil {
			t.Fatalf("version %s never applied: %v (applied %q)", next, err, inf.AppliedResourceVersion())
		}
		if it, _ := inf.Lister().Get("a"); it.Count != i+2 {
			t.Fatalf("at version %s the cache shows count %d, want %d", next, it.Count, i+2)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if unconditional != 1 {
		t.Errorf("%d unconditional lists, want 1 (no relist)", unconditional)
	}
}

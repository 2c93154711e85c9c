package httpsrc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/inventory"
	"github.com/informer-go/informer/source/httpsrc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWarmRestart: an informer over the service writes a snapshot and
// stops; while it is down items change. One restored from the snapshot
// resumes the stream from the snapshot's version (no list) in SSE and
// NDJSON; in poll mode, and after the service compacted its history,
// lists once; each tells its handler exactly the changes since the
// snapshot. A Source of another URL refuses the snapshot.
func TestWarmRestart(t *testing.T) {
	for _, c := range []struct {
		mode    string
		compact bool
		lists   int64
	}{{"sse", false, 0}, {"ndjson", false, 0}, {"sse", true, 1}, {"poll", false, 1}} {
		name := c.mode
		if c.compact {
			name += ", compacted"
		}
		t.Run(name, func(t *testing.T) {
			inv := inventory.New()
			for i := range 20 {
				inv.Put(Item{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: string(rune('a' + i))}, Count: i})
			}
			var lists atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/items" {
					lists.Add(1)
				}
				inv.ServeHTTP(w, r)
			}))
			defer srv.Close()
			opts := httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", PollInterval: 20 * time.Millisecond}
			switch c.mode {
			case "sse":
				opts.Format = httpsrc.FormatSSE
			case "ndjson":
				opts.Format = httpsrc.FormatNDJSON
			case "poll":
				opts.WatchURL = ""
			}
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			src, err := httpsrc.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			first := informer.New(src, informer.Options[*Item]{Logger: logger})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan struct{})
			go func() { defer close(done); first.Run(ctx) }()
			if err := first.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			var snap bytes.Buffer
			if _, err := first.WriteSnapshot(ctx, &snap); err != nil {
				t.Fatal(err)
			}
			cancel()
			<-done

			inv.Put(Item{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "a"}, Count: 100})
			inv.Delete("a", "b")
			inv.Put(Item{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "new"}, Count: 1})
			last := inv.Put(Item{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "c"}, Count: 100})
			if c.compact {
				inv.Compact()
			}

			lists.Store(0)
			if got := restartFrom(t, opts, logger, snap.Bytes(), last); len(got) != 4 {
				t.Errorf("handler told %v, want the 4 changes", got)
			}
			// In poll mode every poll is a list: the relist, then the
			// polls after it.
			if n := lists.Load(); n != c.lists && (c.mode != "poll" || n < c.lists) {
				t.Errorf("%d list requests, want %d", n, c.lists)
			}

			other, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items?location=x", WatchURL: opts.WatchURL})
			if _, err := informer.New(other, informer.Options[*Item]{Logger: logger}).Restore(bytes.NewReader(snap.Bytes())); !errors.Is(err, informer.ErrSnapshotMismatch) {
				t.Errorf("restore over another URL: %v, want ErrSnapshotMismatch", err)
			}
		})
	}
}

// restartFrom runs an informer restored from snap until it applied version
// last, and returns what its handler was told after the restored objects.
func restartFrom(t *testing.T, opts httpsrc.Options[*Item], logger *slog.Logger, snap []byte, last string) []string {
	t.Helper()
	src, _ := httpsrc.New(opts)
	inf := informer.New(src, informer.Options[*Item]{Logger: logger})
	if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var changes []string
	note := func(s string) { mu.Lock(); changes = append(changes, s); mu.Unlock() }
	restored := map[string]string{}
	for _, it := range inf.Lister().List(nil) {
		restored[it.Name] = it.ResourceVersion
	}
	reg, _ := inf.AddHandler(informer.HandlerFuncs[*Item]{
		AddFunc: func(it *Item, initial bool) {
			if !initial || restored[it.Name] != it.ResourceVersion {
				note("add " + it.Name)
			}
		},
		UpdateFunc: func(_, it *Item) { note("update " + it.Name) },
		DeleteFunc: func(d informer.Deleted[*Item]) { note("delete " + d.Object.Name) },
	}, informer.HandlerOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := inf.WaitForResourceVersion(wctx, last); err != nil {
		t.Fatal(err)
	}
	for reg.Pending() > 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	return changes
}

package informer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// reporting is a Source that reports a found write into a shared value
// (as source/kube's sharing guard does) from List and from its
// Watcher's Next, through informer.Report.
type reporting struct {
	*memory.Source[*item]
}

var errFoundWrite = fmt.Errorf("test: a shared value at metadata.labels was written into: %w", informer.ErrObjectMutated)

func (s reporting) List(ctx context.Context, opts informer.ListOptions) (informer.Page[*item], error) {
	informer.Report(ctx, errFoundWrite)
	return s.Source.List(ctx, opts)
}

func (s reporting) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	w, err := s.Source.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return reportingWatcher{w, ctx}, nil
}

type reportingWatcher struct {
	informer.Watcher[*item]
	ctx context.Context
}

func (w reportingWatcher) Next() (informer.Event[*item], error) {
	ev, err := w.Watcher.Next()
	if err == nil && ev.Type == informer.EventAdded {
		informer.Report(w.ctx, errFoundWrite)
	}
	return ev, err
}

// TestReport: what a Source reports through informer.Report from a List
// and from a Watcher's Next reaches OnError (a *SourceError naming the
// call), the log at Warn, and Health (Mutations, LastMutation) without
// failing the call, making the informer unhealthy, or losing an object.
// Report with a context no reflector made reports false.
func TestReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		var mu sync.Mutex
		var got []error
		var logs bytes.Buffer
		inf := informer.New[*item](reporting{mem}, informer.Options[*item]{
			OnError: func(err error) { mu.Lock(); got = append(got, err); mu.Unlock() },
			Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
		})
		runInformer(t, inf)
		synctest.Wait()
		if err := mem.Create(newItem("ns", "later", "x")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		h := inf.Health()
		if h.Mutations != 2 || !errors.Is(h.LastMutation, informer.ErrObjectMutated) {
			t.Fatalf("Health: mutations %d, last %v; want 2 (one list, one watch event)", h.Mutations, h.LastMutation)
		}
		var se *informer.SourceError
		if !errors.As(h.LastMutation, &se) || se.Op != "watch" {
			t.Errorf("LastMutation %v: want a *SourceError of the watch", h.LastMutation)
		}
		if !h.Healthy() || len(inf.Lister().List(nil)) != 3 {
			t.Errorf("healthy %v, %d objects; want healthy, 3", h.Healthy(), len(inf.Lister().List(nil)))
		}
		mu.Lock()
		if len(got) != 2 || !errors.Is(got[0], informer.ErrObjectMutated) || !errors.As(got[0], &se) || se.Op != "list" {
			t.Errorf("OnError got %v; want the list's report, then the watch's", got)
		}
		mu.Unlock()
		if n := strings.Count(logs.String(), "level=WARN"); n != 2 || !strings.Contains(logs.String(), "metadata.labels") {
			t.Errorf("log:\n%s\nwant 2 Warn lines naming the path", logs.String())
		}
		if !strings.Contains(h.String(), "mutations=2") {
			t.Errorf("Health.String %q does not count them", h.String())
		}
	})
	if informer.Report(context.Background(), errFoundWrite) {
		t.Error("Report with a context no reflector made returned true")
	}
}

package informer_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// opaqueSource is a memory.Source whose versions read "v-N" instead of N:
// versions that are not numbers, as an ETag or a made-up poll version is.
// It does not implement VersionComparer: the informer cannot order them.
type opaqueSource struct{ mem *memory.Source[*item] }

func opaque(rv string) string {
	if rv == "" {
		return ""
	}
	return "v-" + rv
}

func (s opaqueSource) List(ctx context.Context, opts informer.ListOptions) (informer.Page[*item], error) {
	opts.ResourceVersion = strings.TrimPrefix(opts.ResourceVersion, "v-")
	p, err := s.mem.List(ctx, opts)
	p.ResourceVersion = opaque(p.ResourceVersion)
	return p, err
}

func (s opaqueSource) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	opts.ResourceVersion = strings.TrimPrefix(opts.ResourceVersion, "v-")
	w, err := s.mem.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return opaqueWatcher{w}, nil
}

type opaqueWatcher struct{ informer.Watcher[*item] }

func (w opaqueWatcher) Next() (informer.Event[*item], error) {
	ev, err := w.Watcher.Next()
	if ev.ResourceVersion == "" && ev.Type != 0 && ev.Type < informer.EventBookmark {
		ev.ResourceVersion = ev.Object.ResourceVersion
	}
	ev.ResourceVersion = opaque(ev.ResourceVersion)
	return ev, err
}

// orderedSource is an opaqueSource that orders its versions.
type orderedSource struct{ opaqueSource }

func (orderedSource) CompareVersions(a, b string) (int, bool) {
	x, errA := strconv.Atoi(strings.TrimPrefix(a, "v-"))
	y, errB := strconv.Atoi(strings.TrimPrefix(b, "v-"))
	if errA != nil || errB != nil || !strings.HasPrefix(a, "v-") || !strings.HasPrefix(b, "v-") {
		return 0, false
	}
	return max(-1, min(1, x-y)), true
}

// WaitForResourceVersion with versions that are not numbers: reached
// only when equal, unless the Source orders them. (It returned at once
// whenever the applied version was not a number and the one asked for
// was: read-your-writes reported while the cache held the old state.)
func TestWaitForResourceVersionOpaque(t *testing.T) {
	cases := []struct {
		name    string
		ordered bool
	}{{"opaque", false}, {"ordered", true}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				mem.Create(newItem("ns", "a", "v1")) // version 1
				var src informer.Source[*item] = opaqueSource{mem}
				if tc.ordered {
					src = orderedSource{opaqueSource{mem}}
				}
				inf := informer.New(src, informer.Options[*item]{Logger: slog.New(slog.DiscardHandler)})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go inf.Run(ctx)
				if err := inf.WaitForSync(ctx); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				if got := inf.AppliedResourceVersion(); got != "v-1" {
					t.Fatalf("applied %q after the list", got)
				}
				waitFor := func(rv string) error {
					tctx, tcancel := context.WithTimeout(ctx, time.Minute)
					defer tcancel()
					return inf.WaitForResourceVersion(tctx, rv)
				}
				// A number is never reached by versions that are not.
				if err := waitFor("2"); !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("waiting for 2 with v-1 applied: %v", err)
				}
				// A version written later is reached when applied.
				waited := make(chan error, 1)
				go func() { waited <- waitFor("v-3") }()
				mem.Update(newItem("ns", "a", "v2"))
				synctest.Wait()
				select {
				case err := <-waited:
					t.Fatalf("returned before v-3 was written: %v", err)
				default:
				}
				mem.Update(newItem("ns", "a", "v3"))
				if err := <-waited; err != nil {
					t.Fatal(err)
				}
				if it, _ := inf.Lister().Get("ns/a"); it.Data != "v3" {
					t.Fatalf("after the wait the cache shows %q", it.Data)
				}
				// An older version: reached only if the Source orders
				// versions (the opaque one cannot tell v-1 is older).
				err := waitFor("v-1")
				if tc.ordered && err != nil {
					t.Fatalf("v-1 with v-3 applied, ordered: %v", err)
				}
				if !tc.ordered && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("v-1 with v-3 applied, opaque: %v", err)
				}
			})
		})
	}
}

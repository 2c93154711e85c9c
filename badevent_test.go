package informer_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// badEventSource's watches return an error wrapping ErrBadEvent before each
// real event, as a source does for an event it cannot decode.
type badEventSource struct {
	*memory.Source[*item]
}

func (s badEventSource) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	w, err := s.Source.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &badEventWatcher{Watcher: w}, nil
}

type badEventWatcher struct {
	informer.Watcher[*item]
	bad bool
}

func (w *badEventWatcher) Next() (informer.Event[*item], error) {
	if w.bad = !w.bad; w.bad {
		return informer.Event[*item]{}, fmt.Errorf("decoding event: %w", informer.ErrBadEvent)
	}
	return w.Watcher.Next()
}

// An unusable event is reported and skipped; the same watch goes on.
func TestReflectorSkipsBadEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		var errs errList
		inf := informer.New[*item](badEventSource{mem}, quiet[*item](t, &errs))
		runInformer(t, inf)
		synctest.Wait()
		for i := range 5 {
			mem.Create(newItem("ns", fmt.Sprint("k", i), "v"))
		}
		synctest.Wait()
		if got, want := cacheState(inf), sourceState(mem); !equalMaps(got, want) {
			t.Fatalf("cache %v, source %v", got, want)
		}
		if mem.WatchCalls() != 1 {
			t.Fatalf("%d watches, want the first to go on", mem.WatchCalls())
		}
		var bad atomic.Int32
		for _, err := range errs.all() {
			var oe *informer.ObjectError
			if errors.Is(err, informer.ErrBadEvent) && errors.As(err, &oe) {
				bad.Add(1)
			}
		}
		if bad.Load() < 5 {
			t.Fatalf("%d bad events reported, want at least 5: %v", bad.Load(), errs.all())
		}
	})
}

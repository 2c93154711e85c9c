package informer_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// hookSource wraps the watches of a memory source: next makes each Next
// call of a watch, given the streaming list's number (0 for a plain
// watch), the call's number (from 1) and the watch itself.
type hookSource struct {
	*memory.Source[*item]
	lists atomic.Int32 // streaming lists opened
	next  func(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error)
}

func (s *hookSource) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	w, err := s.Source.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	var list int32
	if opts.SendInitialEvents {
		list = s.lists.Add(1)
	}
	return &hookWatcher{Watcher: w, list: list, next: s.next}, nil
}

type hookWatcher struct {
	informer.Watcher[*item]
	list int32
	n    int
	next func(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error)
}

func (w *hookWatcher) Next() (informer.Event[*item], error) {
	w.n++
	return w.next(w.list, w.n, w.Watcher)
}

// badEvents' watches return an error wrapping ErrBadEvent before each real
// event, as a source does for an event it cannot decode.
func badEvents(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error) {
	if n%2 == 1 {
		return informer.Event[*item]{}, fmt.Errorf("decoding event: %w", informer.ErrBadEvent)
	}
	return w.Next()
}

// losesOne makes the streaming lists from number from on lose one object:
// their second initial event is unusable (an object that does not decode
// into T, of a kind the type does not fit).
func losesOne(from int32) func(int32, int, informer.Watcher[*item]) (informer.Event[*item], error) {
	return func(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error) {
		ev, err := w.Next()
		if list > 0 && list <= from && n == 2 && err == nil {
			return informer.Event[*item]{}, fmt.Errorf("decoding %s: %w", ev.Object.Name, informer.ErrBadEvent)
		}
		return ev, err
	}
}

// An unusable event is reported and skipped; the same watch goes on.
func TestReflectorSkipsBadEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		var errs errList
		inf := informer.New[*item](&hookSource{Source: mem, next: badEvents}, quiet[*item](t, &errs))
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

// An object of a streaming list that cannot be read ends the streaming
// list, and the informer syncs from a List at once: it does not report
// synced without the object. (Skipping it, as an unusable event of a plain
// watch is, synced a cache that lacked the object until the next relist: a
// Go type that does not fit the resource gave a synced, empty cache
// against kube-apiserver. Retrying the stream instead starved the sync for
// minutes in the chaos soak, whose streams carry garbled lines.)
func TestStreamingListWithABadObjectFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{WatchList: true})
		for i := range 3 {
			mem.Create(newItem("ns", fmt.Sprint("k", i), "v"))
		}
		src := &hookSource{Source: mem, next: losesOne(1)}
		var errs errList
		opts := quiet[*item](t, &errs)
		opts.Reflector.WatchList = informer.WatchListOn
		inf := informer.New[*item](src, opts)
		reg, _ := inf.AddHandler(informer.HandlerFuncs[*item]{}, informer.HandlerOptions{})
		runInformer(t, inf)
		atSync := make(chan map[string]string, 1)
		go func() {
			if reg.WaitForSync(t.Context()) == nil {
				atSync <- cacheState(inf)
			}
		}()
		synctest.Wait() // at once: no backoff before the List
		if src.lists.Load() != 1 || mem.ListCalls() != 1 {
			t.Fatalf("%d streaming lists and %d lists, want the streaming list (with a bad object) then a List", src.lists.Load(), mem.ListCalls())
		}
		var got map[string]string
		select {
		case got = <-atSync:
		default:
			t.Fatal("not synced after the List")
		}
		if want := sourceState(mem); !equalMaps(got, want) {
			t.Fatalf("cache at sync %v, source %v", got, want)
		}
		var sawBad bool
		for _, err := range errs.all() {
			var se *informer.SourceError
			sawBad = sawBad || errors.Is(err, informer.ErrBadEvent) && errors.As(err, &se)
		}
		if !sawBad {
			t.Fatalf("the bad object was not reported as a failed list: %v", errs.all())
		}
	})
}

// A streaming list that always holds an object the source cannot read, and
// a List that fails on it too (a Go type that does not fit the resource),
// are retried with a growing backoff, not started over at once as a
// streaming list cut by the connection is.
func TestStreamingListAlwaysBadBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{WatchList: true})
		for i := range 3 {
			mem.Create(newItem("ns", fmt.Sprint("k", i), "v"))
		}
		mem.FailLists(1000, errors.New("the server sent ConfigMapList, expected WidgetList"))
		src := &hookSource{Source: mem, next: losesOne(math.MaxInt32)}
		opts := quiet[*item](t, nil)
		opts.Reflector.WatchList = informer.WatchListOn
		opts.Reflector.Backoff = informer.Backoff{Initial: time.Second, Max: time.Hour, Jitter: -1}
		inf := informer.New[*item](src, opts)
		runInformer(t, inf)
		time.Sleep(10*time.Second + 500*time.Millisecond)
		synctest.Wait()
		// At 0, 1, 3 and 7 s; starting over after each cut would make 5 or more.
		if n := src.lists.Load(); n != 4 {
			t.Fatalf("%d streaming lists in 10.5 s, want 4 (delays of 1, 2, 4 s)", n)
		}
		if inf.HasSynced() {
			t.Fatal("synced without the object")
		}
	})
}

// strangeType's streaming lists carry, among their initial events, an
// event of a type the source does not know (and no object).
func strangeType(list int32, n int, w informer.Watcher[*item]) (informer.Event[*item], error) {
	if list > 0 && n == 2 {
		return informer.Event[*item]{}, fmt.Errorf("%w: %w \"SHRUG\"", informer.ErrBadEvent, informer.ErrUnknownEventType)
	}
	return w.Next()
}

// An event of an unknown type among a streaming list's initial events
// carries no object of the list: it is reported and skipped, as in a
// watch, and the list syncs.
func TestStreamingListSkipsUnknownEventTypes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{WatchList: true})
		for i := range 3 {
			mem.Create(newItem("ns", fmt.Sprint("k", i), "v"))
		}
		src := &hookSource{Source: mem, next: strangeType}
		var errs errList
		opts := quiet[*item](t, &errs)
		opts.Reflector.WatchList = informer.WatchListOn
		inf := informer.New[*item](src, opts)
		runInformer(t, inf)
		synctest.Wait()
		if !inf.HasSynced() || src.lists.Load() != 1 {
			t.Fatalf("synced %v after %d streaming lists, want synced after 1", inf.HasSynced(), src.lists.Load())
		}
		if got, want := cacheState(inf), sourceState(mem); !equalMaps(got, want) {
			t.Fatalf("cache %v, source %v", got, want)
		}
		var reported bool
		for _, err := range errs.all() {
			reported = reported || errors.Is(err, informer.ErrUnknownEventType)
		}
		if !reported {
			t.Fatalf("the unknown event was not reported: %v", errs.all())
		}
	})
}

package memory_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

func TestFailCalls(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		n       int
		err     error
		wantErr error
		wantN   int // calls that fail
	}{
		{name: "default error", n: 2, wantErr: memory.ErrInjected, wantN: 2},
		{name: "own error", n: 1, err: boom, wantErr: boom, wantN: 1},
		{name: "expired", n: 1, err: fmt.Errorf("gone: %w", informer.ErrExpired), wantErr: informer.ErrExpired, wantN: 1},
		{name: "none", n: 0, err: boom, wantN: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memory.New[*obj](memory.Options{})
			populate(t, src, "a")
			src.FailLists(tt.n, tt.err)
			src.FailWatches(tt.n, tt.err)
			for i := range tt.wantN + 1 {
				_, lerr := src.List(t.Context(), informer.ListOptions{})
				w, werr := src.Watch(t.Context(), informer.WatchOptions{})
				if i < tt.wantN {
					if !errors.Is(lerr, tt.wantErr) || !errors.Is(werr, tt.wantErr) {
						t.Fatalf("call %d: List %v, Watch %v; want %v", i, lerr, werr, tt.wantErr)
					}
					continue
				}
				if lerr != nil || werr != nil {
					t.Fatalf("call %d: List %v, Watch %v; want success", i, lerr, werr)
				}
				_ = w.Close()
			}
			if src.ListCalls() != tt.wantN+1 || src.WatchCalls() != tt.wantN+1 {
				t.Fatalf("counted %d lists and %d watches, want %d each", src.ListCalls(), src.WatchCalls(), tt.wantN+1)
			}
		})
	}
	// A later call replaces an earlier one.
	src := memory.New[*obj](memory.Options{})
	src.FailLists(5, nil)
	src.FailLists(0, nil)
	if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
		t.Fatalf("List after cancelling failures: %v", err)
	}
}

// DropWatches ends every open watch, and no later one.
func TestDropWatches(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	w1 := watch(t, src, informer.WatchOptions{})
	w2 := watch(t, src, informer.WatchOptions{AllowBookmarks: true})
	populate(t, src, "a")
	src.DropWatches(memory.ErrInjected)
	w3 := watch(t, src, informer.WatchOptions{ResourceVersion: "0"})
	populate(t, src, "b")
	for _, w := range []informer.Watcher[*obj]{w1, w2} {
		if _, err := w.Next(); !errors.Is(err, memory.ErrInjected) {
			t.Fatalf("dropped watch: %v", err)
		}
	}
	if got := next(t, w3, 1); got[0] != "ADDED b@2 rv=2" {
		t.Fatalf("later watch got %q", got)
	}
	// Dropped watchers count as open until closed.
	if n := src.OpenWatches(); n != 3 {
		t.Fatalf("OpenWatches = %d, want 3", n)
	}
	_ = w1.Close()
	_ = w2.Close()
	if n := src.OpenWatches(); n != 1 {
		t.Fatalf("OpenWatches = %d, want 1", n)
	}
}

func TestStallWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*obj](memory.Options{WatchList: true})
		populate(t, src, "a")
		open := watch(t, src, informer.WatchOptions{AllowBookmarks: true})
		src.StallWatches()
		later := watch(t, src, informer.WatchOptions{SendInitialEvents: true})
		populate(t, src, "b")
		src.Bookmark()
		src.InjectEvent(informer.Event[*obj]{Type: informer.EventModified, Object: newObj("x")})

		var got [2][]string
		var errs [2]error
		var wg sync.WaitGroup
		for i, w := range []informer.Watcher[*obj]{open, later} {
			wg.Go(func() { got[i], errs[i] = read(w, 3) })
		}
		<-time.After(time.Hour) // nothing is delivered however long
		synctest.Wait()
		if len(got[0]) != 0 || len(got[1]) != 0 {
			t.Fatalf("stalled watches delivered %q", got)
		}
		src.ResumeWatches()
		wg.Wait()
		must(t, errors.Join(errs[:]...))
		want := [2][]string{
			{"ADDED b@2 rv=2", "BOOKMARK rv=2", "MODIFIED x@ rv="},
			{"ADDED a@1 rv=1", "INITIAL_EVENTS_END rv=1", "ADDED b@2 rv=2"},
		}
		if !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
			t.Fatalf("after resume\n%q\nwant\n%q", got, want)
		}
	})
}

// A stalled watch still ends with its timeout, its context, Close and
// DropWatches.
func TestStallEnds(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		end     func(src *memory.Source[*obj], w informer.Watcher[*obj], cancel context.CancelFunc)
		wantErr error
	}{
		{name: "timeout", timeout: time.Minute, wantErr: io.EOF},
		{name: "cancel", end: func(_ *memory.Source[*obj], _ informer.Watcher[*obj], cancel context.CancelFunc) { cancel() }, wantErr: context.Canceled},
		{name: "Close", end: func(_ *memory.Source[*obj], w informer.Watcher[*obj], _ context.CancelFunc) { _ = w.Close() }, wantErr: io.EOF},
		{name: "DropWatches", end: func(src *memory.Source[*obj], _ informer.Watcher[*obj], _ context.CancelFunc) {
			src.DropWatches(memory.ErrInjected)
		}, wantErr: memory.ErrInjected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*obj](memory.Options{})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				w, err := src.Watch(ctx, informer.WatchOptions{Timeout: tt.timeout})
				must(t, err)
				defer w.Close()
				src.StallWatches()
				populate(t, src, "a")
				start := time.Now()
				var got error
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, got = w.Next()
				}()
				synctest.Wait()
				if tt.end != nil {
					tt.end(src, w, cancel)
				}
				<-done
				if !errors.Is(got, tt.wantErr) {
					t.Fatalf("Next: %v, want %v", got, tt.wantErr)
				}
				if d := time.Since(start); d != tt.timeout {
					t.Fatalf("ended after %v, want %v", d, tt.timeout)
				}
			})
		})
	}
}

func TestBookmark(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	with := watch(t, src, informer.WatchOptions{AllowBookmarks: true})
	without := watch(t, src, informer.WatchOptions{})
	populate(t, src, "a", "b")
	src.Bookmark()
	populate(t, src, "c")
	want := []string{"ADDED a@1 rv=1", "ADDED b@2 rv=2", "BOOKMARK rv=2", "ADDED c@3 rv=3"}
	if got := next(t, with, 4); !slices.Equal(got, want) {
		t.Fatalf("with bookmarks: %q, want %q", got, want)
	}
	want = []string{"ADDED a@1 rv=1", "ADDED b@2 rv=2", "ADDED c@3 rv=3"}
	if got := next(t, without, 3); !slices.Equal(got, want) {
		t.Fatalf("without bookmarks: %q, want %q", got, want)
	}
	// A bookmark after everything was read comes at once.
	src.Bookmark()
	if got := next(t, with, 1); got[0] != "BOOKMARK rv=3" {
		t.Fatalf("got %q", got)
	}
}

func TestInjectEvent(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	w := watch(t, src, informer.WatchOptions{})
	populate(t, src, "a", "b")
	stale := newObj("a", "stale")
	stale.ResourceVersion = "1"
	injected := []informer.Event[*obj]{
		{Type: informer.EventModified, Object: stale, ResourceVersion: "1"}, // out of order
		{Type: informer.EventAdded},                                         // nil object
		{Type: informer.EventType(42), Object: newObj("x")},                 // unknown type
		{Type: informer.EventBookmark},                                      // bookmark without version
	}
	for _, e := range injected {
		src.InjectEvent(e)
	}
	populate(t, src, "c")
	for i := range 2 {
		if got := next(t, w, 1)[0]; got != []string{"ADDED a@1 rv=1", "ADDED b@2 rv=2"}[i] {
			t.Fatalf("event %d: %q", i, got)
		}
	}
	for i, want := range injected {
		ev, err := w.Next()
		must(t, err)
		if ev != want {
			t.Fatalf("injected %d: got %s, want it verbatim: %s", i, describe(ev), describe(want))
		}
	}
	if got := next(t, w, 1); got[0] != "ADDED c@3 rv=3" {
		t.Fatalf("after injected: %q", got)
	}
	// Not recorded: a new watch from the start sees the writes only.
	w2 := watch(t, src, informer.WatchOptions{ResourceVersion: "0"})
	src.InjectEvent(informer.Event[*obj]{Type: informer.EventDeleted, Object: stale})
	if got := next(t, w2, 1); got[0] != "DELETED a@1 rv= stale" {
		t.Fatalf("got %q", got)
	}
	if src.ResourceVersion() != "3" {
		t.Fatalf("InjectEvent moved the version to %s", src.ResourceVersion())
	}
}

// The package starts no goroutine: not in New, Watch, Next or any fault.
func TestNoGoroutines(t *testing.T) {
	src := memory.New[*obj](memory.Options{WatchList: true, HistoryLimit: 10})
	var ws []informer.Watcher[*obj]
	for _, opts := range []informer.WatchOptions{
		{}, {Timeout: time.Hour}, {AllowBookmarks: true}, {SendInitialEvents: true},
	} {
		w, err := src.Watch(t.Context(), opts)
		must(t, err)
		ws = append(ws, w)
	}
	populate(t, src, "a", "b")
	src.Bookmark()
	src.StallWatches()
	src.ResumeWatches()
	src.InjectEvent(informer.Event[*obj]{Type: informer.EventBookmark})
	for _, w := range ws {
		_, _ = w.Next()
	}
	_, err := src.List(t.Context(), informer.ListOptions{Limit: 1})
	must(t, err)
	src.Compact()
	// Counted by their stacks, not runtime.NumGoroutine: a goroutine of
	// an earlier test may end meanwhile (it did, in CI).
	if n, stacks := memoryGoroutines(); n != 0 {
		t.Fatalf("%d goroutines run the package's code:\n%s", n, stacks)
	}
	src.DropWatches(nil)
	for _, w := range ws {
		_ = w.Close()
	}
}

// Writers, lists, watchers and faults all at once; run with -race. Every
// watcher sees versions in order with no gap, until a fault ends it.
func TestConcurrentEverything(t *testing.T) {
	src := memory.New[*obj](memory.Options{WatchList: true, HistoryLimit: 500, MaxPageSize: 13})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; i < 2000; i++ {
				key := fmt.Sprintf("k%02d", (i*13+w)%60)
				switch i % 4 {
				case 0:
					_ = src.Delete(key)
				default:
					_ = src.Upsert(newObj(key))
				}
			}
		})
	}
	var readers sync.WaitGroup
	for r := range 4 {
		readers.Go(func() {
			for ctx.Err() == nil {
				w, err := src.Watch(ctx, informer.WatchOptions{SendInitialEvents: r%2 == 0, AllowBookmarks: true})
				if err != nil {
					continue // an injected failure
				}
				last := uint64(0)
				for {
					ev, err := w.Next()
					if err != nil {
						break
					}
					if ev.Type == informer.EventAdded || ev.Type == informer.EventModified || ev.Type == informer.EventDeleted {
						if ev.Object == nil {
							continue // injected
						}
						var v uint64
						fmt.Sscan(ev.ResourceVersion, &v)
						if r%2 == 1 && last != 0 && v != last+1 {
							t.Errorf("watch jumped from %d to %d", last, v)
						}
						last = v
					}
				}
				_ = w.Close()
			}
		})
		readers.Go(func() {
			for ctx.Err() == nil {
				if _, _, err := listAll(ctx, src, informer.ListOptions{Limit: 5}, nil); err != nil &&
					!errors.Is(err, informer.ErrExpired) && !errors.Is(err, memory.ErrInjected) && ctx.Err() == nil {
					t.Errorf("list: %v", err)
				}
			}
		})
	}
	wg.Go(func() {
		for i := 0; i < 300; i++ {
			switch i % 8 {
			case 0:
				src.DropWatches(nil)
			case 1:
				src.Bookmark()
			case 2:
				src.StallWatches()
			case 3:
				src.ResumeWatches()
			case 4:
				src.ExpireContinueTokens()
			case 5:
				src.FailLists(1, nil)
				src.FailWatches(1, nil)
			case 6:
				src.InjectEvent(informer.Event[*obj]{Type: informer.EventAdded})
			case 7:
				_ = src.OpenWatches() + src.ListCalls() + src.WatchCalls() + src.Len()
			}
			_, _ = src.Get("k01")
		}
		src.ResumeWatches()
	})
	wg.Wait()
	cancel()
	readers.Wait()
	if n := src.OpenWatches(); n != 0 {
		t.Fatalf("%d watches left open", n)
	}
}

// memoryGoroutines counts the goroutines with a frame of package memory
// (not of its tests) in their stack, and returns their stacks.
func memoryGoroutines() (int, string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var found []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "/source/memory.") {
			found = append(found, g)
		}
	}
	return len(found), strings.Join(found, "\n\n")
}

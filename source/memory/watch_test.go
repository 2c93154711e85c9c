package memory_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// history writes a, b, c (1-3), updates a (4) and deletes b (5).
func history(t *testing.T, src *memory.Source[*obj]) {
	t.Helper()
	populate(t, src, "a", "b", "c")
	must(t, src.Update(newObj("a", "v2")))
	must(t, src.Delete("b"))
}

var historyEvents = []string{
	"ADDED a@1 rv=1",
	"ADDED b@2 rv=2",
	"ADDED c@3 rv=3",
	"MODIFIED a@4 rv=4 v2",
	"DELETED b@2 rv=5",
}

func TestWatchFrom(t *testing.T) {
	tests := []struct {
		rv      string
		compact string
		want    []string
		wantErr error
	}{
		{rv: "", want: []string{"ADDED z@6 rv=6"}},
		{rv: "0", want: []string{"ADDED z@6 rv=6"}},
		{rv: "5", want: []string{"ADDED z@6 rv=6"}},
		{rv: "3", want: append(slices.Clone(historyEvents[3:]), "ADDED z@6 rv=6")},
		{rv: "1", want: append(slices.Clone(historyEvents[1:]), "ADDED z@6 rv=6")},
		{rv: "2", compact: "2", want: append(slices.Clone(historyEvents[2:]), "ADDED z@6 rv=6")},
		{rv: "1", compact: "2", wantErr: informer.ErrExpired},
		{rv: "4", compact: "5", wantErr: informer.ErrExpired},
		{rv: "6", wantErr: memory.ErrInvalidVersion},
		{rv: "-1", wantErr: memory.ErrInvalidVersion},
	}
	for _, tt := range tests {
		t.Run(tt.rv+"/"+tt.compact, func(t *testing.T) {
			src := memory.New[*obj](memory.Options{})
			history(t, src)
			if tt.compact != "" {
				must(t, src.CompactTo(tt.compact))
			}
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: tt.rv})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Watch: %v, want %v", err, tt.wantErr)
				}
				if src.OpenWatches() != 0 {
					t.Fatal("a failed Watch counts as open")
				}
				return
			}
			must(t, err)
			defer w.Close()
			populate(t, src, "z")
			if got := next(t, w, len(tt.want)); !slices.Equal(got, tt.want) {
				t.Fatalf("events\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// Compaction ends open watches that have not read up to the compaction
// point, after what they can still deliver.
func TestWatchCompactedWhileOpen(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	history(t, src)
	behind := watch(t, src, informer.WatchOptions{ResourceVersion: "2"})
	atPoint := watch(t, src, informer.WatchOptions{ResourceVersion: "2"})
	next(t, atPoint, 3) // up to 5
	src.Compact()
	if _, err := behind.Next(); !errors.Is(err, informer.ErrExpired) {
		t.Fatalf("Next behind the compaction point: %v, want ErrExpired", err)
	}
	if _, err := behind.Next(); !errors.Is(err, informer.ErrExpired) {
		t.Fatalf("Next again: %v, want ErrExpired again", err)
	}
	populate(t, src, "z")
	if got := next(t, atPoint, 1); got[0] != "ADDED z@6 rv=6" {
		t.Fatalf("watch at the compaction point got %q", got)
	}
}

// HistoryLimit expires a watch that falls too far behind.
func TestWatchHistoryLimit(t *testing.T) {
	src := memory.New[*obj](memory.Options{HistoryLimit: 3})
	w := watch(t, src, informer.WatchOptions{})
	populate(t, src, "a", "b")
	next(t, w, 1)
	populate(t, src, "c", "d") // keeps 2..4; w has read 1
	if got := next(t, w, 1); got[0] != "ADDED b@2 rv=2" {
		t.Fatalf("got %q", got)
	}
	populate(t, src, "e", "f") // keeps 4..6; w has read 2
	if _, err := w.Next(); !errors.Is(err, informer.ErrExpired) {
		t.Fatalf("Next behind the history: %v, want ErrExpired", err)
	}
	if _, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "2"}); !errors.Is(err, informer.ErrExpired) {
		t.Fatalf("Watch from before the history: %v", err)
	}
	w2 := watch(t, src, informer.WatchOptions{ResourceVersion: "3"})
	if got := next(t, w2, 3); got[2] != "ADDED f@6 rv=6" {
		t.Fatalf("got %q", got)
	}
}

func TestWatchInitialEvents(t *testing.T) {
	src := memory.New[*obj](memory.Options{WatchList: true})
	history(t, src)
	for _, rv := range []string{"", "1", "5"} {
		t.Run(rv, func(t *testing.T) {
			w := watch(t, src, informer.WatchOptions{SendInitialEvents: true, ResourceVersion: rv})
			want := []string{"ADDED a@4 rv=4 v2", "ADDED c@3 rv=3", "INITIAL_EVENTS_END rv=5"}
			if got := next(t, w, 3); !slices.Equal(got, want) {
				t.Fatalf("initial events %q, want %q", got, want)
			}
		})
	}
	w := watch(t, src, informer.WatchOptions{SendInitialEvents: true})
	populate(t, src, "0") // sorts first, but comes after the initial events
	want := []string{"ADDED a@4 rv=4 v2", "ADDED c@3 rv=3", "INITIAL_EVENTS_END rv=5", "ADDED 0@6 rv=6"}
	if got := next(t, w, 4); !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	if _, err := src.Watch(t.Context(), informer.WatchOptions{SendInitialEvents: true, ResourceVersion: "7"}); !errors.Is(err, memory.ErrInvalidVersion) {
		t.Fatalf("initial events from a future version: %v", err)
	}
}

func TestWatchInitialEventsEmpty(t *testing.T) {
	src := memory.New[*obj](memory.Options{WatchList: true})
	w := watch(t, src, informer.WatchOptions{SendInitialEvents: true})
	if got := next(t, w, 1); got[0] != "INITIAL_EVENTS_END rv=0" {
		t.Fatalf("got %q", got)
	}
}

func TestWatchListUnsupported(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	_, err := src.Watch(t.Context(), informer.WatchOptions{SendInitialEvents: true})
	if !errors.Is(err, informer.ErrWatchListUnsupported) {
		t.Fatalf("Watch: %v, want ErrWatchListUnsupported", err)
	}
}

func TestWatchEnds(t *testing.T) {
	tests := []struct {
		name    string
		end     func(src *memory.Source[*obj], w informer.Watcher[*obj], cancel context.CancelFunc)
		wantErr error
	}{
		{name: "Close", end: func(_ *memory.Source[*obj], w informer.Watcher[*obj], _ context.CancelFunc) { _ = w.Close() }, wantErr: io.EOF},
		{name: "Close twice", end: func(_ *memory.Source[*obj], w informer.Watcher[*obj], _ context.CancelFunc) {
			_ = w.Close()
			_ = w.Close()
		}, wantErr: io.EOF},
		{name: "cancel", end: func(_ *memory.Source[*obj], _ informer.Watcher[*obj], cancel context.CancelFunc) { cancel() }, wantErr: context.Canceled},
		{name: "DropWatches nil", end: func(src *memory.Source[*obj], _ informer.Watcher[*obj], _ context.CancelFunc) { src.DropWatches(nil) }, wantErr: io.EOF},
		{name: "DropWatches error", end: func(src *memory.Source[*obj], _ informer.Watcher[*obj], _ context.CancelFunc) {
			src.DropWatches(memory.ErrInjected)
		}, wantErr: memory.ErrInjected},
	}
	for _, tt := range tests {
		for _, blocked := range []bool{false, true} {
			name := tt.name
			if blocked {
				name += " while blocked"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					src := memory.New[*obj](memory.Options{})
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					w, err := src.Watch(ctx, informer.WatchOptions{})
					must(t, err)
					defer w.Close()
					populate(t, src, "a") // pending, but the end comes first
					var got error
					done := make(chan struct{})
					if blocked {
						next(t, w, 1)
						go func() {
							defer close(done)
							_, got = w.Next()
						}()
						synctest.Wait()
						tt.end(src, w, cancel)
					} else {
						tt.end(src, w, cancel)
						_, got = w.Next()
						close(done)
					}
					<-done
					if !errors.Is(got, tt.wantErr) {
						t.Fatalf("Next: %v, want %v", got, tt.wantErr)
					}
					populate(t, src, "b")
					if _, err := w.Next(); !errors.Is(err, tt.wantErr) {
						t.Fatalf("Next after the end: %v, want %v again", err, tt.wantErr)
					}
				})
			})
		}
	}
}

func TestWatchContextDoneBeforeWatch(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := src.Watch(ctx, informer.WatchOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Watch: %v", err)
	}
}

func TestWatchTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*obj](memory.Options{})
		start := time.Now()
		w := watch(t, src, informer.WatchOptions{Timeout: time.Minute})
		populate(t, src, "a")
		next(t, w, 1)
		if _, err := w.Next(); err != io.EOF {
			t.Fatalf("Next: %v, want io.EOF", err)
		}
		if d := time.Since(start); d != time.Minute {
			t.Fatalf("timed out after %v, want 1m", d)
		}
	})
}

// The timeout ends a stream that keeps delivering, too.
func TestWatchTimeoutBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*obj](memory.Options{})
		w := watch(t, src, informer.WatchOptions{Timeout: time.Minute})
		populate(t, src, "a", "b")
		<-time.After(2 * time.Minute) // fake time: the bubble's clock jumps
		if _, err := w.Next(); err != io.EOF {
			t.Fatalf("Next: %v, want io.EOF", err)
		}
	})
}

// Close stops the timer: nothing fires later.
func TestWatchCloseBeforeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*obj](memory.Options{})
		w, err := src.Watch(t.Context(), informer.WatchOptions{Timeout: time.Hour})
		must(t, err)
		must(t, w.Close())
		if _, err := w.Next(); err != io.EOF {
			t.Fatalf("Next after Close: %v", err)
		}
		if src.OpenWatches() != 0 {
			t.Fatal("closed watch still open")
		}
	})
}

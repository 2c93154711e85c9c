package informer_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// preferring is a source that says it prefers streaming lists, as
// source/kube does.
type preferring struct{ *spySource }

func (preferring) PrefersWatchList() bool { return true }

// TestWatchListMode: WatchListAuto streams only over a source that prefers
// it; On streams whatever the source; Off never does.
func TestWatchListMode(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     informer.WatchListMode
		prefers  bool
		streamed bool
	}{
		{"auto over a plain source lists", informer.WatchListAuto, false, false},
		{"auto over a preferring source streams", informer.WatchListAuto, true, true},
		{"on over a plain source streams", informer.WatchListOn, false, true},
		{"off over a preferring source lists", informer.WatchListOff, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{WatchList: true})
				seedItems(t, mem, "ns", 3)
				sp := spy(mem)
				var src informer.Source[*item] = sp
				if tc.prefers {
					src = preferring{sp}
				}
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{WatchList: tc.mode})
				runReflector(t, r)
				synctest.Wait()
				w := sp.watchCalls()
				streamed := len(w) > 0 && w[0].opts.SendInitialEvents
				if streamed != tc.streamed {
					t.Errorf("streamed %v, want %v (watches %+v)", streamed, tc.streamed, w)
				}
				if lists := len(sp.listCalls()); (lists == 0) != tc.streamed {
					t.Errorf("%d List calls", lists)
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
			})
		})
	}
}

// earlyEnd is a watcher that sends n ADDED events, then ends cleanly.
type earlyEnd struct {
	items []*item
}

func (w *earlyEnd) Next() (informer.Event[*item], error) {
	if len(w.items) == 0 {
		return informer.Event[*item]{}, io.EOF
	}
	it := w.items[0]
	w.items = w.items[1:]
	return informer.Event[*item]{Type: informer.EventAdded, Object: it, ResourceVersion: it.ResourceVersion}, nil
}

func (w *earlyEnd) Close() error { return nil }

// ignoring is a source whose server ignores streaming lists in one of
// three ways.
type ignoring struct {
	*spySource
	how string
}

func (s ignoring) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	if !opts.SendInitialEvents {
		return s.spySource.Watch(ctx, opts)
	}
	switch s.how {
	case "silent": // a fake server that never answers a watch from ""
		s.spySource.Watch(ctx, opts) // recorded, then ignored
		<-ctx.Done()
		return nil, ctx.Err()
	case "ends": // the legacy synthetic ADDED events, then the end
		s.spySource.Watch(ctx, opts)
		p, err := s.spySource.Source.List(ctx, informer.ListOptions{})
		if err != nil {
			return nil, err
		}
		return &earlyEnd{items: p.Items}, nil
	default: // "plain": watches from now as if the parameter were not there
		opts.SendInitialEvents = false
		return s.spySource.Watch(ctx, opts)
	}
}

// TestWatchListIgnored: a server that ignores a streaming list (it stays
// silent, ends the stream before the end marker, or sends changes before
// it) is taken as refusing it: the reflector lists instead, at once or
// after initialIdle (10s) of silence, and never streams again.
func TestWatchListIgnored(t *testing.T) {
	for _, tc := range []struct {
		how   string
		write bool          // a write while the streaming list is open
		after time.Duration // when the list comes
	}{
		{"silent", false, 10 * time.Second},
		{"plain", false, 10 * time.Second}, // silent too: nothing changed
		{"plain", true, time.Second},       // a MODIFIED before the end marker
		{"ends", false, 0},
	} {
		t.Run(tc.how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{WatchList: true})
				seedItems(t, mem, "ns", 3)
				sp := spy(mem)
				src := ignoring{sp, tc.how}
				sink := newSinkRec()
				var errs errList
				start := time.Now()
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{WatchList: informer.WatchListOn})
				runReflector(t, r)
				if tc.write {
					time.Sleep(time.Second)
					mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
				}
				time.Sleep(11 * time.Second)
				synctest.Wait()
				lists := sp.listCalls()
				if len(lists) != 1 || lists[0].at.Sub(start) != tc.after {
					t.Fatalf("lists %+v, want one after %s", lists, tc.after)
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
				// An expiry relists, and does not try streaming again.
				cutOff(mem, func() {
					mustDo(t, mem.Delete("ns/k0"))
					mem.Compact()
				})
				time.Sleep(time.Minute)
				synctest.Wait()
				for i, c := range sp.watchCalls()[1:] {
					if c.opts.SendInitialEvents {
						t.Errorf("watch %d asked for a streaming list again", i+1)
					}
				}
				if len(sp.listCalls()) != 2 {
					t.Errorf("%d List calls, want a relist after the expiry", len(sp.listCalls()))
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
				for _, err := range errs.all() {
					if errors.Is(err, informer.ErrWatchListUnsupported) {
						t.Errorf("the fallback was reported as an error: %v", err)
					}
				}
			})
		})
	}
}

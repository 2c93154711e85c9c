package informer_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// shortStreams wraps a memory source: each watch delivers one bookmark at
// the source's version, a millisecond after it opens, and ends (a
// close-after-send server).
type shortStreams struct {
	*memory.Source[*item]
	watches atomic.Int64
}

func (s *shortStreams) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	s.watches.Add(1)
	return &oneEvent{ctx: ctx, ev: informer.Event[*item]{Type: informer.EventBookmark, ResourceVersion: opts.ResourceVersion}}, nil
}

type oneEvent struct {
	ctx  context.Context
	ev   informer.Event[*item]
	done bool
}

func (w *oneEvent) Next() (informer.Event[*item], error) {
	if w.done {
		return informer.Event[*item]{}, io.EOF
	}
	w.done = true
	select {
	case <-time.After(time.Millisecond):
	case <-w.ctx.Done():
		return informer.Event[*item]{}, w.ctx.Err()
	}
	return w.ev, nil
}

func (w *oneEvent) Close() error { return nil }

// A source whose streams each deliver one event and end at once is not
// reconnected to at once for ever: after maxShortStreams (3) such streams
// in a row, the delivered events no longer reset the backoff, which grows;
// Health counts the failures and LastError says why. (Every delivered
// event reset the backoff: a watch a millisecond, 60,000 in a minute,
// healthy and silent.)
func TestShortStreamsBackOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		src := &shortStreams{Source: mem}
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := src.watches.Load(); n > 30 {
			t.Errorf("%d watches in a minute of streams that end after one event, want a backoff (at most 30)", n)
		}
		h := r.Health()
		if h.Healthy() || h.LastError == nil || !strings.Contains(h.LastError.Error(), "in a row ended within") {
			t.Errorf("Health %s: want it unhealthy, saying the streams keep ending", h)
		}
	})
}

// replaying wraps a memory source: each watch starts with the first
// version of k0, whatever version it is asked to resume from (a service
// that ignores Last-Event-ID and replays its history), then stays open.
type replaying struct {
	*memory.Source[*item]
	lists atomic.Int64
}

func (s *replaying) List(ctx context.Context, opts informer.ListOptions) (informer.Page[*item], error) {
	s.lists.Add(1)
	return s.Source.List(ctx, opts)
}

func (s *replaying) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	return &oneEvent{ctx: ctx, ev: informer.Event[*item]{Type: informer.EventAdded, Object: itemAt("ns", "k0", "v1", "1"), ResourceVersion: "1"}}, nil
}

// A stream whose first event is out of order made no progress: the
// relists that follow back off, growing, and count as failures. (The
// event counted as progress and reset the backoff: a relist of the whole
// collection about 7 times a second for ever, healthy.)
func TestReplayingStreamsBackOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3) // versions 1 to 3
		src := &replaying{Source: mem}
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := src.lists.Load(); n > 20 {
			t.Errorf("%d lists in a minute of streams that replay from the start, want a backoff (at most 20)", n)
		}
		if len(sourceErrs(errs.all(), "watch", informer.ErrOutOfOrder)) == 0 {
			t.Errorf("errors %v: want ErrOutOfOrder", errs.all())
		}
	})
}

// A change at exactly the version the stream already reached is in order
// (a Source may give several changes one version): it is applied, and
// nothing relists.
func TestChangeAtTheReachedVersionIsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2) // versions 1 and 2
		src := spy(mem)
		var errs errList
		sink := newSinkRec()
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		synctest.Wait()
		mustDo(t, mem.Update(newItem("ns", "k1", "v2"))) // version 3: the stream reaches it
		synctest.Wait()
		mem.InjectEvent(informer.Event[*item]{Type: informer.EventModified, Object: itemAt("ns", "k0", "same", "3"), ResourceVersion: "3"})
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(src.listCalls()); n != 1 {
			t.Errorf("%d lists: a change at the version reached is not out of order", n)
		}
		if errs := sourceErrs(errs.all(), "", informer.ErrOutOfOrder); len(errs) > 0 {
			t.Errorf("out of order: %v", errs)
		}
		if got := sink.data()["ns/k0"]; got != "same" {
			t.Errorf("sink has k0 = %q, want the change at the version reached", got)
		}
	})
}

// waitingShortStreams is shortStreams with a Source that waits 1.5 s before
// each stream opens, as an SSE client waits its reconnection time: its
// streams are not short (the rate is the Source's), and nothing backs off.
type waitingShortStreams struct{ shortStreams }

func (s *waitingShortStreams) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	select {
	case <-time.After(1500 * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.shortStreams.Watch(ctx, opts)
}

// A stream is short by the time from the call that opened it: a Source
// that waits before it reconnects bounds the rate itself, and its streams
// that deliver and end are not failures.
func TestShortStreamsCountTheSourcesWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		src := &waitingShortStreams{shortStreams{Source: mem}}
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := src.watches.Load(); n < 35 {
			t.Errorf("%d watches in a minute of a Source that waits 1.5 s before each, want about 40 (no backoff on top)", n)
		}
		if h := r.Health(); !h.Healthy() {
			t.Errorf("Health %s: want it healthy", h)
		}
	})
}

// heartbeatThenEnd wraps a memory source: each watch sends a heartbeat
// (a keep-alive) and ends at once, cleanly (a server that ends its quiet
// streams).
type heartbeatThenEnd struct {
	*memory.Source[*item]
	lists atomic.Int64
}

func (s *heartbeatThenEnd) List(ctx context.Context, opts informer.ListOptions) (informer.Page[*item], error) {
	s.lists.Add(1)
	return s.Source.List(ctx, opts)
}

func (s *heartbeatThenEnd) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	if opts.Heartbeat != nil {
		opts.Heartbeat()
	}
	return &oneEvent{ctx: ctx, done: true}, nil
}

// A quiet stream that showed it was alive and ended cleanly is not an
// empty watch (one that may mean a refused version, and three of which in
// a row make the reflector list again); such streams that keep ending at
// once are short ones, which back off.
func TestAliveQuietStreamsAreNotEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		src := &heartbeatThenEnd{Source: mem}
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := src.lists.Load(); n != 1 {
			t.Errorf("%d lists: quiet streams that were alive are no reason to list again", n)
		}
		for _, err := range errs.all() {
			if strings.Contains(err.Error(), "without an event") {
				t.Fatalf("reported %v: a stream that was alive is not empty", err)
			}
		}
	})
}

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// The tests of this file prove recovery rules of the Reflector that a
// deliberate breakage once left with every test green (issue 24). They
// watch only what a Source sees (calls, their options and their times) and
// what reaches the sink or the handlers, so they hold whatever shape the
// reflector's code takes.

// exact is a Backoff without jitter, so that delays can be checked to the
// nanosecond in fake time.
var exact = informer.Backoff{Initial: time.Second, Max: time.Hour, Factor: 2, Jitter: -1}

// offsets returns the times of calls as offsets from the first.
func offsets(at []time.Time) []time.Duration {
	var out []time.Duration
	for _, t := range at {
		out = append(out, t.Sub(at[0]))
	}
	return out
}

func listTimes(src *spySource) []time.Time {
	var at []time.Time
	for _, c := range src.listCalls() {
		at = append(at, c.at)
	}
	return at
}

// Backoff.ResetAfter: a failure that comes ResetAfter or more after the
// previous one starts the delays over from Initial, even though nothing
// succeeded in between.
func TestBackoffResetAfterForgetsOldFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		mem.FailLists(7, errReset)
		src := spy(mem)
		b := exact
		b.ResetAfter = 10 * time.Second
		var errs errList
		r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{Backoff: b})
		runReflector(t, r)
		time.Sleep(time.Hour)
		synctest.Wait()
		// Delays 1s, 2s, 4s, 8s, 16s; the failure after the 16s delay is
		// more than ResetAfter after the one before: 1s, 2s again.
		want := []time.Duration{0, 1, 3, 7, 15, 31, 32, 34}
		for i := range want {
			want[i] *= time.Second
		}
		if got := offsets(listTimes(src)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("lists at %v, want %v", got, want)
		}
	})
}

// A streaming list that completes starts the backoff over: the watch that
// follows, failing at once, waits Initial, not the delay the failed
// streaming lists before it had grown to.
func TestCompletedStreamingListResetsBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{WatchList: true})
		seedItems(t, mem, "ns", 3)
		mem.FailWatches(3, errReset) // delays 1s, 2s, 4s; the next would be 8s
		src := spy(mem)
		var errs errList
		sink := newSinkRec()
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{WatchList: informer.WatchListOn, Backoff: exact})
		runReflector(t, r)
		time.Sleep(7 * time.Second) // the 4th streaming list completes
		synctest.Wait()
		if begins, ends, _, _ := sink.counts(); begins != 1 || ends != 1 {
			t.Fatalf("%d replacements begun, %d ended, want the 4th streaming list complete", begins, ends)
		}
		dropped := time.Now()
		mem.DropWatches(errReset)    // fails at once: no progress
		time.Sleep(30 * time.Second) // well within the watch's timeout
		synctest.Wait()
		w := src.watchCalls()
		if len(w) != 5 || !w[3].opts.SendInitialEvents || w[4].opts.SendInitialEvents {
			t.Fatalf("watches %+v, want 4 streaming lists and a watch", w)
		}
		if gap := w[4].at.Sub(dropped); gap != time.Second {
			t.Fatalf("the watch after the failure came %v later, want 1s (Initial): the completed streaming list did not reset the backoff", gap)
		}
		if len(src.listCalls()) != 0 {
			t.Fatalf("%d List calls, want none", len(src.listCalls()))
		}
	})
}

// A paged list asks a failed later page again up to 4 times, counted per
// page: a list whose every later page fails 4 times before it is served
// completes in one go, never starting over.
func TestPageRetriesArePerPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 8)
		src := spy(mem)
		var mu sync.Mutex
		failed := map[string]int{} // by continue token
		src.afterList = func(call int, p page, err error) (page, error) {
			cont := src.listCalls()[call].opts.Continue
			if cont == "" || err != nil {
				return p, err
			}
			mu.Lock()
			defer mu.Unlock()
			if failed[cont] < 4 {
				failed[cont]++
				return page{}, errReset
			}
			return p, nil
		}
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{PageSize: 2, Backoff: exact})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		firsts := 0
		for _, c := range src.listCalls() {
			if c.opts.Continue == "" {
				firsts++
			}
		}
		if firsts != 1 || len(failed) != 3 {
			t.Fatalf("%d lists from the first page, %d later pages: want one list of 4 pages, each later page failing 4 times", firsts, len(failed))
		}
		if begins, ends, pages, _ := sink.counts(); begins != 1 || ends != 1 || len(pages) != 4 {
			t.Fatalf("sink: %d begins, %d ends, pages %v", begins, ends, pages)
		}
		if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
			t.Fatalf("sink %v, source %v", got, want)
		}
	})
}

// After a continue token expired half way through a list, the reflector
// lists the whole collection again and watches from that fresh list's
// version, not from the abandoned snapshot's (which may be compacted away
// by then, and whose changes the fresh list already shows).
func TestWatchAfterExpiredContinueStartsAtFreshList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 10)
		src := spy(mem)
		src.afterList = func(call int, p page, err error) (page, error) {
			if call == 0 {
				mustDo(t, mem.Delete("ns/k8"))
				mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
				mem.Compact() // the first page's snapshot is gone
			}
			return p, err
		}
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{PageSize: 4, Backoff: exact})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		lists, watches := src.listCalls(), src.watchCalls()
		if len(lists) != 3 || !errors.Is(lists[1].err, informer.ErrExpired) {
			t.Fatalf("lists %+v, want a page, an expired page, and one whole list", lists)
		}
		if len(watches) != 1 || watches[0].opts.ResourceVersion != lists[2].rv {
			t.Fatalf("watches %+v, want one, from the fresh list's version %q (not the expired snapshot's %q)", watches, lists[2].rv, lists[0].rv)
		}
		if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
			t.Fatalf("sink %v, source %v", got, want)
		}
	})
}

// ListOptions.Initial marks every page of the reflector's lists until one
// completes (the cache is empty: a source may answer in larger pages),
// also a list started again after an expired continue token, and no list
// after that: a relist, with the cache full, is never Initial.
func TestOnlyTheFirstListIsInitial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 10)
		src := spy(mem)
		src.afterList = func(call int, p page, err error) (page, error) {
			if call == 0 {
				mem.Compact() // the first page's snapshot is gone
			}
			return p, err
		}
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{PageSize: 4, Backoff: exact})
		runReflector(t, r)
		synctest.Wait()
		cutOff(mem, func() {
			mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
			mem.Compact()
		})
		time.Sleep(time.Minute)
		synctest.Wait()
		lists := src.listCalls()
		// A page, its expired continuation, the whole first list again
		// (unpaged after an expired continuation), then the relist after
		// the watch expired.
		if len(lists) != 4 {
			t.Fatalf("%d lists, want 4: %+v", len(lists), lists)
		}
		for i, l := range lists {
			if want := i < 3; l.opts.Initial != want {
				t.Errorf("list %d (continue %q): Initial %t, want %t", i, l.opts.Continue, l.opts.Initial, want)
			}
		}
	})
}

// An expired resourceVersion after a watch that made progress is relisted
// at once, with no backoff: the first expiry after progress is routine.
func TestExpiryAfterProductiveWatchRelistsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		src := spy(mem)
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{Backoff: exact})
		runReflector(t, r)
		synctest.Wait()
		for round := range 3 {
			// The watch delivers (progress), then is cut while the
			// server compacts: the resume finds its version expired.
			mustDo(t, mem.Update(newItem("ns", "k0", fmt.Sprint("r", round))))
			synctest.Wait()
			before := len(src.listCalls())
			cutAt := time.Now()
			cutOff(mem, func() {
				mustDo(t, mem.Update(newItem("ns", "k1", fmt.Sprint("r", round))))
				mem.Compact()
			})
			time.Sleep(time.Minute)
			synctest.Wait()
			lists := src.listCalls()
			if len(lists) != before+1 {
				t.Fatalf("round %d: %d lists after the expiry, want 1", round, len(lists)-before)
			}
			if gap := lists[before].at.Sub(cutAt); gap != 0 {
				t.Fatalf("round %d: relisted %v after the expiry, want at once", round, gap)
			}
			if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
				t.Fatalf("round %d: sink %v, source %v", round, got, want)
			}
		}
		if len(sourceErrs(errs.all(), "", informer.ErrExpired)) != 3 {
			t.Errorf("errors %v, want 3 expiries reported", errs.all())
		}
	})
}

// noVersionSource serves objects without a resourceVersion (as many HTTP
// services do): List returns the current objects; every watch stays open
// until expire is called, and then fails with ErrExpired, so the reflector
// relists.
type noVersionSource struct {
	mu      sync.Mutex
	objs    map[string]string // name → data
	lists   int
	expired chan struct{}
}

func (s *noVersionSource) set(objs map[string]string) {
	s.mu.Lock()
	s.objs = objs
	s.mu.Unlock()
}

func (s *noVersionSource) expire() {
	s.mu.Lock()
	close(s.expired)
	s.expired = make(chan struct{})
	s.mu.Unlock()
}

func (s *noVersionSource) List(ctx context.Context, opts informer.ListOptions) (informer.Page[*item], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	var p informer.Page[*item]
	for name, data := range s.objs {
		p.Items = append(p.Items, newItem("ns", name, data)) // no resourceVersion
	}
	p.ResourceVersion = fmt.Sprint("list-", s.lists) // opaque
	return p, nil
}

func (s *noVersionSource) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &noVersionWatch{ctx: ctx, expired: s.expired, closed: make(chan struct{})}, nil
}

type noVersionWatch struct {
	ctx       context.Context
	expired   chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
}

func (w *noVersionWatch) Next() (informer.Event[*item], error) {
	select {
	case <-w.expired:
		return informer.Event[*item]{}, fmt.Errorf("resource version too old: %w", informer.ErrExpired)
	case <-w.ctx.Done():
		return informer.Event[*item]{}, w.ctx.Err()
	case <-w.closed:
		return informer.Event[*item]{}, io.EOF
	}
}

func (w *noVersionWatch) Close() error {
	w.closeOnce.Do(func() { close(w.closed) })
	return nil
}

// Objects without a resourceVersion cannot be told unchanged: a relist
// hands each one to the handlers as OnUpdate, so a change of one reaches
// them (HandlerOptions.RelistUnchanged).
func TestRelistOfObjectsWithoutVersionReachesHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &noVersionSource{objs: map[string]string{"a": "v1", "same": "v1", "gone": "v1"}, expired: make(chan struct{})}
		inf := informer.New[*item](src, quiet[*item](t, nil))
		h := &recorder{}
		reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
		runInformer(t, inf)
		if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the watch is open
		src.set(map[string]string{"a": "v2", "same": "v1", "new": "v1"})
		src.expire()
		time.Sleep(time.Minute)
		synctest.Wait()
		src.mu.Lock()
		lists := src.lists
		src.mu.Unlock()
		if lists != 2 {
			t.Fatalf("%d lists, want a relist after the expiry", lists)
		}
		got := map[string]string{}
		for _, r := range h.all()[3:] {
			got[r.Key] = fmt.Sprintf("%s %s", r.Kind, r.Data)
		}
		want := map[string]string{"ns/a": "update v2", "ns/same": "update v1", "ns/new": "add v1", "ns/gone": "delete v1"}
		if !equalMaps(got, want) {
			t.Fatalf("after the relist the handler got %v, want %v", got, want)
		}
		if got, want := h.state(), map[string]string{"ns/a": "v2", "ns/same": "v1", "ns/new": "v1"}; !equalMaps(got, want) {
			t.Fatalf("handler state %v, want %v", got, want)
		}
	})
}

// Backoff.Jitter defaults to 1.0: each delay d becomes a value in
// [d, 2d), so that many clients of one server do not retry in step; a
// negative Jitter means none.
func TestBackoffJitterDefault(t *testing.T) {
	for _, tc := range []struct {
		name   string
		jitter float64
	}{{"default", 0}, {"none", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				mem.FailLists(10, errReset)
				src := spy(mem)
				var errs errList
				b := informer.Backoff{Initial: time.Second, Max: time.Hour, Jitter: tc.jitter, ResetAfter: 100 * time.Hour}
				r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{Backoff: b})
				runReflector(t, r)
				time.Sleep(10 * time.Hour)
				synctest.Wait()
				at := listTimes(src)
				if len(at) != 11 {
					t.Fatalf("%d lists, want 11", len(at))
				}
				jittered := 0
				d := time.Second
				for i := 1; i < len(at); i++ {
					gap := at[i].Sub(at[i-1])
					if gap < d || gap >= 2*d {
						t.Fatalf("gap %d is %v, want [%v, %v)", i, gap, d, 2*d)
					}
					if gap != d {
						jittered++
					}
					d *= 2
				}
				if tc.jitter < 0 && jittered != 0 {
					t.Fatalf("%d of 10 delays jittered, want none", jittered)
				}
				if tc.jitter == 0 && jittered == 0 {
					t.Fatal("no delay jittered: the default Jitter is 1.0")
				}
			})
		})
	}
}

// LastError is cleared as soon as an event arrives: a watch that failed
// and was opened again is answering (Informer.LastError).
func TestLastErrorClearedByAnEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		mustDo(t, src.Create(newItem("ns", "a", "v1")))
		opts := quiet[*item](t, nil)
		opts.Reflector.Backoff = exact
		inf := informer.New(src, opts)
		runInformer(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()           // the watch is open
		src.DropWatches(errReset) // at once, nothing delivered: a failure
		synctest.Wait()
		if inf.LastError() == nil {
			t.Fatal("LastError is nil after a failed watch")
		}
		time.Sleep(time.Second) // the backoff: the watch is opened again
		synctest.Wait()
		if inf.LastError() == nil {
			t.Fatal("LastError is nil before the new watch delivered anything")
		}
		mustDo(t, src.Update(newItem("ns", "a", "v2")))
		synctest.Wait()
		if err := inf.LastError(); err != nil {
			t.Fatalf("LastError = %v after an event arrived, want nil", err)
		}
	})
}

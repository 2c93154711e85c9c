package informer_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// The spySource below is shared with reflector_test.go and random_test.go.

type page = informer.Page[*item]

// listCall is one List call a spySource saw.
type listCall struct {
	at   time.Time
	opts informer.ListOptions
	n    int    // items returned
	rv   string // the page's resourceVersion
	cont string // the page's continue token
	err  error
}

// watchCall is one Watch call a spySource saw, with the options the caller
// asked for (before beforeWatch changed them).
type watchCall struct {
	at   time.Time
	opts informer.WatchOptions
	err  error
}

// spySource wraps a memory.Source: it records every List and Watch call with
// its fake time, and lets a test change answers on the way.
type spySource struct {
	*memory.Source[*item]

	mu      sync.Mutex
	lists   []listCall
	watches []watchCall
	// afterList, if set, sees every List answer (call counts from 0) and
	// returns the one to give the caller.
	afterList func(call int, p page, err error) (page, error)
	// beforeWatch, if set, changes the options passed on to the source.
	beforeWatch func(opts informer.WatchOptions) informer.WatchOptions
	// event, if set, sees every watch event and returns the one to deliver;
	// false drops it.
	event func(ev informer.Event[*item]) (informer.Event[*item], bool)
}

func spy(mem *memory.Source[*item]) *spySource { return &spySource{Source: mem} }

// set changes the hooks under the lock, so a test may change them while the
// reflector runs.
func (s *spySource) set(fn func(s *spySource)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s)
}

func (s *spySource) List(ctx context.Context, opts informer.ListOptions) (page, error) {
	s.mu.Lock()
	call, hook := len(s.lists), s.afterList
	s.lists = append(s.lists, listCall{at: time.Now(), opts: opts})
	s.mu.Unlock()
	p, err := s.Source.List(ctx, opts)
	if hook != nil {
		p, err = hook(call, p, err)
	}
	s.mu.Lock()
	c := &s.lists[call]
	c.n, c.rv, c.cont, c.err = len(p.Items), p.ResourceVersion, p.Continue, err
	s.mu.Unlock()
	return p, err
}

func (s *spySource) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[*item], error) {
	s.mu.Lock()
	call, before, filter := len(s.watches), s.beforeWatch, s.event
	s.watches = append(s.watches, watchCall{at: time.Now(), opts: opts})
	s.mu.Unlock()
	if before != nil {
		opts = before(opts)
	}
	w, err := s.Source.Watch(ctx, opts)
	s.mu.Lock()
	s.watches[call].err = err
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &spyWatcher{Watcher: w, filter: filter}, nil
}

func (s *spySource) listCalls() []listCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lists)
}

func (s *spySource) watchCalls() []watchCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.watches)
}

// spyWatcher passes events through its source's event hook.
type spyWatcher struct {
	informer.Watcher[*item]
	filter func(ev informer.Event[*item]) (informer.Event[*item], bool)
}

func (w *spyWatcher) Next() (informer.Event[*item], error) {
	for {
		ev, err := w.Watcher.Next()
		if err != nil || w.filter == nil {
			return ev, err
		}
		if ev, ok := w.filter(ev); ok {
			return ev, nil
		}
	}
}

// badEvent returns an injected event of type typ carrying obj.
func badEvent(typ informer.EventType, obj *item, rv string) informer.Event[*item] {
	return informer.Event[*item]{Type: typ, Object: obj, ResourceVersion: rv}
}

// itemAt returns a fresh item that claims resourceVersion rv.
func itemAt(ns, name, data, rv string) *item {
	o := newItem(ns, name, data)
	o.ResourceVersion = rv
	return o
}

// TestBadInput: a source that answers with invalid objects or events. Each
// fault is reported to OnError as the right typed error, skipped without a
// panic, and the cache holds exactly the source's objects, during the fault
// and after it stops.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		// list, if set, corrupts every List page while the fault lasts,
		// from the first list on.
		list func(p page) page
		// inject is injected into the watch after the first sync.
		inject []informer.Event[*item]
		target error
		// source: the error is a *SourceError (the watch is abandoned and
		// the informer lists again); otherwise an *ObjectError, and the
		// watch goes on.
		source bool
	}{
		{
			name: "empty name in a list",
			list: func(p page) page {
				p.Items = append(p.Items, newItem("ns", "", "nameless"))
				return p
			},
			target: informer.ErrEmptyName,
		},
		{
			name: "duplicate key in a list, the later one wins",
			list: func(p page) page {
				stale := *p.Items[0]
				stale.Data = "stale"
				p.Items = append([]*item{&stale}, p.Items...)
				return p
			},
			target: informer.ErrDuplicateKey,
		},
		{
			name: "nil object in a list",
			list: func(p page) page {
				p.Items = append(p.Items[:1:1], append([]*item{nil}, p.Items[1:]...)...)
				return p
			},
			target: informer.ErrNilObject,
		},
		{name: "nil object in an ADDED event", inject: []informer.Event[*item]{badEvent(informer.EventAdded, nil, "")}, target: informer.ErrNilObject, source: true},
		{name: "nil object in a MODIFIED event", inject: []informer.Event[*item]{badEvent(informer.EventModified, nil, "")}, target: informer.ErrNilObject, source: true},
		{name: "nil object in a DELETED event", inject: []informer.Event[*item]{badEvent(informer.EventDeleted, nil, "")}, target: informer.ErrNilObject, source: true},
		{name: "empty name in an ADDED event", inject: []informer.Event[*item]{badEvent(informer.EventAdded, newItem("ns", "", "nameless"), "")}, target: informer.ErrEmptyName},
		{name: "bookmark without a version", inject: []informer.Event[*item]{badEvent(informer.EventBookmark, nil, "")}, target: informer.ErrBookmarkWithoutVersion},
		{name: "unknown event type", inject: []informer.Event[*item]{badEvent(42, newItem("ns", "ghost", "boo"), "")}, target: informer.ErrUnknownEventType},
		{name: "initial-events end outside a streaming list", inject: []informer.Event[*item]{badEvent(informer.EventInitialEventsEnd, nil, "1")}, target: informer.ErrUnknownEventType},
		{
			name:   "event older than one already seen",
			inject: []informer.Event[*item]{badEvent(informer.EventModified, itemAt("ns", "k0", "stale", "1"), "1")},
			target: informer.ErrOutOfOrder,
			source: true,
		},
		{
			name:   "deletion older than one already seen",
			inject: []informer.Event[*item]{badEvent(informer.EventDeleted, itemAt("ns", "k1", "v1", "2"), "2")},
			target: informer.ErrOutOfOrder,
			source: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 5)
				src := spy(mem)
				if tc.list != nil {
					src.afterList = func(_ int, p page, err error) (page, error) {
						if err != nil {
							return p, err
						}
						return tc.list(p), nil
					}
				}
				var errs errList
				inf := informer.New[*item](src, quiet[*item](t, &errs))
				h := &recorder{}
				reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
				runInformer(t, inf)
				synctest.Wait()
				if !inf.HasSynced() || !reg.HasSynced() {
					t.Fatal("not synced: a bad item must not stop the list")
				}
				lists, watches := mem.ListCalls(), mem.WatchCalls()
				for _, ev := range tc.inject {
					mem.InjectEvent(ev)
				}
				mustDo(t, mem.Update(newItem("ns", "k3", "after the fault")))
				time.Sleep(time.Minute) // a backoff, if any, passes
				synctest.Wait()

				var found bool
				for _, err := range errs.all() {
					var se *informer.SourceError
					var oe *informer.ObjectError
					if errors.Is(err, tc.target) && (tc.source && errors.As(err, &se) || !tc.source && errors.As(err, &oe)) {
						found = true
					}
				}
				if !found {
					t.Errorf("errors %v, want one wrapping %v as a *%s", errs.all(), tc.target, map[bool]string{true: "SourceError", false: "ObjectError"}[tc.source])
				}
				switch relisted := mem.ListCalls() > lists; {
				case tc.source && !relisted:
					t.Error("no relist after the watch was abandoned")
				case !tc.source && (relisted || mem.WatchCalls() != watches):
					t.Errorf("lists %d→%d, watches %d→%d: the watch should have gone on", lists, mem.ListCalls(), watches, mem.WatchCalls())
				}
				want := sourceState(mem)
				if got := cacheState(inf); !equalMaps(got, want) {
					t.Errorf("during the fault: cache %v, source %v", got, want)
				}
				if got := h.state(); !equalMaps(got, want) {
					t.Errorf("during the fault: handler %v, source %v", got, want)
				}
				for _, r := range h.all() {
					if tc.list == nil && (r.Data == "stale" || r.Key == "ns/ghost") {
						t.Errorf("handler saw a rejected object: %v", r)
					}
				}

				// The fault stops; a relist must leave exactly the source.
				src.set(func(s *spySource) { s.afterList = nil })
				cutOff(mem, func() {
					mustDo(t, mem.Delete("ns/k4"))
					mem.Compact()
				})
				time.Sleep(time.Minute)
				synctest.Wait()
				want = sourceState(mem)
				if got := cacheState(inf); !equalMaps(got, want) {
					t.Errorf("after the fault: cache %v, source %v", got, want)
				}
				if got := h.state(); !equalMaps(got, want) {
					t.Errorf("after the fault: handler %v, source %v", got, want)
				}
				checkOrder(t, h.all())
			})
		})
	}
}

// TestSourceAlwaysFails: a source whose every List and Watch fails. The
// informer keeps retrying with capped backoff, reports each failure as a
// *SourceError, invents nothing, and recovers once the source does.
func TestSourceAlwaysFails(t *testing.T) {
	down := errors.New("503 service unavailable")
	for _, tc := range []struct {
		name      string
		afterSync bool // the source fails after the first sync
	}{
		{"from the start", false},
		{"after the first sync", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 5)
				src := spy(mem)
				var errs errList
				inf := informer.New[*item](src, quiet[*item](t, &errs))
				h := &recorder{}
				inf.AddHandler(h, informer.HandlerOptions{})
				fail := func() {
					mem.FailLists(1<<30, down)
					mem.FailWatches(1<<30, down)
				}
				if !tc.afterSync {
					fail()
				}
				runInformer(t, inf)
				synctest.Wait()
				before := cacheState(inf)
				calls := len(h.all())
				start := time.Now()
				if tc.afterSync {
					fail()
					mem.DropWatches(down)
				}
				// The world changes while the source cannot be read.
				mustDo(t, mem.Update(newItem("ns", "k0", "v2")))
				mustDo(t, mem.Delete("ns/k1"))
				mem.Compact()
				time.Sleep(time.Hour)
				synctest.Wait()

				if inf.HasSynced() != tc.afterSync {
					t.Errorf("HasSynced = %v", inf.HasSynced())
				}
				if got := cacheState(inf); !equalMaps(got, before) || (!tc.afterSync && len(got) != 0) {
					t.Errorf("cache %v while the source is down, want %v", got, before)
				}
				if n := len(h.all()); n != calls {
					t.Errorf("%d handler calls while the source is down", n-calls)
				}
				var times []time.Time
				for _, c := range src.listCalls() {
					if !c.at.Before(start) {
						times = append(times, c.at)
					}
				}
				for _, c := range src.watchCalls() {
					if c.at.After(start) {
						times = append(times, c.at)
					}
				}
				slices.SortFunc(times, time.Time.Compare)
				if n := len(times); n < 55 || n > 130 {
					t.Errorf("%d calls in an hour of failures, want a retry every 30-60s once capped", n)
				}
				for i := 11; i < len(times); i++ { // 0.1s, 0.2s ... 25.6s, then capped
					if gap := times[i].Sub(times[i-1]); gap < 30*time.Second || gap >= time.Minute {
						t.Errorf("retry %d after %v, want the capped [30s, 60s)", i, gap)
					}
				}
				failed := sourceErrs(errs.all(), "", down)
				if len(failed) < len(times) || len(failed) != len(errs.all()) {
					t.Errorf("%d errors wrapping the failure (of %d errors) for %d calls", len(failed), len(errs.all()), len(times))
				}

				mem.FailLists(0, nil)
				mem.FailWatches(0, nil)
				time.Sleep(2 * time.Minute)
				synctest.Wait()
				if !inf.HasSynced() {
					t.Error("not synced once the source recovered")
				}
				want := sourceState(mem)
				if got := cacheState(inf); !equalMaps(got, want) {
					t.Errorf("cache %v, source %v", got, want)
				}
				if got := h.state(); !equalMaps(got, want) {
					t.Errorf("handler %v, source %v", got, want)
				}
			})
		})
	}
}

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// Helpers shared with badinput_test.go and random_test.go; spySource is in
// badinput_test.go.

// sinkRec is an informer.Sink that records what a reflector writes and keeps
// the resulting state.
type sinkRec struct {
	mu     sync.Mutex
	state  map[string]*item
	next   map[string]*item // the replacement in progress
	ops    []string
	begins int
	ends   int
	pages  []int
}

func newSinkRec() *sinkRec { return &sinkRec{state: map[string]*item{}} }

func (s *sinkRec) apply(op string, o *item) error {
	key, err := informer.MetaKey(o)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op+" "+key)
	if op == "delete" {
		delete(s.state, key)
	} else {
		s.state[key] = o
	}
	return nil
}

func (s *sinkRec) Add(o *item) error    { return s.apply("add", o) }
func (s *sinkRec) Update(o *item) error { return s.apply("update", o) }
func (s *sinkRec) Delete(o *item) error { return s.apply("delete", o) }

func (s *sinkRec) BeginReplace() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = map[string]*item{}
	s.begins++
	s.ops = append(s.ops, "begin")
}

func (s *sinkRec) ReplaceItems(items []*item) error {
	var errs []error
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next == nil {
		return errors.New("sinkRec: ReplaceItems without BeginReplace")
	}
	for _, o := range items {
		key, err := informer.MetaKey(o)
		if err != nil {
			errs = append(errs, &informer.ObjectError{Op: "replace", Err: err})
			continue
		}
		s.next[key] = o
	}
	s.pages = append(s.pages, len(items))
	s.ops = append(s.ops, fmt.Sprint("items ", len(items)))
	return errors.Join(errs...)
}

func (s *sinkRec) EndReplace() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next == nil {
		return errors.New("sinkRec: EndReplace without BeginReplace")
	}
	s.state, s.next = s.next, nil
	s.ends++
	s.ops = append(s.ops, "end")
	return nil
}

// data returns the sink's state as key → data.
func (s *sinkRec) data() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]string{}
	for k, o := range s.state {
		m[k] = o.Data
	}
	return m
}

func (s *sinkRec) counts() (begins, ends int, pages []int, ops []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.begins, s.ends, slices.Clone(s.pages), slices.Clone(s.ops)
}

// newTestReflector returns a reflector whose errors go to errs and not to the
// log.
func newTestReflector(src informer.Source[*item], sink informer.Sink[*item], errs *errList, opts informer.ReflectorOptions) *informer.Reflector[*item] {
	opts.Logger = discardLogger()
	opts.OnError = errs.add
	return informer.NewReflector(src, sink, opts)
}

// runReflector runs r until the returned stop is called (or the test ends);
// stop returns what Run returned and checks that no goroutine is left. It
// must run in a synctest bubble.
func runReflector(t *testing.T, r *informer.Reflector[*item]) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
			synctest.Wait()
			checkNoLeaks(t)
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

// seedItems creates n items named k0..k(n-1) in namespace ns.
func seedItems(t *testing.T, mem *memory.Source[*item], ns string, n int) {
	t.Helper()
	for i := range n {
		if err := mem.Create(newItem(ns, fmt.Sprint("k", i), "v1")); err != nil {
			t.Fatal(err)
		}
	}
}

// mustDo fails the test on a source write error.
func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sourceErrs returns the *SourceErrors among errs with the given Op ("" for
// any) that match target (nil for any).
func sourceErrs(errs []error, op string, target error) []*informer.SourceError {
	var out []*informer.SourceError
	for _, err := range errs {
		var se *informer.SourceError
		if !errors.As(err, &se) || (op != "" && se.Op != op) || (target != nil && !errors.Is(err, target)) {
			continue
		}
		out = append(out, se)
	}
	return out
}

// objectErrs returns the errors that are *ObjectErrors matching target.
func objectErrs(errs []error, target error) []*informer.ObjectError {
	var out []*informer.ObjectError
	for _, err := range errs {
		var oe *informer.ObjectError
		if errors.As(err, &oe) && errors.Is(err, target) {
			out = append(out, oe)
		}
	}
	return out
}

// errReset is what a reset connection looks like to a watch.
var errReset = fmt.Errorf("read tcp 127.0.0.1:6443: %w", syscall.ECONNRESET)

// ---- reflector tests ----

// TestReflectorPagedListThenWatch: the first list is read page by page into
// one replacement, every page from the first page's version; the watch then
// starts at that version, so a write made during the list is not missed.
func TestReflectorPagedListThenWatch(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pageSize  int64
		maxPage   int
		listRV    string
		wantLimit int64
		wantPages []int
	}{
		{"reflector page size", 3, 0, "", 3, []int{3, 3, 3, 1}},
		{"the source's page size", 0, 4, "", 0, []int{4, 4, 2}},
		{"no limit", -1, 0, "", informer.NoLimit, []int{10}},
		{"no limit, but the source caps pages", -1, 4, "", informer.NoLimit, []int{4, 4, 2}},
		{"exact pages from any version", 5, 0, "0", 5, []int{5, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{MaxPageSize: tc.maxPage})
				seedItems(t, mem, "ns", 10)
				listRV := mem.ResourceVersion()
				src := spy(mem)
				src.afterList = func(call int, p page, err error) (page, error) {
					if call == 0 { // a write while the list is being read
						mustDo(t, mem.Update(newItem("ns", "k9", "written during the list")))
					}
					return p, err
				}
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{PageSize: tc.pageSize, ListResourceVersion: tc.listRV})
				runReflector(t, r)
				synctest.Wait()

				lists := src.listCalls()
				if len(lists) != len(tc.wantPages) || mem.ListCalls() != len(tc.wantPages) {
					t.Fatalf("%d List calls, want %d", len(lists), len(tc.wantPages))
				}
				for i, c := range lists {
					if c.err != nil || c.n != tc.wantPages[i] || c.rv != listRV || c.opts.Limit != tc.wantLimit {
						t.Errorf("list %d: %+v, want %d items at rv %s, limit %d", i, c, tc.wantPages[i], listRV, tc.wantLimit)
					}
					wantRV, wantCont := tc.listRV, ""
					if i > 0 {
						wantRV, wantCont = "", lists[i-1].cont
					}
					if c.opts.ResourceVersion != wantRV || c.opts.Continue != wantCont {
						t.Errorf("list %d asked rv %q continue %q, want %q %q", i, c.opts.ResourceVersion, c.opts.Continue, wantRV, wantCont)
					}
				}
				begins, ends, pages, _ := sink.counts()
				if begins != 1 || ends != 1 || !slices.Equal(pages, tc.wantPages) {
					t.Errorf("sink: %d begins, %d ends, pages %v; want one replacement of %v", begins, ends, pages, tc.wantPages)
				}
				w := src.watchCalls()
				if len(w) != 1 || w[0].opts.ResourceVersion != listRV || !w[0].opts.AllowBookmarks || w[0].opts.SendInitialEvents {
					t.Fatalf("watches %+v, want one from the list's version %s with bookmarks", w, listRV)
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
				if got, want := r.LastSyncResourceVersion(), mem.ResourceVersion(); got != want {
					t.Errorf("LastSyncResourceVersion = %s, want %s", got, want)
				}
				if e := errs.all(); len(e) != 0 {
					t.Errorf("errors: %v", e)
				}
			})
		})
	}
}

// TestReflectorIntoDeltaFIFO: a reflector writing into a DeltaFIFO queues a
// Replaced delta per listed object, then a delta per watch event.
func TestReflectorIntoDeltaFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{MaxPageSize: 2})
		seedItems(t, mem, "ns", 5)
		fifo := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[*item]{})
		var errs errList
		runReflector(t, newTestReflector(mem, fifo, &errs, informer.ReflectorOptions{}))
		synctest.Wait()
		mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
		mustDo(t, mem.Create(newItem("ns", "new", "v1")))
		mustDo(t, mem.Delete("ns/k2"))
		synctest.Wait()

		var keys []string
		got := map[string][]string{}
		for fifo.Len() > 0 {
			err := fifo.PopBatch(t.Context(), 100, func(batch []informer.KeyDeltas[*item]) error {
				for _, kd := range batch {
					keys = append(keys, kd.Key)
					for _, d := range kd.Deltas {
						got[kd.Key] = append(got[kd.Key], d.Type.String()+"@"+d.Object.ResourceVersion)
					}
				}
				return nil
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
		}
		want := map[string][]string{
			"ns/k0":  {"Replaced@1"},
			"ns/k1":  {"Replaced@2", "Updated@6"},
			"ns/k2":  {"Replaced@3", "Deleted@3"},
			"ns/k3":  {"Replaced@4"},
			"ns/k4":  {"Replaced@5"},
			"ns/new": {"Added@7"},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("deltas\n got %v\nwant %v", got, want)
		}
		if wantKeys := []string{"ns/k0", "ns/k1", "ns/k2", "ns/k3", "ns/k4", "ns/new"}; !slices.Equal(keys, wantKeys) {
			t.Errorf("keys popped in order %v, want %v", keys, wantKeys)
		}
		if !fifo.HasSynced() {
			t.Error("queue not synced after the first list was popped")
		}
		if mem.ListCalls() != 3 {
			t.Errorf("%d List calls, want 3 pages", mem.ListCalls())
		}
	})
}

// TestReflectorResumesAfterDrop: a dropped watch resumes from the last
// version seen, without listing again, and delivers what was written while
// it was down; a drop with an error is reported and backed off.
func TestReflectorResumesAfterDrop(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error // nil: a clean end of stream
	}{
		{"clean end", nil},
		{"connection error", errReset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 5)
				src := spy(mem)
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{})
				runReflector(t, r)
				synctest.Wait()
				mustDo(t, mem.Update(newItem("ns", "k0", "v2")))
				time.Sleep(10 * time.Second) // a useful watch, not one that ends at once
				synctest.Wait()
				before := r.LastSyncResourceVersion()
				if before != mem.ResourceVersion() {
					t.Fatalf("LastSyncResourceVersion %s, source at %s", before, mem.ResourceVersion())
				}

				// The stream stalls, writes go unseen, then the connection drops.
				mem.StallWatches()
				mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
				mustDo(t, mem.Delete("ns/k2"))
				mustDo(t, mem.Create(newItem("ns", "k9", "v1")))
				mem.DropWatches(tc.err)
				mem.ResumeWatches()
				time.Sleep(time.Minute)
				synctest.Wait()

				if n := mem.ListCalls(); n != 1 {
					t.Errorf("%d List calls, want 1: a resume must not relist", n)
				}
				w := src.watchCalls()
				if len(w) != 2 || w[1].opts.ResourceVersion != before {
					t.Fatalf("watches %+v, want a second one from %s", w, before)
				}
				begins, _, _, ops := sink.counts()
				if begins != 1 {
					t.Errorf("%d replacements, want 1", begins)
				}
				if tail := ops[len(ops)-3:]; !slices.Equal(tail, []string{"update ns/k1", "delete ns/k2", "add ns/k9"}) {
					t.Errorf("sink ops end with %v, want the missed events", tail)
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
				if r.LastSyncResourceVersion() != mem.ResourceVersion() {
					t.Errorf("LastSyncResourceVersion %s, source at %s", r.LastSyncResourceVersion(), mem.ResourceVersion())
				}
				reported := sourceErrs(errs.all(), "watch", errReset)
				switch {
				case tc.err == nil && len(errs.all()) != 0:
					t.Errorf("a clean end reported %v", errs.all())
				case tc.err != nil && len(reported) != 1:
					t.Errorf("errors %v, want one *SourceError wrapping the drop", errs.all())
				case !w[1].at.Equal(w[0].at.Add(10 * time.Second)):
					// Open for 10s, so productive: a reset is a blip.
					t.Errorf("resumed %v after the first watch, want at once after the end of a productive watch", w[1].at.Sub(w[0].at))
				case tc.err != nil && !errors.Is(reported[0], informer.ErrTransport):
					t.Errorf("error %v does not match ErrTransport", reported[0])
				}
			})
		})
	}
}

// TestReflectorRelistOnExpired: when the version to resume from has expired,
// the reflector lists again, from the most recent state, and objects that
// vanished meanwhile leave the sink.
func TestReflectorRelistOnExpired(t *testing.T) {
	gone := fmt.Errorf("410 Gone: %w", informer.ErrExpired)
	for _, tc := range []struct {
		name  string
		fault func(mem *memory.Source[*item])
	}{
		{"compacted while the watch was down", func(mem *memory.Source[*item]) { mem.Compact() }},
		{"watch answers expired", func(mem *memory.Source[*item]) { mem.FailWatches(1, gone) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 5)
				src := spy(mem)
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{})
				runReflector(t, r)
				synctest.Wait()
				before := r.LastSyncResourceVersion()

				mem.DropWatches(errReset) // the reflector backs off
				synctest.Wait()
				mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
				mustDo(t, mem.Delete("ns/k2"))
				mustDo(t, mem.Create(newItem("ns", "k9", "v1")))
				tc.fault(mem)
				time.Sleep(time.Minute)
				synctest.Wait()

				if n := mem.ListCalls(); n != 2 {
					t.Fatalf("%d List calls, want a relist", n)
				}
				lists := src.listCalls()
				if lists[1].opts.ResourceVersion != "" {
					t.Errorf("relist from %q, want the most recent state", lists[1].opts.ResourceVersion)
				}
				w := src.watchCalls()
				if last := w[len(w)-1]; last.err != nil || last.opts.ResourceVersion != lists[1].rv {
					t.Errorf("last watch %+v, want one from the relist's version %s", last, lists[1].rv)
				}
				expired := sourceErrs(errs.all(), "watch", informer.ErrExpired)
				if len(expired) != 1 || expired[0].ResourceVersion != before {
					t.Errorf("errors %v, want one *SourceError{Op: watch} from %s wrapping ErrExpired", errs.all(), before)
				}
				if begins, ends, _, _ := sink.counts(); begins != 2 || ends != 2 {
					t.Errorf("%d/%d replacements, want 2", begins, ends)
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
			})
		})
	}
}

// TestReflectorBookmarks: a bookmark moves LastSyncResourceVersion on,
// although no object event came, and the next watch resumes from it. An older
// bookmark does not move it back.
func TestReflectorBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		// The consumer watches namespace "ns" only, as a field selector would:
		// writes elsewhere move the version without an event.
		src := spy(mem)
		src.event = func(ev informer.Event[*item]) (informer.Event[*item], bool) {
			return ev, ev.Type == informer.EventBookmark || ev.Object.Namespace == "ns"
		}
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{})
		runReflector(t, r)
		synctest.Wait()
		start := r.LastSyncResourceVersion()
		for i := range 5 {
			mustDo(t, mem.Create(newItem("other", fmt.Sprint("o", i), "v1")))
		}
		synctest.Wait()
		if got := r.LastSyncResourceVersion(); got != start {
			t.Fatalf("version moved to %s without an event", got)
		}
		mem.Bookmark()
		synctest.Wait()
		bookmarked := mem.ResourceVersion()
		if got := r.LastSyncResourceVersion(); got != bookmarked {
			t.Fatalf("after a bookmark LastSyncResourceVersion = %s, want %s", got, bookmarked)
		}
		mem.InjectEvent(informer.Event[*item]{Type: informer.EventBookmark, ResourceVersion: start})
		synctest.Wait()
		if got := r.LastSyncResourceVersion(); got != bookmarked {
			t.Fatalf("an older bookmark moved LastSyncResourceVersion back to %s", got)
		}
		mem.DropWatches(errReset)
		time.Sleep(time.Minute)
		synctest.Wait()
		w := src.watchCalls()
		if len(w) != 2 || !w[0].opts.AllowBookmarks || w[1].opts.ResourceVersion != bookmarked {
			t.Fatalf("watches %+v, want the second from the bookmark %s", w, bookmarked)
		}
		if mem.ListCalls() != 1 || len(errs.all()) != 1 {
			t.Errorf("%d lists, errors %v; want 1 list and the drop", mem.ListCalls(), errs.all())
		}
	})
}

// TestReflectorWatchTimeout: each watch asks for a timeout drawn from
// [MinWatchTimeout, 2×MinWatchTimeout), and when the source ends the watch
// after it, the next watch follows at once, without an error.
func TestReflectorWatchTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		min     time.Duration
		wantMin time.Duration
		run     time.Duration
	}{
		{"default", 0, 5 * time.Minute, 12 * time.Hour},
		{"one minute", time.Minute, time.Minute, 3 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 2)
				src := spy(mem)
				var errs errList
				r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{MinWatchTimeout: tc.min})
				runReflector(t, r)
				time.Sleep(tc.run)
				synctest.Wait()
				w := src.watchCalls()
				if len(w) < 60 {
					t.Fatalf("only %d watches in %v", len(w), tc.run)
				}
				lo, hi := 2*tc.wantMin, time.Duration(0)
				distinct := map[time.Duration]bool{}
				for i, c := range w {
					d := c.opts.Timeout
					if d < tc.wantMin || d >= 2*tc.wantMin {
						t.Errorf("watch %d asked a timeout of %v, want [%v, %v)", i, d, tc.wantMin, 2*tc.wantMin)
					}
					lo, hi = min(lo, d), max(hi, d)
					distinct[d] = true
					if i > 0 && c.at.Sub(w[i-1].at) != w[i-1].opts.Timeout {
						t.Errorf("watch %d opened %v after the previous, whose timeout was %v", i, c.at.Sub(w[i-1].at), w[i-1].opts.Timeout)
					}
				}
				if len(distinct) < len(w)/2 || lo > tc.wantMin*5/4 || hi < tc.wantMin*7/4 {
					t.Errorf("timeouts not spread: %d distinct of %d, range [%v, %v]", len(distinct), len(w), lo, hi)
				}
				if mem.ListCalls() != 1 || len(errs.all()) != 0 {
					t.Errorf("%d lists, errors %v: a timeout is a clean end", mem.ListCalls(), errs.all())
				}
			})
		})
	}
}

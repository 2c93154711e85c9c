package informer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// restartingSource serves one object from a history at version 10 until
// restart, then from a new history whose versions start again (version
// 3): a server restored from a backup, or a service whose versions restart
// at 0. The watch of the old history then ends with ErrExpired; the list
// of the new one is announced on listing and waits for gate.
type restartingSource struct {
	mu        sync.Mutex
	restarted bool
	expire    chan struct{} // closed by restart
	listing   chan struct{} // receives when the new history's list begins
	gate      chan struct{} // the new history's list waits for it
}

func (s *restartingSource) CompareVersions(a, b string) (int, bool) {
	return informer.CompareNumericVersions(a, b)
}

func (s *restartingSource) state() (obj *item, rv string, restarted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.restarted {
		obj, rv = newItem("ns", "a", "new history"), "3"
	} else {
		obj, rv = newItem("ns", "a", "old history"), "10"
	}
	obj.ResourceVersion = rv
	return obj, rv, s.restarted
}

func (s *restartingSource) List(ctx context.Context, _ informer.ListOptions) (informer.Page[*item], error) {
	obj, rv, restarted := s.state()
	if restarted {
		select {
		case s.listing <- struct{}{}:
		case <-ctx.Done():
			return informer.Page[*item]{}, ctx.Err()
		}
		select {
		case <-s.gate:
		case <-ctx.Done():
			return informer.Page[*item]{}, ctx.Err()
		}
	}
	return informer.Page[*item]{Items: []*item{obj}, ResourceVersion: rv}, nil
}

func (s *restartingSource) Watch(ctx context.Context, _ informer.WatchOptions) (informer.Watcher[*item], error) {
	_, _, restarted := s.state()
	return &restartingWatcher{ctx: ctx, expire: s.expire, restarted: restarted}, nil
}

type restartingWatcher struct {
	ctx       context.Context
	expire    chan struct{}
	restarted bool
}

func (w *restartingWatcher) Next() (informer.Event[*item], error) {
	if !w.restarted {
		select {
		case <-w.expire:
			return informer.Event[*item]{}, informer.ErrExpired
		case <-w.ctx.Done():
			return informer.Event[*item]{}, w.ctx.Err()
		}
	}
	<-w.ctx.Done()
	return informer.Event[*item]{}, w.ctx.Err()
}

func (w *restartingWatcher) Close() error { return nil }

// While the informer relists, no version counts as reached until the
// relist is applied: after the Source's versions restarted, a wait for a
// version of the new history (3) returned at once, since the cache's
// version of the old history (10) is the higher number, and the Lister
// then showed the old history's object (a stale read-your-writes).
func TestWaitForResourceVersionDuringRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &restartingSource{expire: make(chan struct{}), listing: make(chan struct{}), gate: make(chan struct{})}
		inf := informer.New[*item](src, informer.Options[*item]{Logger: slog.New(slog.DiscardHandler)})
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		if err := inf.WaitForResourceVersion(ctx, "10"); err != nil {
			t.Fatal(err)
		}

		src.mu.Lock()
		src.restarted = true
		src.mu.Unlock()
		close(src.expire)
		<-src.listing // the relist has begun; its list waits for the gate
		waited := make(chan error, 1)
		go func() { waited <- inf.WaitForResourceVersion(ctx, "3") }()
		synctest.Wait()
		select {
		case err := <-waited:
			it, _ := inf.Lister().Get("ns/a")
			t.Fatalf("WaitForResourceVersion(3) returned (%v) during the relist; the cache shows %q", err, it.Data)
		default:
		}
		close(src.gate)
		if err := <-waited; err != nil {
			t.Fatal(err)
		}
		if it, _ := inf.Lister().Get("ns/a"); it.Data != "new history" {
			t.Fatalf("after the wait the cache shows %q", it.Data)
		}
		if got := inf.AppliedResourceVersion(); got != "3" {
			t.Fatalf("applied %q after the relist, want 3", got)
		}
	})
}

// listingSource lists one object (none if empty) at version 10, then 11,
// and so on, one more at each list (or always 10, if same); each watch blocks until expire
// receives, then ends with ErrExpired (a relist follows). watched
// receives when a watch opens.
type listingSource struct {
	empty   bool
	same    bool
	lists   int
	expire  chan struct{}
	watched chan struct{}
}

func (s *listingSource) CompareVersions(a, b string) (int, bool) {
	return informer.CompareNumericVersions(a, b)
}

func (s *listingSource) List(ctx context.Context, _ informer.ListOptions) (informer.Page[*item], error) {
	rv := strconv.Itoa(10 + s.lists)
	if s.same {
		rv = "10"
	}
	s.lists++
	if s.empty {
		return informer.Page[*item]{ResourceVersion: rv}, nil
	}
	obj := newItem("ns", "a", "x")
	obj.ResourceVersion = rv
	return informer.Page[*item]{Items: []*item{obj}, ResourceVersion: rv}, nil
}

func (s *listingSource) Watch(ctx context.Context, _ informer.WatchOptions) (informer.Watcher[*item], error) {
	select {
	case s.watched <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &restartingWatcher{ctx: ctx, expire: s.expire}, nil
}

// Once a list is in and nothing moves, a wait for its version returns.
// The reflector published a list's version, then counted the list; a
// process loop that read the version before the count took the list as
// applied but not yet as a list, and slept with nothing left to wake it:
// a relist stayed "in progress" and every WaitForResourceVersion blocked
// until the next event (found in review: 5 to 21 rounds in 3,000 stuck
// under -race). Now both move in one step, and the loop goes round again
// when the count moved since it read it.
func TestWaitForResourceVersionAfterQuietList(t *testing.T) {
	for _, tc := range []struct {
		name        string
		relists     int
		empty, same bool
	}{
		{"first list", 0, false, false},
		{"relist", 1, false, false},
		{"relist of an empty collection", 1, true, false},
		{"relist at the same version", 1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const rounds = 2000
			stuck := 0
			for range rounds {
				synctest.Test(t, func(t *testing.T) {
					src := &listingSource{empty: tc.empty, same: tc.same, expire: make(chan struct{}), watched: make(chan struct{})}
					inf := informer.New[*item](src, informer.Options[*item]{Logger: slog.New(slog.DiscardHandler)})
					stop := runInformer(t, inf)
					defer stop()
					<-src.watched
					if err := waitSynced(t, inf); err != nil {
						t.Fatal(err)
					}
					for range tc.relists {
						synctest.Wait()
						src.expire <- struct{}{}
						<-src.watched // the relist completed: the next watch opens
					}
					synctest.Wait() // nothing moves any more
					waited := make(chan error, 1)
					want := strconv.Itoa(10 + tc.relists)
					if tc.same {
						want = "10"
					}
					go func() { waited <- inf.WaitForResourceVersion(t.Context(), want) }()
					synctest.Wait()
					select {
					case err := <-waited:
						if err != nil {
							t.Fatal(err)
						}
					default:
						stuck++
						stop() // ends the wait (ErrStopped)
						<-waited
					}
				})
			}
			if stuck > 0 {
				t.Errorf("WaitForResourceVersion blocked after a quiet list in %d of %d rounds", stuck, rounds)
			}
		})
	}
}

// A relist's EndReplace pauses the queue once the batch in flight is done,
// and the process loop then takes nothing: not because the queue is
// empty, but because it is paused, with changes read before the relist
// still queued. The applied version must not move to what the reflector
// had read until those changes are in the cache: AppliedResourceVersion
// reported a version while an object created at it was not yet cached.
func TestAppliedNotAheadOfAPausedQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		mustDo(t, src.Create(newItem("ns", "a", "v1")))
		var armed atomic.Bool
		entered, release := make(chan struct{}), make(chan struct{})
		var inf *informer.Informer[*item]
		var mu sync.Mutex
		var problems []string
		opts := quiet[*item](t, nil)
		opts.Indexers = map[string]informer.IndexFunc[*item]{"data": func(o *item, dst []string) ([]string, error) {
			if o.Name == "a" && armed.CompareAndSwap(true, false) {
				entered <- struct{}{} // the loop holds a batch with a's change
				<-release
			}
			if o.Name == "b" || o.Name == "c" {
				// Being stored now: the applied version must be older.
				applied, _ := strconv.Atoi(inf.AppliedResourceVersion())
				own, _ := strconv.Atoi(o.ResourceVersion)
				if applied >= own {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("applied version %d reported while ns/%s at %d is not yet in the cache", applied, o.Name, own))
					mu.Unlock()
				}
			}
			return append(dst, o.Data), nil
		}}
		inf = informer.New(src, opts)
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		armed.Store(true)
		mustDo(t, src.Update(newItem("ns", "a", "v2")))
		<-entered
		mustDo(t, src.Create(newItem("ns", "b", "v1")))
		mustDo(t, src.Create(newItem("ns", "c", "v1")))
		synctest.Wait() // b and c read and queued behind the batch in flight
		// A relist: the watch resumes from before a compaction.
		cutOff(src, func() {
			mustDo(t, src.Create(newItem("ns", "d", "v1")))
			src.Compact()
		})
		synctest.Wait() // the relist's EndReplace waits for the batch in flight
		close(release)
		want := src.ResourceVersion()
		if err := inf.WaitForResourceVersion(t.Context(), want); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"ns/b", "ns/c", "ns/d"} {
			if _, ok := inf.Lister().Get(k); !ok {
				t.Errorf("%s not cached at version %s", k, want)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Error(p)
		}
	})
}

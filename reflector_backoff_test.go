package informer_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// Reflector tests: stalls, backoff, streaming lists, continue tokens, errors.

// TestReflectorStalledWatch: a watch that delivers nothing is abandoned once
// its timeout plus a minute has passed, if the source did not end it, and a
// new watch resumes from the last version; a source that honours the timeout
// ends it cleanly first.
func TestReflectorStalledWatch(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ignoreTmout bool // the source ignores WatchOptions.Timeout
	}{
		{"source ignores the timeout", true},
		{"source honours the timeout", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 3)
				src := spy(mem)
				if tc.ignoreTmout {
					src.beforeWatch = func(o informer.WatchOptions) informer.WatchOptions { o.Timeout = 0; return o }
				}
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{MinWatchTimeout: time.Minute})
				runReflector(t, r)
				synctest.Wait()
				before := r.LastSyncResourceVersion()
				mem.StallWatches()
				mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
				mustDo(t, mem.Create(newItem("ns", "k7", "v1")))
				w0 := src.watchCalls()[0]
				deadline := w0.opts.Timeout
				if tc.ignoreTmout {
					deadline += time.Minute
				}
				time.Sleep(time.Until(w0.at.Add(deadline)) - time.Second)
				synctest.Wait()
				if n := len(src.watchCalls()); n != 1 {
					t.Fatalf("%d watches a second before the deadline, want the first still open", n)
				}
				time.Sleep(3 * time.Second) // past the deadline and the first backoff
				synctest.Wait()
				w := src.watchCalls()
				if len(w) != 2 || w[1].opts.ResourceVersion != before {
					t.Fatalf("watches %+v, want a second one from %s", w, before)
				}
				gap := w[1].at.Sub(w0.at)
				stalled := sourceErrs(errs.all(), "watch", nil)
				if tc.ignoreTmout {
					if gap < deadline+100*time.Millisecond || gap >= deadline+200*time.Millisecond {
						t.Errorf("re-opened %v after the first watch, want its timeout %v plus a minute plus a backoff", gap, w0.opts.Timeout)
					}
					if len(stalled) != 1 || !strings.Contains(stalled[0].Error(), "stalled") {
						t.Errorf("errors %v, want one *SourceError reporting the stall", errs.all())
					}
				} else {
					if gap != deadline {
						t.Errorf("re-opened %v after the first watch, want at once after its timeout %v", gap, deadline)
					}
					if len(errs.all()) != 0 {
						t.Errorf("errors %v for a watch that timed out cleanly", errs.all())
					}
				}
				if n := mem.OpenWatches(); n != 1 {
					t.Errorf("%d open watches, want the abandoned one closed", n)
				}
				mem.ResumeWatches()
				synctest.Wait()
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
				if mem.ListCalls() != 1 {
					t.Errorf("%d lists, want 1", mem.ListCalls())
				}
			})
		})
	}
}

// TestReflectorBackoff: failed calls are retried after a delay that doubles
// from Backoff.Initial up to Backoff.Max, each with up to 100% jitter.
func TestReflectorBackoff(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	defaults := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 25600 * ms, 30 * s, 30 * s}
	for _, tc := range []struct {
		name    string
		backoff informer.Backoff
		lists   bool // fail lists; otherwise watches after a drop
		want    []time.Duration
		jitter  bool
	}{
		{"lists, defaults", informer.Backoff{}, true, defaults, true},
		{"watches, defaults", informer.Backoff{}, false, append(defaults, 30*s), true},
		{"custom, no jitter", informer.Backoff{Initial: s, Max: 5 * s, Factor: 3, Jitter: -1}, true, []time.Duration{s, 3 * s, 5 * s, 5 * s}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				unavailable := errors.New("503 unavailable")
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 2)
				src := spy(mem)
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{Backoff: tc.backoff})
				failures := len(tc.want)
				var times []time.Time
				if tc.lists {
					mem.FailLists(failures, unavailable)
					runReflector(t, r)
					time.Sleep(10 * time.Minute)
					synctest.Wait()
					for _, c := range src.listCalls() {
						times = append(times, c.at)
					}
				} else {
					runReflector(t, r)
					synctest.Wait()
					mem.FailWatches(failures-1, unavailable) // the drop is the first failure
					times = append(times, time.Now())
					mem.DropWatches(errReset)
					time.Sleep(10 * time.Minute)
					synctest.Wait()
					for _, c := range src.watchCalls()[1:] {
						times = append(times, c.at)
					}
				}
				if len(times) < failures+1 {
					t.Fatalf("%d calls, want %d", len(times), failures+1)
				}
				jittered := false
				for i, d := range tc.want {
					gap := times[i+1].Sub(times[i])
					hi := 2 * d
					if !tc.jitter {
						hi = d + 1
					}
					if gap < d || gap >= hi {
						t.Errorf("retry %d after %v, want [%v, %v)", i+1, gap, d, hi)
					}
					jittered = jittered || gap != d
				}
				if jittered != tc.jitter {
					t.Errorf("jitter seen: %v, want %v", jittered, tc.jitter)
				}
				wantErrs := failures
				if !tc.lists {
					wantErrs-- // the drop itself failed with errReset
				}
				if n := len(sourceErrs(errs.all(), "", unavailable)); n != wantErrs {
					t.Errorf("%d errors reported: %v", n, errs.all())
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v after the failures", got, want)
				}
			})
		})
	}
}

// TestReflectorBackoffResets: the backoff grows only over consecutive
// failures that made no progress. A successful list starts it over, and a
// watch that made progress and is then cut is resumed at once.
func TestReflectorBackoffResets(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name        string
		failWatches int                // watches failing at once after the list
		dropAfter   time.Duration      // else: a healthy watch cut after this long
		gaps        [][2]time.Duration // [min, max) between successive watches
	}{
		{"a watch failing after a good list waits Initial, not the list's 0.8s", 1, 0, [][2]time.Duration{{100 * ms, 200 * ms}}},
		{"consecutive failures without progress grow", 3, 0, [][2]time.Duration{{100 * ms, 200 * ms}, {200 * ms, 400 * ms}, {400 * ms, 800 * ms}}},
		{"a productive watch cut is resumed at once", 0, 10 * time.Second, [][2]time.Duration{{0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 2)
				mem.FailLists(3, nil) // delays 0.1s, 0.2s, 0.4s; the next would be 0.8s
				if tc.failWatches > 0 {
					mem.FailWatches(tc.failWatches, errReset)
				}
				src := spy(mem)
				var errs errList
				r := newTestReflector(src, newSinkRec(), &errs, informer.ReflectorOptions{})
				runReflector(t, r)
				var dropped time.Time
				if tc.dropAfter > 0 {
					time.Sleep(time.Minute)
					synctest.Wait()
					lists := src.listCalls()
					if len(lists) != 4 || lists[3].err != nil {
						t.Fatalf("lists %+v, want 3 failures and a success", lists)
					}
					time.Sleep(tc.dropAfter)
					dropped = time.Now()
					mem.DropWatches(errReset)
				}
				time.Sleep(time.Minute)
				synctest.Wait()
				w := src.watchCalls()
				if len(w) != len(tc.gaps)+1 {
					t.Fatalf("%d watches, want %d", len(w), len(tc.gaps)+1)
				}
				for i, g := range tc.gaps {
					from := w[i].at
					if i == 0 && tc.dropAfter > 0 {
						from = dropped
					}
					if gap := w[i+1].at.Sub(from); gap < g[0] || gap >= g[1] {
						t.Errorf("watch %d came %v after the failure, want [%v, %v)", i+2, gap, g[0], g[1])
					}
				}
			})
		})
	}
}

// TestReflectorWatchList: with WatchList, the initial events of one watch
// become the replacement (in pages of PageSize), and the same stream goes on
// as a watch; no List call is made, even to relist.
func TestReflectorWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{WatchList: true})
		seedItems(t, mem, "ns", 7)
		src := spy(mem)
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{WatchList: informer.WatchListOn, PageSize: 3})
		runReflector(t, r)
		synctest.Wait()
		if got, want := r.LastSyncResourceVersion(), mem.ResourceVersion(); got != want {
			t.Errorf("LastSyncResourceVersion %s after the initial events, want %s", got, want)
		}
		mustDo(t, mem.Update(newItem("ns", "k1", "v2")))
		mustDo(t, mem.Create(newItem("ns", "new", "v1")))
		mustDo(t, mem.Delete("ns/k2"))
		synctest.Wait()
		_, _, _, ops := sink.counts()
		want := []string{"begin", "items 3", "items 3", "items 1", "end", "update ns/k1", "add ns/new", "delete ns/k2"}
		if !slices.Equal(ops, want) {
			t.Errorf("sink ops\n got %v\nwant %v", ops, want)
		}
		w := src.watchCalls()
		if len(w) != 1 || !w[0].opts.SendInitialEvents || w[0].opts.ResourceVersion != "" {
			t.Fatalf("watches %+v, want one streaming list", w)
		}
		if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("sink %v, source %v", got, want)
		}

		// A drop resumes with a plain watch; an expired version streams the
		// state again.
		last := r.LastSyncResourceVersion()
		cutOff(mem, func() {
			mustDo(t, mem.Delete("ns/k3"))
			mem.Compact()
		})
		time.Sleep(time.Minute)
		synctest.Wait()
		w = src.watchCalls()
		if len(w) != 3 || w[1].opts.SendInitialEvents || w[1].opts.ResourceVersion != last ||
			!errors.Is(w[1].err, informer.ErrExpired) || !w[2].opts.SendInitialEvents {
			t.Fatalf("watches %+v, want a resume from %s that expires, then a streaming list", w, last)
		}
		if n := mem.ListCalls(); n != 0 {
			t.Errorf("%d List calls in WatchList mode", n)
		}
		if begins, ends, _, _ := sink.counts(); begins != 2 || ends != 2 {
			t.Errorf("%d/%d replacements, want 2", begins, ends)
		}
		if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("sink %v, source %v", got, want)
		}
	})
}

// TestReflectorWatchListFallback: a source without streaming lists answers
// ErrWatchListUnsupported; the reflector lists at once instead, and never
// asks for a streaming list again.
func TestReflectorWatchListFallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{WatchList: false})
		seedItems(t, mem, "ns", 4)
		src := spy(mem)
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{WatchList: informer.WatchListOn})
		start := time.Now()
		runReflector(t, r)
		synctest.Wait()
		w, lists := src.watchCalls(), src.listCalls()
		if len(w) != 2 || !w[0].opts.SendInitialEvents || !errors.Is(w[0].err, informer.ErrWatchListUnsupported) {
			t.Fatalf("watches %+v, want a refused streaming list first", w)
		}
		if len(lists) != 1 || !lists[0].at.Equal(start) {
			t.Fatalf("lists %+v, want one at once after the refusal", lists)
		}
		if w[1].opts.SendInitialEvents || w[1].opts.ResourceVersion != lists[0].rv {
			t.Errorf("second watch %+v, want a plain watch from the list's version %s", w[1], lists[0].rv)
		}
		cutOff(mem, func() {
			mustDo(t, mem.Delete("ns/k0"))
			mem.Compact()
		})
		time.Sleep(time.Minute)
		synctest.Wait()
		for i, c := range src.watchCalls()[1:] {
			if c.opts.SendInitialEvents {
				t.Errorf("watch %d asked for a streaming list again", i+1)
			}
		}
		if mem.ListCalls() != 2 {
			t.Errorf("%d List calls, want a relist after the expiry", mem.ListCalls())
		}
		if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("sink %v, source %v", got, want)
		}
	})
}

// TestReflectorExpiredContinueToken: a continue token that expires between
// pages makes the reflector list again at once, the whole collection in one
// unpaginated request (which cannot expire half way, however often the
// server compacts); the abandoned half-list is not ended.
func TestReflectorExpiredContinueToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 10)
		src := spy(mem)
		src.afterList = func(call int, p page, err error) (page, error) {
			if call == 0 {
				mustDo(t, mem.Delete("ns/k8")) // the relist must not show it
				mem.ExpireContinueTokens()
			}
			return p, err
		}
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{PageSize: 4})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		lists := src.listCalls()
		if len(lists) != 3 {
			t.Fatalf("%d List calls, want 2 (the second expired) + 1 unpaginated", len(lists))
		}
		if !errors.Is(lists[1].err, informer.ErrExpired) || lists[2].opts != (informer.ListOptions{Limit: informer.NoLimit, Initial: true}) {
			t.Errorf("lists %+v, want the second to expire and the third to list everything at once", lists)
		}
		if !lists[2].at.Equal(lists[1].at) {
			t.Errorf("relisted %v after the expiry, want at once", lists[2].at.Sub(lists[1].at))
		}
		if len(sourceErrs(errs.all(), "list", informer.ErrExpired)) != 1 {
			t.Errorf("errors %v, want a *SourceError{Op: list} wrapping ErrExpired", errs.all())
		}
		begins, ends, pages, _ := sink.counts()
		if begins != 2 || ends != 1 || !slices.Equal(pages, []int{4, 9}) {
			t.Errorf("sink: %d begins, %d ends, pages %v", begins, ends, pages)
		}
		if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
			t.Errorf("sink %v, source %v", got, want)
		}
	})
}

// TestReflectorErrorsTyped: every failure reaches OnError as a typed error
// that says which call failed, from which version, and wraps the cause.
func TestReflectorErrorsTyped(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name   string
		fault  func(mem *memory.Source[*item]) // after the first sync
		op     string
		target error
		// from says which version the error names: that the first watch was
		// opened from, that the resume started from, or none.
		from string
	}{
		{"list fails", func(mem *memory.Source[*item]) {
			mem.FailLists(1, boom)
			cutOff(mem, func() {
				mem.Upsert(newItem("ns", "k1", "v2"))
				mem.Compact() // the resume expires: relist
			})
		}, "list", boom, ""},
		{"watch fails", func(mem *memory.Source[*item]) {
			mem.FailWatches(1, boom)
			mem.DropWatches(errReset)
		}, "watch", boom, "resumed"},
		{"watch dropped", func(mem *memory.Source[*item]) { mem.DropWatches(boom) }, "watch", boom, "opened"},
		{"resume expired", func(mem *memory.Source[*item]) {
			cutOff(mem, func() {
				mem.Upsert(newItem("ns", "k1", "v2"))
				mem.Compact()
			})
		}, "watch", informer.ErrExpired, "resumed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 3)
				sink := newSinkRec()
				var errs errList
				r := newTestReflector(mem, sink, &errs, informer.ReflectorOptions{})
				runReflector(t, r)
				synctest.Wait()
				time.Sleep(10 * time.Second)
				from := r.LastSyncResourceVersion()
				mustDo(t, mem.Update(newItem("ns", "k0", "v2")))
				synctest.Wait()
				from2 := r.LastSyncResourceVersion()
				if from2 == from {
					t.Fatal("update not seen")
				}
				tc.fault(mem)
				time.Sleep(time.Minute)
				synctest.Wait()
				found := sourceErrs(errs.all(), tc.op, tc.target)
				if len(found) != 1 {
					t.Fatalf("errors %v, want one *SourceError{Op: %s} wrapping %v", errs.all(), tc.op, tc.target)
				}
				want := map[string]string{"opened": from, "resumed": from2, "": ""}[tc.from]
				if found[0].ResourceVersion != want {
					t.Errorf("error names version %q, want %q (the version the call started from)", found[0].ResourceVersion, want)
				}
				if got, want := sink.data(), sourceState(mem); !equalMaps(got, want) {
					t.Errorf("sink %v, source %v", got, want)
				}
			})
		})
	}
}

// TestReflectorRunReturns: Run returns ctx's cause as soon as ctx ends,
// whatever it is doing, closes its watch and makes no further call.
func TestReflectorRunReturns(t *testing.T) {
	cause := errors.New("shutting down")
	for _, tc := range []struct {
		name  string
		setup func(mem *memory.Source[*item])
		cause error
	}{
		{"watching", func(*memory.Source[*item]) {}, nil},
		{"backing off", func(mem *memory.Source[*item]) { mem.FailLists(1000, nil) }, nil},
		{"watch stalled", func(mem *memory.Source[*item]) { mem.StallWatches() }, nil},
		{"with a cause", func(*memory.Source[*item]) {}, cause},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 3)
				tc.setup(mem)
				var errs errList
				r := newTestReflector(mem, newSinkRec(), &errs, informer.ReflectorOptions{})
				ctx, cancel := context.WithCancelCause(context.Background())
				done := make(chan error, 1)
				go func() { done <- r.Run(ctx) }()
				time.Sleep(5 * time.Second)
				synctest.Wait()
				stoppedAt := time.Now()
				cancel(tc.cause)
				err := <-done
				if !time.Now().Equal(stoppedAt) {
					t.Errorf("Run returned %v after cancel", time.Since(stoppedAt))
				}
				want := tc.cause
				if want == nil {
					want = context.Canceled
				}
				if err != want {
					t.Errorf("Run = %v, want %v", err, want)
				}
				synctest.Wait()
				checkNoLeaks(t)
				if n := mem.OpenWatches(); n != 0 {
					t.Errorf("%d watches left open", n)
				}
				lists, watches := mem.ListCalls(), mem.WatchCalls()
				time.Sleep(time.Hour)
				if mem.ListCalls() != lists || mem.WatchCalls() != watches {
					t.Error("calls made after Run returned")
				}
			})
		})
	}
}

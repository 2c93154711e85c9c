package informer_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// checkHandlerLog fails unless a handler's calls replay consistently: an add
// only for a key the handler does not hold, an update or a delete only for a
// key it holds, and each update's old state the very state it last got, so
// no change was missed or repeated. A coalescing handler may get the delete
// of a key whose add was folded into it, with a state it never saw.
func checkHandlerLog(t *testing.T, name string, recs []rec, coalescing bool) {
	t.Helper()
	held := map[string]string{} // key → resourceVersion the handler holds
	for i, r := range recs {
		rv, ok := held[r.Key]
		switch r.Kind {
		case "add":
			if ok {
				t.Fatalf("%s: call %d (%v): add for a key it holds at rv %s", name, i, r, rv)
			}
			held[r.Key] = r.RV
		case "update":
			if !ok {
				t.Fatalf("%s: call %d (%v): update for a key it does not hold", name, i, r)
			}
			if r.OldRV != rv {
				t.Fatalf("%s: call %d (%v): old rv %s, but it last got rv %s", name, i, r, r.OldRV, rv)
			}
			held[r.Key] = r.RV
		case "delete":
			if !coalescing && (!ok || r.RV != rv) {
				t.Fatalf("%s: call %d (%v): delete, but it holds %q (held %v)", name, i, r, rv, ok)
			}
			delete(held, r.Key)
		}
	}
}

// TestAddHandlerWhileRunning: a handler added while changes flow gets the
// cache's contents and then every later change, with nothing missed or
// repeated: its calls replay into the source's state, and each key starts
// with an add.
func TestAddHandlerWhileRunning(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{MaxPageSize: 7})
				for i := range 30 {
					mustDo(t, mem.Create(newItem([]string{"a", "b"}[i%2], fmt.Sprint("k", i), "0")))
				}
				inf := informer.New(mem, quiet[*item](t, nil))
				var mu sync.Mutex
				var late []*recorder
				var regs []*informer.Registration[*item]
				addLate := func() {
					h := &recorder{}
					reg, err := inf.AddHandler(h, informer.HandlerOptions{})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					late, regs = append(late, h), append(regs, reg)
					mu.Unlock()
				}
				first := &recorder{}
				var firstCalls atomic.Int32
				first.hook = func(rec) { // from a handler, while the process loop goes on
					if n := firstCalls.Add(1); n == 40 || n == 120 {
						addLate()
					}
				}
				inf.AddHandler(first, informer.HandlerOptions{})
				runInformer(t, inf)

				rng := rand.New(rand.NewPCG(seed, 1))
				addAt := map[int]bool{}
				for len(addAt) < 3 {
					addAt[rng.IntN(1400)] = true
				}
				done := make(chan struct{})
				go func() { // the writer
					defer close(done)
					for step := range 1500 {
						if addAt[step] { // from the writer, amid its writes
							addLate()
						}
						ns, name := []string{"a", "b"}[rng.IntN(2)], fmt.Sprint("k", rng.IntN(40))
						switch rng.IntN(20) {
						case 0, 1, 2:
							if _, ok := mem.Get(ns + "/" + name); ok {
								mem.Delete(ns + "/" + name)
							}
						case 3:
							if rng.IntN(5) == 0 { // the watch breaks and must relist
								mem.DropWatches(errReset)
								mem.Upsert(newItem(ns, name, fmt.Sprint(step)))
								mem.Compact()
							}
						default:
							mem.Upsert(newItem(ns, name, fmt.Sprint(step)))
						}
						if step%50 == 0 { // every second on the second, a burst
							time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
						}
					}
				}()
				// From another goroutine, woken with the writer, at a random
				// point of its burst.
				rng2 := rand.New(rand.NewPCG(seed, 2))
				for range 3 {
					time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Duration(1+rng2.IntN(6)) * time.Second)))
					for range rng2.IntN(50) {
						runtime.Gosched()
					}
					addLate()
				}
				<-done
				time.Sleep(2 * time.Minute) // let the last backoff pass
				synctest.Wait()
				for i := range 10 { // a change every handler sees live
					mustDo(t, mem.Upsert(newItem("a", fmt.Sprint("k", i), "final")))
				}
				synctest.Wait()

				if mem.ListCalls() <= 5 { // the first list has 5 pages
					t.Errorf("%d List calls: no relist happened", mem.ListCalls())
				}
				mu.Lock()
				defer mu.Unlock()
				if len(late) != 8 {
					t.Fatalf("%d late handlers, want 8", len(late))
				}
				for i, reg := range regs {
					if !reg.HasSynced() {
						t.Errorf("late handler %d never synced", i)
					}
				}
				want := sourceState(mem)
				if got := cacheState(inf); !equalMaps(got, want) {
					t.Fatalf("cache %v, source %v", got, want)
				}
				for i, h := range append(late, first) {
					name := fmt.Sprint("late handler ", i)
					if h == first {
						name = "first handler"
					}
					recs := h.all()
					if len(recs) == 0 {
						t.Fatalf("%s got no call", name)
					}
					initial, live := 0, 0
					for _, r := range recs {
						if r.Initial {
							initial++
						} else {
							live++
						}
					}
					if initial == 0 || live == 0 {
						t.Errorf("%s: %d initial and %d later calls: it did not join while changes flowed", name, initial, live)
					}
					checkHandlerLog(t, name, recs, false)
					checkOrder(t, recs)
					if got := h.state(); !equalMaps(got, want) {
						t.Errorf("%s replays to %v, source %v", name, got, want)
					}
				}
			})
		})
	}
}

// TestRegistrationRemove: after Remove, and once Done is closed, the handler
// is never called again, whatever is queued for it or still happens.
func TestRegistrationRemove(t *testing.T) {
	t.Run("from outside", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			mem := memory.New[*item](memory.Options{})
			seedItems(t, mem, "ns", 3)
			inf := informer.New(mem, quiet[*item](t, nil))
			h, other := &recorder{}, &recorder{}
			reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
			inf.AddHandler(other, informer.HandlerOptions{})
			runInformer(t, inf)
			synctest.Wait()
			reg.Remove()
			synctest.Wait()
			select {
			case <-reg.Done():
			default:
				t.Fatal("Done not closed after Remove")
			}
			n := len(h.all())
			for i := range 5 {
				mustDo(t, mem.Upsert(newItem("ns", fmt.Sprint("k", i), "v2")))
			}
			synctest.Wait()
			if len(h.all()) != n || n != 3 {
				t.Errorf("%d calls, then %d after Remove; want 3 then none", n, len(h.all())-n)
			}
			if len(other.all()) != 8 {
				t.Errorf("the other handler got %d calls, want 8", len(other.all()))
			}
			reg.Remove() // again: harmless
		})
	})
	t.Run("from the handler itself", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			mem := memory.New[*item](memory.Options{})
			seedItems(t, mem, "ns", 10)
			inf := informer.New(mem, quiet[*item](t, nil))
			var reg *informer.Registration[*item]
			h := &recorder{}
			h.hook = func(rec) {
				if len(h.all()) == 2 { // the third call
					reg.Remove()
				}
			}
			reg, _ = inf.AddHandler(h, informer.HandlerOptions{})
			runInformer(t, inf)
			synctest.Wait()
			select {
			case <-reg.Done():
			default:
				t.Fatal("Done not closed after the handler removed itself")
			}
			mustDo(t, mem.Create(newItem("ns", "late", "v1")))
			synctest.Wait()
			if n := len(h.all()); n != 3 {
				t.Errorf("%d calls, want 3: the initial adds still queued must be dropped", n)
			}
		})
	})
	t.Run("during a call with a backlog", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			mem := memory.New[*item](memory.Options{})
			inf := informer.New(mem, quiet[*item](t, nil))
			gate := make(chan struct{})
			var once sync.Once
			h := &recorder{hook: func(rec) { once.Do(func() { <-gate }) }}
			reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
			runInformer(t, inf)
			synctest.Wait()
			if p := reg.Pending(); p != 0 {
				t.Fatalf("Pending = %d with nothing to do", p)
			}
			mustDo(t, mem.Create(newItem("ns", "a", "0")))
			for i := range 10 {
				mustDo(t, mem.Update(newItem("ns", "a", fmt.Sprint(i+1))))
			}
			synctest.Wait()
			if p := reg.Pending(); p != 10 {
				t.Fatalf("Pending = %d, want the 10 updates behind the call in progress", p)
			}
			reg.Remove()
			if p := reg.Pending(); p != 0 {
				t.Errorf("Pending = %d after Remove", p)
			}
			synctest.Wait()
			select {
			case <-reg.Done():
				t.Fatal("Done closed while a call is in progress")
			default:
			}
			close(gate)
			synctest.Wait()
			select {
			case <-reg.Done():
			default:
				t.Fatal("Done not closed once the call returned")
			}
			mustDo(t, mem.Update(newItem("ns", "a", "later")))
			synctest.Wait()
			if n := len(h.all()); n != 1 {
				t.Errorf("%d calls, want only the one in progress at Remove", n)
			}
		})
	})
	t.Run("before Run", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			mem := memory.New[*item](memory.Options{})
			seedItems(t, mem, "ns", 3)
			inf := informer.New(mem, quiet[*item](t, nil))
			h := &recorder{}
			reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
			reg.Remove()
			select {
			case <-reg.Done():
			default:
				t.Fatal("Done not closed")
			}
			runInformer(t, inf)
			synctest.Wait()
			if n := len(h.all()); n != 0 {
				t.Errorf("%d calls to a handler removed before Run", n)
			}
			if err := reg.WaitForSync(t.Context()); !errors.Is(err, informer.ErrStopped) {
				t.Errorf("WaitForSync of a removed handler = %v, want ErrStopped", err)
			}
		})
	})
}

// TestResyncPerHandler: each handler is resynced (OnUpdate(obj, obj)) on its
// own period, measured from Run or from when it was added; the informer's
// ResyncPeriod applies to handlers that set none, and a negative period
// means never.
func TestResyncPerHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		opts := quiet[*item](t, nil)
		opts.ResyncPeriod = 20 * time.Second
		inf := informer.New(mem, opts)
		start := time.Now()
		var mu sync.Mutex
		got := map[string][]time.Duration{}
		handler := func(name string) informer.Handler[*item] {
			return informer.HandlerFuncs[*item]{UpdateFunc: func(old, new *item) {
				mu.Lock()
				defer mu.Unlock()
				if old != new || old.ResourceVersion != new.ResourceVersion {
					t.Errorf("%s: resync with old %p@%s, new %p@%s", name, old, old.ResourceVersion, new, new.ResourceVersion)
				}
				got[name] = append(got[name], time.Since(start))
			}}
		}
		for name, period := range map[string]time.Duration{"30s": 30 * time.Second, "45s": 45 * time.Second, "default": 0, "never": -1} {
			inf.AddHandler(handler(name), informer.HandlerOptions{Name: name, ResyncPeriod: period})
		}
		runInformer(t, inf)
		time.Sleep(10 * time.Second)
		inf.AddHandler(handler("late 25s"), informer.HandlerOptions{ResyncPeriod: 25 * time.Second})
		time.Sleep(95 * time.Second)
		synctest.Wait()

		s := func(secs ...int) []time.Duration {
			var out []time.Duration
			for _, n := range secs {
				for range 3 { // one call per object
					out = append(out, time.Duration(n)*time.Second)
				}
			}
			return out
		}
		want := map[string][]time.Duration{
			"30s":      s(30, 60, 90),
			"45s":      s(45, 90),
			"default":  s(20, 40, 60, 80, 100),
			"late 25s": s(35, 60, 85),
		}
		mu.Lock()
		defer mu.Unlock()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("resyncs at\n got %v\nwant %v", got, want)
		}
	})
}

// TestTransform: Options.Transform is applied before the cache, so the cache
// and the handlers only see transformed objects; an object whose transform
// fails is left out and reported as an *ObjectError.
func TestTransform(t *testing.T) {
	errBad := errors.New("cannot transform")
	for _, tc := range []struct {
		name   string
		fail   func(*item) (*item, error)
		target error
	}{
		{"error", func(*item) (*item, error) { return nil, errBad }, errBad},
		{"nil result", func(*item) (*item, error) { return nil, nil }, informer.ErrNilObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				mustDo(t, mem.Create(newItem("ns", "good-1", "v1")))
				mustDo(t, mem.Create(newItem("ns", "bad-1", "v1")))
				var errs errList
				opts := quiet[*item](t, &errs)
				var calls atomic.Int32
				opts.Transform = func(o *item) (*item, error) {
					calls.Add(1)
					if strings.HasPrefix(o.Name, "bad") {
						return tc.fail(o)
					}
					c := *o // the source shares o: transform a copy
					c.Data = "T(" + o.Data + ")"
					return &c, nil
				}
				inf := informer.New(mem, opts)
				h := &recorder{}
				inf.AddHandler(h, informer.HandlerOptions{})
				runInformer(t, inf)
				synctest.Wait()
				mustDo(t, mem.Create(newItem("ns", "good-2", "v1")))
				mustDo(t, mem.Create(newItem("ns", "bad-2", "v1")))
				mustDo(t, mem.Update(newItem("ns", "good-1", "v2")))
				synctest.Wait()

				want := map[string]string{"ns/good-1": "T(v2)", "ns/good-2": "T(v1)"}
				if got := cacheState(inf); !equalMaps(got, want) {
					t.Errorf("cache %v, want %v", got, want)
				}
				if got := h.state(); !equalMaps(got, want) {
					t.Errorf("handler state %v, want %v", got, want)
				}
				for _, r := range h.all() {
					if !strings.HasPrefix(r.Data, "T(") {
						t.Errorf("handler saw an untransformed object: %v", r)
					}
				}
				if n := calls.Load(); n != 5 {
					t.Errorf("Transform called %d times, want once per object from the source (5)", n)
				}
				if bad := objectErrs(errs.all(), tc.target); len(bad) != 2 {
					t.Errorf("errors %v, want an *ObjectError wrapping %v for bad-1 (list) and bad-2 (watch)", errs.all(), tc.target)
				}
				if src, _ := mem.Get("ns/good-1"); src.Data != "v2" {
					t.Errorf("the source's object was changed: %v", src.Data)
				}
			})
		})
	}
}

// TestAddIndexWhileRunning: an index added while the informer runs, and
// changes flow, covers the objects already cached and follows later
// changes; a name in use is refused.
func TestAddIndexWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		colors := []string{"red", "green", "blue"}
		mem := memory.New[*item](memory.Options{})
		for i := range 30 {
			mustDo(t, mem.Create(newItem("ns", fmt.Sprint("k", i), colors[i%3])))
		}
		inf := informer.New(mem, quiet[*item](t, nil))
		runInformer(t, inf)
		synctest.Wait()
		done := make(chan struct{})
		go func() {
			defer close(done)
			rng := rand.New(rand.NewPCG(3, 4))
			for range 300 {
				key := fmt.Sprint("k", rng.IntN(40))
				if rng.IntN(5) == 0 {
					mem.Delete("ns/" + key)
				} else {
					mem.Upsert(newItem("ns", key, colors[rng.IntN(3)]))
				}
				if rng.IntN(10) == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		time.Sleep(5 * time.Millisecond)
		byColor := informer.IndexValuesFunc(func(o *item) ([]string, error) { return []string{o.Data}, nil })
		if err := inf.AddIndex("color", byColor); err != nil {
			t.Fatal(err)
		}
		<-done
		synctest.Wait()
		for _, c := range colors {
			keys, err := inf.Lister().IndexKeys("color", c)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(keys)
			var want []string
			for k, data := range sourceState(mem) {
				if data == c {
					want = append(want, k)
				}
			}
			slices.Sort(want)
			if !slices.Equal(keys, want) {
				t.Errorf("index color=%s holds %v, want %v", c, keys, want)
			}
		}
		for _, name := range []string{"color", informer.NamespaceIndex} {
			if err := inf.AddIndex(name, byColor); !errors.Is(err, informer.ErrIndexExists) {
				t.Errorf("AddIndex(%q) again = %v, want ErrIndexExists", name, err)
			}
		}
		if n := len(inf.Lister().Namespace("ns").List(nil)); n != mem.Len() {
			t.Errorf("namespace lister has %d objects, source %d", n, mem.Len())
		}
	})
}

// TestHandlerFuncsNilFields: HandlerFuncs ignores the notifications whose
// function is nil: nothing panics, and the others are called.
func TestHandlerFuncsNilFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 2)
		var errs errList
		inf := informer.New(mem, quiet[*item](t, &errs))
		var deletes atomic.Int32
		regs := []*informer.Registration[*item]{}
		for _, h := range []informer.Handler[*item]{
			informer.HandlerFuncs[*item]{},
			&informer.HandlerFuncs[*item]{},
			informer.HandlerFuncs[*item]{DeleteFunc: func(informer.Deleted[*item]) { deletes.Add(1) }},
		} {
			reg, err := inf.AddHandler(h, informer.HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			regs = append(regs, reg)
		}
		runInformer(t, inf)
		synctest.Wait()
		mustDo(t, mem.Update(newItem("ns", "k0", "v2")))
		mustDo(t, mem.Delete("ns/k1"))
		synctest.Wait()
		for _, err := range errs.all() {
			if errors.Is(err, informer.ErrHandlerPanic) {
				t.Errorf("handler panicked: %v", err)
			}
		}
		if deletes.Load() != 1 {
			t.Errorf("DeleteFunc called %d times, want 1", deletes.Load())
		}
		for i, reg := range regs {
			if !reg.HasSynced() {
				t.Errorf("registration %d not synced", i)
			}
		}
	})
}

// TestWaitForCacheSync: waiting returns nil once synced, ErrStopped when the
// informer stops or the handler is removed first, and ctx's error when ctx
// ends first; it does not return before.
func TestWaitForCacheSync(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail bool // the source never lists
		inf  bool // wait for the informer only; otherwise for the registration, then the informer
		// end makes the wait end, given the running informer's stop, the
		// registration, and the wait's cancel.
		end  func(stop func(), reg *informer.Registration[*item], cancel context.CancelFunc)
		want error
	}{
		{"synced", false, false, func(func(), *informer.Registration[*item], context.CancelFunc) {}, nil},
		{"informer stops first", true, true, func(stop func(), _ *informer.Registration[*item], _ context.CancelFunc) { stop() }, informer.ErrStopped},
		{"handler removed first", true, false, func(_ func(), reg *informer.Registration[*item], _ context.CancelFunc) { reg.Remove() }, informer.ErrStopped},
		{"ctx cancelled", true, false, func(_ func(), _ *informer.Registration[*item], cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"ctx deadline", true, true, func(func(), *informer.Registration[*item], context.CancelFunc) {}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				seedItems(t, mem, "ns", 3)
				if tc.fail {
					mem.FailLists(1<<30, nil)
				}
				inf := informer.New(mem, quiet[*item](t, nil))
				reg, _ := inf.AddHandler(&recorder{}, informer.HandlerOptions{})
				stop := runInformer(t, inf)
				ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
				defer cancel()
				waited := make(chan error, 1)
				syncers := []informer.Syncer{reg, inf}
				if tc.inf {
					syncers = []informer.Syncer{inf}
				}
				go func() { waited <- informer.WaitForCacheSync(ctx, syncers...) }()
				time.Sleep(30 * time.Minute)
				synctest.Wait()
				if tc.fail {
					select {
					case err := <-waited:
						t.Fatalf("WaitForCacheSync returned %v before anything happened", err)
					default:
					}
				}
				tc.end(stop, reg, cancel)
				if err := <-waited; !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
					t.Errorf("WaitForCacheSync = %v, want %v", err, tc.want)
				}
			})
		})
	}
}

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// The tests of this file prove parts of the cache's and the handlers'
// contract that a deliberate breakage once left with every test green
// (issue 24).

// gatedIndex is an index function that blocks, while armed, until the test
// lets it go: it holds the process loop inside the application of a batch
// to the cache.
type gatedIndex struct {
	armed   atomic.Bool
	entered chan struct{} // one value per blocked call
	release chan struct{}
}

// newGatedIndex returns a disarmed gate. Register its open with
// t.Cleanup after the informer's stop, so that a failing test ends
// cleanly.
func newGatedIndex() *gatedIndex {
	return &gatedIndex{entered: make(chan struct{}, 64), release: make(chan struct{})}
}

// open disarms the gate and lets go every call blocked in it.
func (g *gatedIndex) open() {
	g.armed.Store(false)
	for {
		select {
		case g.release <- struct{}{}:
		default:
			return
		}
	}
}

func (g *gatedIndex) fn(o *item, dst []string) ([]string, error) {
	if g.armed.Load() {
		g.entered <- struct{}{}
		<-g.release
	}
	return append(dst, o.Data), nil
}

// Guarantee 2 for deletions: when OnDelete is called the Lister no longer
// holds the deleted object, by key, in its namespace, or in a listing,
// whether the cache's indexes call user code or not. (With a user index
// function, the process loop is held inside the deletion's application,
// so a notification handed out before the cache changes is seen then.)
func TestOnDeleteAfterTheListerDropsTheObject(t *testing.T) {
	for _, userIndex := range []bool{false, true} {
		t.Run(fmt.Sprint("userIndex=", userIndex), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*item](memory.Options{})
				for i := range 5 {
					mustDo(t, src.Create(newItem("ns", fmt.Sprint("k", i), "v1")))
				}
				opts := quiet[*item](t, nil)
				gate := newGatedIndex()
				if userIndex {
					opts.Indexers = map[string]informer.IndexFunc[*item]{"data": gate.fn}
				}
				inf := informer.New(src, opts)
				lister := inf.Lister()
				var mu sync.Mutex
				var problems []string
				deletes := 0
				h := &recorder{hook: func(r rec) {
					if r.Kind != "delete" {
						return
					}
					var held []string
					if o, ok := lister.Get(r.Key); ok {
						held = append(held, "Get "+o.ResourceVersion)
					}
					for _, o := range lister.Namespace("ns").List(nil) {
						if itemKey(o) == r.Key {
							held = append(held, "Namespace.List "+o.ResourceVersion)
						}
					}
					for _, o := range lister.List(nil) {
						if itemKey(o) == r.Key {
							held = append(held, "List "+o.ResourceVersion)
						}
					}
					mu.Lock()
					deletes++
					if len(held) > 0 {
						problems = append(problems, fmt.Sprintf("OnDelete(%s) while the Lister holds it: %v", r.Key, held))
					}
					mu.Unlock()
				}}
				reg, _ := inf.AddHandler(h, informer.HandlerOptions{})
				runInformer(t, inf)
				t.Cleanup(gate.open)
				if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
					t.Fatal(err)
				}
				gate.armed.Store(userIndex)
				for i := range 5 {
					mustDo(t, src.Delete(fmt.Sprint("ns/k", i)))
					if userIndex {
						<-gate.entered
						synctest.Wait() // a notification handed out early is handled now
						gate.release <- struct{}{}
					}
					synctest.Wait()
				}
				mu.Lock()
				defer mu.Unlock()
				if deletes != 5 {
					t.Fatalf("%d deletes handled, want 5", deletes)
				}
				for _, p := range problems {
					t.Error(p)
				}
			})
		})
	}
}

// Registration.HasSynced (guarantee 4): the handler has returned from
// every notification of the initial list. While it is still inside the
// last one, the registration is not synced, however many initial adds
// there are (below, at and past a listener's batch), for a handler added
// before Run and for one added after the informer synced.
func TestRegistrationNotSyncedDuringLastInitialAdd(t *testing.T) {
	for _, n := range []int{1, 2, 31, 32, 33, 64, 100} {
		for _, late := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d_late=%v", n, late), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					src := memory.New[*item](memory.Options{})
					for i := range n {
						mustDo(t, src.Create(newItem("ns", fmt.Sprint("k", i), "v1")))
					}
					inf := informer.New(src, quiet[*item](t, nil))
					release := make(chan struct{})
					var once sync.Once
					open := func() { once.Do(func() { close(release) }) }
					var calls atomic.Int32
					h := &recorder{hook: func(rec) {
						if calls.Add(1) == int32(n) {
							<-release
						}
					}}
					var reg *informer.Registration[*item]
					if !late {
						reg, _ = inf.AddHandler(h, informer.HandlerOptions{})
					}
					runInformer(t, inf)
					t.Cleanup(open) // before the informer stops, if the test fails
					if err := inf.WaitForSync(t.Context()); err != nil {
						t.Fatal(err)
					}
					if late {
						reg, _ = inf.AddHandler(h, informer.HandlerOptions{})
					}
					synctest.Wait() // the handler is inside its last initial add
					if got := calls.Load(); got != int32(n) {
						t.Fatalf("%d calls, want %d", got, n)
					}
					if reg.HasSynced() {
						t.Fatalf("registration synced while the handler is still inside initial add %d of %d", n, n)
					}
					open()
					if err := reg.WaitForSync(t.Context()); err != nil {
						t.Fatal(err)
					}
					if got := len(h.all()); got != n {
						t.Fatalf("synced after %d handled calls, want %d", got, n)
					}
				})
			})
		}
	}
}

// A deleted object leaves the namespace index: a new object in another
// namespace, which takes the storage the deleted one left, is listed under
// its own namespace only. Through the informer (a batch applied to the
// cache) and through the Indexer's own Delete and DeleteKey, with and
// without index functions of the user's.
func TestDeletedObjectLeavesNamespaceIndex(t *testing.T) {
	byData := map[string]informer.IndexFunc[*item]{"data": func(o *item, dst []string) ([]string, error) { return append(dst, o.Data), nil }}
	names := func(objs []*item) []string {
		var out []string
		for _, o := range objs {
			out = append(out, itemKey(o))
		}
		slices.Sort(out)
		return out
	}
	check := func(t *testing.T, l informer.Lister[*item]) {
		t.Helper()
		if got := names(l.Namespace("old").List(nil)); len(got) != 0 {
			t.Errorf("namespace old lists %v, want nothing", got)
		}
		if got := names(l.Namespace("new").List(nil)); !slices.Equal(got, []string{"new/b"}) {
			t.Errorf("namespace new lists %v, want [new/b]", got)
		}
		if _, ok := l.Namespace("old").Get("b"); ok {
			t.Errorf("old/b found")
		}
	}
	for _, indexers := range []map[string]informer.IndexFunc[*item]{nil, byData} {
		name := fmt.Sprint("userIndex=", indexers != nil)
		t.Run("informer/"+name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*item](memory.Options{})
				opts := quiet[*item](t, nil)
				opts.Indexers = indexers
				inf := informer.New(src, opts)
				runInformer(t, inf)
				if err := inf.WaitForSync(t.Context()); err != nil {
					t.Fatal(err)
				}
				mustDo(t, src.Create(newItem("old", "a", "v1")))
				synctest.Wait()
				mustDo(t, src.Delete("old/a"))
				synctest.Wait()
				mustDo(t, src.Create(newItem("new", "b", "v1")))
				synctest.Wait()
				check(t, inf.Lister())
			})
		})
		for _, viaKey := range []bool{false, true} {
			t.Run(fmt.Sprintf("indexer/%s/DeleteKey=%v", name, viaKey), func(t *testing.T) {
				ix := informer.NewIndexer(informer.IndexerOptions[*item]{Indexers: indexers, NamespaceIndex: true})
				a := newItem("old", "a", "v1")
				mustDo(t, ix.Add(a))
				if viaKey {
					if _, _, err := ix.DeleteKey("old/a"); err != nil {
						t.Fatal(err)
					}
				} else {
					mustDo(t, ix.Delete(a))
				}
				mustDo(t, ix.Add(newItem("new", "b", "v1")))
				check(t, informer.NewLister(ix))
			})
		}
	}
}

// A handler added while the process loop is applying a batch to the cache
// gets each object once: as an initial add from the cache, or as a later
// add, never both.
func TestHandlerAddedDuringBatchGetsNoDuplicateAdds(t *testing.T) {
	for _, n := range []int{1, 10, 200} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*item](memory.Options{})
				mustDo(t, src.Create(newItem("ns", "before", "v1")))
				gate := newGatedIndex()
				opts := quiet[*item](t, nil)
				opts.Indexers = map[string]informer.IndexFunc[*item]{"data": gate.fn}
				inf := informer.New(src, opts)
				runInformer(t, inf)
				t.Cleanup(gate.open)
				if err := inf.WaitForSync(t.Context()); err != nil {
					t.Fatal(err)
				}
				src.StallWatches() // the n creates reach the queue together
				for i := range n {
					mustDo(t, src.Create(newItem("ns", fmt.Sprint("k", i), "v1")))
				}
				gate.armed.Store(true)
				src.ResumeWatches()
				<-gate.entered // the loop is applying the batch
				h := &recorder{}
				reg, err := inf.AddHandler(h, informer.HandlerOptions{})
				if err != nil {
					t.Fatal(err)
				}
				gate.armed.Store(false)
				gate.release <- struct{}{}
				synctest.Wait()
				if err := reg.WaitForSync(t.Context()); err != nil {
					t.Fatal(err)
				}
				adds := map[string]int{}
				for _, r := range h.all() {
					if r.Kind != "add" {
						t.Errorf("unexpected %v", r)
					}
					adds[r.Key]++
				}
				if len(adds) != n+1 {
					t.Errorf("adds for %d keys, want %d", len(adds), n+1)
				}
				for k, c := range adds {
					if c != 1 {
						t.Errorf("%s added %d times", k, c)
					}
				}
			})
		})
	}
}

// WaitForResourceVersion returns only once the write of that version is in
// the cache: not while the batch that holds it is still being applied,
// nor for a version the cache has not reached (numeric versions compare
// by value, so "10" is not reached by "9").
func TestWaitForResourceVersionWaitsForTheCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{StartResourceVersion: 5})
		gate := newGatedIndex()
		opts := quiet[*item](t, nil)
		opts.Indexers = map[string]informer.IndexFunc[*item]{"data": gate.fn}
		inf := informer.New(src, opts)
		runInformer(t, inf)
		t.Cleanup(gate.open)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		gate.armed.Store(true)
		mustDo(t, src.Create(newItem("ns", "a", "v1")))
		rv := src.ResourceVersion() // "6"
		<-gate.entered              // the loop is applying the write
		returned := make(chan error, 1)
		go func() { returned <- inf.WaitForResourceVersion(t.Context(), rv) }()
		synctest.Wait()
		select {
		case err := <-returned:
			t.Fatalf("WaitForResourceVersion(%s) returned (%v) while the write was being applied", rv, err)
		default:
		}
		gate.armed.Store(false)
		gate.release <- struct{}{}
		if err := <-returned; err != nil {
			t.Fatal(err)
		}
		if o, ok := inf.Lister().Get("ns/a"); !ok || o.ResourceVersion != rv {
			t.Fatalf("after WaitForResourceVersion(%s) the Lister has %v, %v", rv, o, ok)
		}
		if got := inf.AppliedResourceVersion(); got != rv {
			t.Fatalf("AppliedResourceVersion = %q, want %q", got, rv)
		}

		// Versions compare as numbers: "10" is not reached at "6"..."9".
		mustDo(t, src.Create(newItem("ns", "b", "v1"))) // 7
		go func() { returned <- inf.WaitForResourceVersion(t.Context(), "10") }()
		for _, name := range []string{"c", "d"} { // 8, 9
			synctest.Wait()
			select {
			case err := <-returned:
				t.Fatalf("WaitForResourceVersion(10) returned (%v) at %s", err, inf.AppliedResourceVersion())
			default:
			}
			mustDo(t, src.Create(newItem("ns", name, "v1")))
		}
		synctest.Wait()
		select {
		case err := <-returned:
			t.Fatalf("WaitForResourceVersion(10) returned (%v) at %s", err, inf.AppliedResourceVersion())
		default:
		}
		mustDo(t, src.Create(newItem("ns", "e", "v1"))) // 10
		if err := <-returned; err != nil {
			t.Fatal(err)
		}
		if _, ok := inf.Lister().Get("ns/e"); !ok {
			t.Fatal("ns/e not in the cache after WaitForResourceVersion(10)")
		}
		// A version already passed returns at once.
		if err := inf.WaitForResourceVersion(t.Context(), "8"); err != nil {
			t.Fatal(err)
		}
	})
}

// A second Run while the first is running returns ErrAlreadyStarted at
// once, starting nothing: the first goes on alone, each change reaching a
// handler once.
func TestSecondRunWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		mustDo(t, src.Create(newItem("ns", "a", "v1")))
		inf := informer.New(src, quiet[*item](t, nil))
		h := &recorder{}
		inf.AddHandler(h, informer.HandlerOptions{})
		runInformer(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		second := make(chan error, 1)
		go func() { second <- inf.Run(ctx) }()
		synctest.Wait()
		select {
		case err := <-second:
			if !errors.Is(err, informer.ErrAlreadyStarted) {
				t.Fatalf("second Run while running = %v, want ErrAlreadyStarted", err)
			}
		default:
			cancel()
			<-second
			t.Fatal("a second Run while running did not return")
		}
		cancel()
		mustDo(t, src.Update(newItem("ns", "a", "v2")))
		synctest.Wait()
		if got := len(h.all()); got != 2 {
			t.Fatalf("%d handler calls, want 2 (the add and the update, once each): %v", got, h.all())
		}
		if n := src.ListCalls(); n != 1 {
			t.Fatalf("%d lists, want 1", n)
		}
	})
}

// A Transform that returns nil without an error fails (ErrNilObject): an
// update it refuses is left out, and a deletion it refuses is still
// applied, with the last cached state (Options.Transform).
func TestTransformNilResultFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		mustDo(t, src.Create(newItem("ns", "a", "v1")))
		var errs errList
		opts := quiet[*item](t, &errs)
		opts.Transform = func(o *item) (*item, error) {
			if o.Data == "nil" {
				return nil, nil
			}
			return o, nil
		}
		inf := informer.New(src, opts)
		h := &recorder{}
		inf.AddHandler(h, informer.HandlerOptions{})
		runInformer(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		mustDo(t, src.Update(newItem("ns", "a", "nil")))
		synctest.Wait()
		if o, ok := inf.Lister().Get("ns/a"); !ok || o.Data != "v1" {
			t.Fatalf("after a refused update the cache has %v, %v, want v1", o, ok)
		}
		mustDo(t, src.Delete("ns/a")) // its last state has data "nil"
		synctest.Wait()
		if _, ok := inf.Lister().Get("ns/a"); ok {
			t.Fatal("a deletion the Transform refused was not applied")
		}
		recs := h.all()
		if len(recs) != 2 || recs[1].Kind != "delete" || recs[1].Data != "v1" {
			t.Fatalf("handler calls %v, want the add and a delete with the cached state v1", recs)
		}
		var transformErrs int
		for _, err := range errs.all() {
			// An *ObjectError{Op: transform}, maybe inside the
			// reflector's *ObjectError{Op: watch}.
			for e := err; ; {
				var oe *informer.ObjectError
				if !errors.As(e, &oe) {
					break
				}
				if oe.Op == "transform" && errors.Is(oe, informer.ErrNilObject) {
					transformErrs++
					break
				}
				e = oe.Err
			}
		}
		if transformErrs != 2 {
			t.Fatalf("errors %v, want two *ObjectError{Op: transform} wrapping ErrNilObject", errs.all())
		}
	})
}

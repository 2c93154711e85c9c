package informer_test

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// A handler is called without the listener's lock held: one that calls
// back into its registration (Pending, which takes that lock) and then
// panics neither deadlocks nor leaves the lock held, and its listener
// goes on, syncs, and is told later changes.
func TestPanickingHandlerLeavesNoLockHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 3)
		inf := informer.New[*item](mem, quiet[*item](t, nil))
		var reg atomic.Pointer[informer.Registration[*item]]
		var calls atomic.Int32
		r, err := inf.AddHandler(informer.HandlerFuncs[*item]{AddFunc: func(o *item, _ bool) {
			calls.Add(1)
			reg.Load().Pending() // takes the listener's lock
			panic("kaboom " + o.Name)
		}}, informer.HandlerOptions{Name: "fragile"})
		if err != nil {
			t.Fatal(err)
		}
		reg.Store(r)
		runInformer(t, inf)
		synctest.Wait() // a deadlock would fail the bubble here
		if !r.HasSynced() || calls.Load() != 3 {
			t.Fatalf("synced %v after %d calls, want synced after 3 (every initial add, each panicking)", r.HasSynced(), calls.Load())
		}
		mustDo(t, mem.Create(newItem("ns", "later", "v1")))
		synctest.Wait()
		if calls.Load() != 4 || r.Pending() != 0 {
			t.Errorf("%d calls, %d pending: want the later add called too", calls.Load(), r.Pending())
		}
	})
}

// A handler that ends its goroutine (runtime.Goexit, as t.FailNow does)
// is reported, as a HandlerPanicError that says so, and its registration
// is done; the other handlers go on. (It was stopped without a word.)
func TestHandlerGoexitIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		var errs errList
		inf := informer.New[*item](mem, quiet[*item](t, &errs))
		r, _ := inf.AddHandler(informer.HandlerFuncs[*item]{AddFunc: func(o *item, _ bool) {
			if o.Name == "exit" {
				runtime.Goexit()
			}
		}}, informer.HandlerOptions{Name: "exits"})
		other := &recorder{}
		inf.AddHandler(other, informer.HandlerOptions{})
		runInformer(t, inf)
		synctest.Wait()
		mustDo(t, mem.Create(newItem("ns", "exit", "v1")))
		mustDo(t, mem.Create(newItem("ns", "after", "v1")))
		synctest.Wait()
		select {
		case <-r.Done():
		default:
			t.Error("the registration of the handler that called Goexit is not done")
		}
		var pe *informer.HandlerPanicError
		var reported bool
		for _, err := range errs.all() {
			if errors.As(err, &pe) && pe.Handler == "exits" && strings.Contains(err.Error(), "Goexit") {
				reported = true
			}
		}
		if !reported {
			t.Errorf("no HandlerPanicError for the Goexit: %v", errs.all())
		}
		if n := len(other.all()); n != 2 {
			t.Errorf("the other handler got %d calls, want 2", n)
		}
	})
}

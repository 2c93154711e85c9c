package informer_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// A first list in one response (ListOptions.Initial) that fails is not
// asked for again: a collection too large to send within a timeout fails
// that way every time, and the informer never synced. The lists after it
// are not Initial (a Source pages them); a list whose continuation failed
// after a first page came is still Initial when asked again
// (TestOnlyTheFirstListIsInitial).
func TestFailedInitialListNotRepeated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 10)
		src := spy(mem)
		src.afterList = func(call int, p page, err error) (page, error) {
			if call == 0 {
				return page{}, errors.New("504 Gateway Timeout: the whole collection took too long")
			}
			return p, err
		}
		sink := newSinkRec()
		var errs errList
		r := newTestReflector(src, sink, &errs, informer.ReflectorOptions{Backoff: exact})
		runReflector(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		lists := src.listCalls()
		if len(lists) != 2 {
			t.Fatalf("%d lists, want 2 (the failed one, then one that is not Initial): %+v", len(lists), lists)
		}
		if !lists[0].opts.Initial || lists[1].opts.Initial {
			t.Errorf("Initial %t then %t, want true then false", lists[0].opts.Initial, lists[1].opts.Initial)
		}
		if !r.Health().Synced {
			t.Error("not synced after the second list")
		}
	})
}

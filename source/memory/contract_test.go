package memory_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// TestEveryWriteWakesNext: a Next blocked on an open watch returns for
// every kind of write, a Delete included.
func TestEveryWriteWakesNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*obj](memory.Options{})
		populate(t, src, "ns/a")
		w := watch(t, src, informer.WatchOptions{ResourceVersion: src.ResourceVersion()})
		writes := []struct {
			name  string
			write func() error
			want  string
		}{
			{"Create", func() error { return src.Create(newObj("ns/b")) }, "ADDED ns/b@2 rv=2"},
			{"Update", func() error { return src.Update(newObj("ns/b", "x")) }, "MODIFIED ns/b@3 rv=3 x"},
			{"Upsert", func() error { return src.Upsert(newObj("ns/c")) }, "ADDED ns/c@4 rv=4"},
			{"Delete", func() error { return src.Delete("ns/a") }, "DELETED ns/a@1 rv=5"},
		}
		for _, wr := range writes {
			got := make(chan []string, 1)
			go func() {
				evs, _ := read(w, 1)
				got <- evs
			}()
			synctest.Wait() // Next is blocked: nothing to read
			select {
			case evs := <-got:
				t.Fatalf("before %s, Next returned %q", wr.name, evs)
			default:
			}
			must(t, wr.write())
			synctest.Wait()
			select {
			case evs := <-got:
				if len(evs) != 1 || evs[0] != wr.want {
					t.Errorf("%s: %q, want %q", wr.name, evs, wr.want)
				}
			default:
				t.Fatalf("%s did not wake the blocked Next", wr.name)
			}
		}
	})
}

// TestExactListUndoesEveryLaterWrite: a list as of an older version shows
// each key as it was then, however many times it was written since: one
// updated twice shows its first state, one created and deleted since is
// absent, one deleted and created again is back to its old state.
func TestExactListUndoesEveryLaterWrite(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	must(t, src.Create(newObj("a", "a1")))
	must(t, src.Create(newObj("b", "b1")))
	at := src.ResourceVersion() // 2: a=a1, b=b1
	must(t, src.Update(newObj("a", "a2")))
	must(t, src.Update(newObj("a", "a3")))
	must(t, src.Create(newObj("c", "c1")))
	must(t, src.Delete("c"))
	must(t, src.Delete("b"))
	must(t, src.Create(newObj("b", "b2")))
	page, err := src.List(t.Context(), informer.ListOptions{ResourceVersion: at, ResourceVersionMatch: informer.MatchExact})
	must(t, err)
	var got []string
	for _, o := range page.Items {
		got = append(got, fmt.Sprintf("%s=%s@%s", keyOf(o), o.data, o.ResourceVersion))
	}
	if want := []string{"a=a1@1", "b=b1@2"}; !slices.Equal(got, want) || page.ResourceVersion != at {
		t.Errorf("list at %s: %q at %s, want %q", at, got, page.ResourceVersion, want)
	}
}

// TestInitialEventsSortedByKey: a streaming list's initial events come
// sorted by key, whatever the order of the writes.
func TestInitialEventsSortedByKey(t *testing.T) {
	src := memory.New[*obj](memory.Options{WatchList: true})
	var keys []string
	for i := range 40 {
		keys = append(keys, fmt.Sprintf("ns/o%02d", (i*17)%40))
	}
	populate(t, src, keys...)
	w := watch(t, src, informer.WatchOptions{SendInitialEvents: true})
	var got []string
	for range keys {
		ev, err := w.Next()
		must(t, err)
		got = append(got, keyOf(ev.Object))
	}
	if !sort.StringsAreSorted(got) {
		t.Errorf("initial events in the order %q, want sorted by key", got)
	}
}

// TestPagesNeitherSkipNorRepeat: the pages of a list, with every limit,
// hold every object once, in key order.
func TestPagesNeitherSkipNorRepeat(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	var want []string
	for i := range 7 {
		k := fmt.Sprintf("k%d", i)
		want = append(want, k)
	}
	populate(t, src, want...)
	for limit := int64(1); limit <= 8; limit++ {
		items, _, err := listAll(t.Context(), src, informer.ListOptions{Limit: limit}, nil)
		must(t, err)
		if got := keys(items); !slices.Equal(got, want) {
			t.Errorf("limit %d: %q, want %q", limit, got, want)
		}
	}
}

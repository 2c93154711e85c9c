package memory_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

func TestCompactTo(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	populate(t, src, "a", "b", "c")
	for _, rv := range []string{"x", "", "4"} {
		if err := src.CompactTo(rv); !errors.Is(err, memory.ErrInvalidVersion) {
			t.Errorf("CompactTo(%q): %v, want ErrInvalidVersion", rv, err)
		}
	}
	must(t, src.CompactTo("2"))
	must(t, src.CompactTo("1")) // already further: nothing happens
	must(t, src.CompactTo("2"))
	w := watch(t, src, informer.WatchOptions{ResourceVersion: "2"})
	if got := next(t, w, 1); got[0] != "ADDED c@3 rv=3" {
		t.Fatalf("got %q", got)
	}
	if _, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"}); !errors.Is(err, informer.ErrExpired) {
		t.Fatalf("Watch from 1: %v, want ErrExpired", err)
	}
}

// Compaction lets go of the objects only the history held: deleted ones, and
// replaced states. So does a finished paginated list.
func TestCompactFreesObjects(t *testing.T) {
	tests := []struct {
		name    string
		opts    memory.Options
		compact func(src *memory.Source[*obj])
	}{
		{name: "Compact", compact: func(src *memory.Source[*obj]) { src.Compact() }},
		{name: "CompactTo", compact: func(src *memory.Source[*obj]) { must(t, src.CompactTo(src.ResourceVersion())) }},
		{name: "HistoryLimit", opts: memory.Options{HistoryLimit: 12}, compact: func(src *memory.Source[*obj]) {
			for i := range 12 {
				must(t, src.Create(newObj(fmt.Sprintf("x%d", i))))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memory.New[*obj](tt.opts)
			var gone []weak.Pointer[obj]
			for i := range 3 {
				deleted := newObj(fmt.Sprintf("d%d", i))
				replaced := newObj(fmt.Sprintf("r%d", i))
				must(t, src.Create(deleted))
				must(t, src.Create(replaced))
				must(t, src.Update(newObj(fmt.Sprintf("r%d", i), "new")))
				must(t, src.Delete(fmt.Sprintf("d%d", i)))
				gone = append(gone, weak.Make(deleted), weak.Make(replaced))
			}
			// An unfinished paginated list at the old version holds them too.
			_, err := src.List(t.Context(), informer.ListOptions{Limit: 1, ResourceVersion: "2", ResourceVersionMatch: informer.MatchExact})
			must(t, err)
			tt.compact(src)
			runtime.GC()
			for i, p := range gone {
				if p.Value() != nil {
					t.Errorf("object %d still reachable after compaction", i)
				}
			}
			runtime.KeepAlive(src)
		})
	}
}

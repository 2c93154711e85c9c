package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

func TestListPages(t *testing.T) {
	tests := []struct {
		name        string
		opts        memory.Options
		limit       int64
		wantPageLen []int
	}{
		{name: "no limit", wantPageLen: []int{5}},
		{name: "limit 2", limit: 2, wantPageLen: []int{2, 2, 1}},
		{name: "limit 5", limit: 5, wantPageLen: []int{5}},
		{name: "limit above size", limit: 50, wantPageLen: []int{5}},
		{name: "negative limit", limit: -1, wantPageLen: []int{5}},
		{name: "max page size", opts: memory.Options{MaxPageSize: 3}, wantPageLen: []int{3, 2}},
		{name: "max page size below limit", opts: memory.Options{MaxPageSize: 1}, limit: 2, wantPageLen: []int{1, 1, 1, 1, 1}},
		{name: "limit below max page size", opts: memory.Options{MaxPageSize: 4}, limit: 2, wantPageLen: []int{2, 2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memory.New[*obj](tt.opts)
			populate(t, src, "ns/e", "a", "ns/c", "b", "ns/d")
			var got []*obj
			var lens []int
			opts := informer.ListOptions{Limit: tt.limit}
			for {
				page, err := src.List(t.Context(), opts)
				must(t, err)
				if page.ResourceVersion != "5" {
					t.Errorf("page ResourceVersion %q, want 5", page.ResourceVersion)
				}
				lens = append(lens, len(page.Items))
				got = append(got, page.Items...)
				if page.Continue == "" {
					break
				}
				opts.Continue = page.Continue
			}
			if !slices.Equal(lens, tt.wantPageLen) {
				t.Errorf("page sizes %v, want %v", lens, tt.wantPageLen)
			}
			want := []string{"a", "b", "ns/c", "ns/d", "ns/e"}
			if k := keys(got); !slices.Equal(k, want) {
				t.Errorf("items %q, want %q", k, want)
			}
		})
	}
}

func TestListEmpty(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	page, err := src.List(t.Context(), informer.ListOptions{Limit: 10})
	must(t, err)
	if len(page.Items) != 0 || page.Continue != "" || page.ResourceVersion != "0" {
		t.Fatalf("empty list = %+v", page)
	}
}

// Every page of a list shows the state of the first page, however the source
// changes in between.
func TestListConsistentPages(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	populate(t, src, "k0", "k1", "k2", "k3", "k4", "k5")
	want := keys(src.Items())
	wantData := map[string]string{}
	for _, o := range src.Items() {
		wantData[keyOf(o)] = o.ResourceVersion
	}
	round := 0
	between := func() {
		round++
		must(t, src.Delete(fmt.Sprintf("k%d", round)))                  // a key not listed yet
		must(t, src.Update(newObj(fmt.Sprintf("k%d", round+1), "new"))) // another
		must(t, src.Create(newObj(fmt.Sprintf("k%d-new", round))))      // a new key in the middle
		must(t, src.Create(newObj(fmt.Sprintf("j%d-new", round))))      // and one before
	}
	got, versions, err := listAll(t.Context(), src, informer.ListOptions{Limit: 2}, between)
	must(t, err)
	if k := keys(got); !slices.Equal(k, want) {
		t.Fatalf("items %q, want %q", k, want)
	}
	for _, o := range got {
		if o.ResourceVersion != wantData[keyOf(o)] || o.data != "" {
			t.Errorf("%s listed at %s (%q), want the state at %s", keyOf(o), o.ResourceVersion, o.data, wantData[keyOf(o)])
		}
	}
	for _, v := range versions {
		if v != "6" {
			t.Errorf("page versions %q, want all 6", versions)
			break
		}
	}
	// A new list shows the new state.
	page, err := src.List(t.Context(), informer.ListOptions{})
	must(t, err)
	if page.ResourceVersion != src.ResourceVersion() || len(page.Items) != src.Len() {
		t.Fatalf("new list at %s with %d items, want %s with %d", page.ResourceVersion, len(page.Items), src.ResourceVersion(), src.Len())
	}
}

// Pages continued in a different order than they were issued, with the
// snapshot cache of another list in between, are still right.
func TestListInterleaved(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	populate(t, src, "a", "b", "c", "d")
	p1, err := src.List(t.Context(), informer.ListOptions{Limit: 1})
	must(t, err)
	must(t, src.Delete("b"))
	must(t, src.Create(newObj("bb")))
	q1, err := src.List(t.Context(), informer.ListOptions{Limit: 3})
	must(t, err)
	p2, err := src.List(t.Context(), informer.ListOptions{Limit: 2, Continue: p1.Continue})
	must(t, err)
	q2, err := src.List(t.Context(), informer.ListOptions{Limit: 3, Continue: q1.Continue})
	must(t, err)
	p3, err := src.List(t.Context(), informer.ListOptions{Continue: p2.Continue})
	must(t, err)
	p := slices.Concat(p1.Items, p2.Items, p3.Items)
	q := slices.Concat(q1.Items, q2.Items)
	if k := keys(p); !slices.Equal(k, []string{"a", "b", "c", "d"}) || p3.Continue != "" {
		t.Errorf("first list %q", k)
	}
	if k := keys(q); !slices.Equal(k, []string{"a", "bb", "c", "d"}) || q2.Continue != "" {
		t.Errorf("second list %q", k)
	}
	// A page is a new slice: the consumer may keep and change it.
	p1.Items[0] = nil
	p4, err := src.List(t.Context(), informer.ListOptions{Limit: 1})
	must(t, err)
	if p4.Items[0] == nil {
		t.Fatal("a page shares its slice with an earlier one")
	}
}

func TestListResourceVersion(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	populate(t, src, "a", "b")              // 1, 2
	must(t, src.Update(newObj("a", "new"))) // 3
	must(t, src.Delete("b"))                // 4
	populate(t, src, "c")                   // 5
	must(t, src.CompactTo("2"))
	tests := []struct {
		rv, match string
		wantRV    string
		wantKeys  []string
		wantErr   error
	}{
		{rv: "", wantRV: "5", wantKeys: []string{"a", "c"}},
		{rv: "0", wantRV: "5", wantKeys: []string{"a", "c"}},
		{rv: "3", wantRV: "5", wantKeys: []string{"a", "c"}},
		{rv: "3", match: informer.MatchNotOlderThan, wantRV: "5", wantKeys: []string{"a", "c"}},
		{rv: "2", match: informer.MatchExact, wantRV: "2", wantKeys: []string{"a", "b"}},
		{rv: "3", match: informer.MatchExact, wantRV: "3", wantKeys: []string{"a", "b"}},
		{rv: "4", match: informer.MatchExact, wantRV: "4", wantKeys: []string{"a"}},
		{rv: "5", match: informer.MatchExact, wantRV: "5", wantKeys: []string{"a", "c"}},
		{rv: "1", wantErr: informer.ErrExpired},
		{rv: "1", match: informer.MatchExact, wantErr: informer.ErrExpired},
		{rv: "6", wantErr: memory.ErrInvalidVersion},
		{rv: "x", wantErr: memory.ErrInvalidVersion},
		{rv: "3", match: "Sometime", wantErr: errors.New("any")},
	}
	for _, tt := range tests {
		t.Run(tt.rv+"/"+tt.match, func(t *testing.T) {
			page, err := src.List(t.Context(), informer.ListOptions{ResourceVersion: tt.rv, ResourceVersionMatch: tt.match})
			if tt.wantErr != nil {
				if err == nil || (tt.wantErr.Error() != "any" && !errors.Is(err, tt.wantErr)) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			must(t, err)
			if page.ResourceVersion != tt.wantRV || !slices.Equal(keys(page.Items), tt.wantKeys) {
				t.Fatalf("list at %s: %q, want %s: %q", page.ResourceVersion, keys(page.Items), tt.wantRV, tt.wantKeys)
			}
		})
	}
	// The exact state holds the objects as they were.
	page, err := src.List(t.Context(), informer.ListOptions{ResourceVersion: "2", ResourceVersionMatch: informer.MatchExact})
	must(t, err)
	if a := page.Items[0]; a.ResourceVersion != "1" || a.data != "" {
		t.Fatalf("a at 2 is %s %q, want its first version", a.ResourceVersion, a.data)
	}
}

func TestContinueExpiry(t *testing.T) {
	tests := []struct {
		name   string
		opts   memory.Options
		expire func(src *memory.Source[*obj])
		token  func(cont string) string
	}{
		{name: "Compact", expire: func(src *memory.Source[*obj]) { src.Compact() }},
		{name: "CompactTo before the token", expire: func(src *memory.Source[*obj]) {
			must(t, src.CompactTo("2"))
		}},
		{name: "CompactTo", expire: func(src *memory.Source[*obj]) {
			must(t, src.Create(newObj("z")))
			must(t, src.CompactTo("4"))
		}},
		{name: "ExpireContinueTokens", expire: func(src *memory.Source[*obj]) { src.ExpireContinueTokens() }},
		{name: "HistoryLimit", opts: memory.Options{HistoryLimit: 2}, expire: func(src *memory.Source[*obj]) {
			populate(t, src, "x", "y", "z")
		}},
		{name: "garbage token", token: func(string) string { return "not a token" }},
		{name: "forged token", token: func(string) string { return "MTo6Ojo" }},
		{name: "another source's token", token: func(string) string {
			other := memory.New[*obj](memory.Options{})
			populate(t, other, "a", "b")
			page, err := other.List(context.Background(), informer.ListOptions{Limit: 1})
			must(t, err)
			return page.Continue
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memory.New[*obj](tt.opts)
			populate(t, src, "a", "b", "c")
			page, err := src.List(t.Context(), informer.ListOptions{Limit: 1})
			must(t, err)
			cont := page.Continue
			if tt.expire != nil {
				tt.expire(src)
			}
			if tt.token != nil {
				cont = tt.token(cont)
			}
			_, err = src.List(t.Context(), informer.ListOptions{Limit: 1, Continue: cont})
			if !errors.Is(err, informer.ErrExpired) {
				t.Fatalf("continue: %v, want ErrExpired", err)
			}
			// A new list works, and so do its tokens.
			items, _, err := listAll(t.Context(), src, informer.ListOptions{Limit: 1}, nil)
			must(t, err)
			if len(items) != src.Len() {
				t.Fatalf("relist got %d items, want %d", len(items), src.Len())
			}
		})
	}
}

// A token survives writes, and compaction up to its own version, when the
// history it needs is kept.
func TestContinueSurvivesHistoryLimit(t *testing.T) {
	src := memory.New[*obj](memory.Options{HistoryLimit: 3})
	populate(t, src, "a", "b", "c")
	page, err := src.List(t.Context(), informer.ListOptions{Limit: 1})
	must(t, err)
	populate(t, src, "d", "e", "f") // the history now holds exactly 4..6
	rest, _, err := listAll(t.Context(), src, informer.ListOptions{Limit: 1, Continue: page.Continue}, nil)
	must(t, err)
	if k := keys(rest); !slices.Equal(k, []string{"b", "c"}) {
		t.Fatalf("rest %q, want [b c]", k)
	}
}

func TestListContextDone(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	populate(t, src, "a")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := src.List(ctx, informer.ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("List with a done context: %v", err)
	}
}

// Paginated lists stay consistent while writers run (run with -race).
func TestListConcurrentWrites(t *testing.T) {
	src := memory.New[*obj](memory.Options{})
	for i := range 200 {
		must(t, src.Create(newObj(fmt.Sprintf("k%03d", i))))
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				key := fmt.Sprintf("k%03d", (i*7+w*50)%200)
				if i%3 == 0 {
					if src.Delete(key) != nil {
						_ = src.Create(newObj(key))
					}
				} else {
					_ = src.Upsert(newObj(key, "w"))
				}
			}
		})
	}
	for range 30 {
		first, err := src.List(ctx, informer.ListOptions{Limit: 7})
		must(t, err)
		// The state the list must show, rebuilt independently.
		exact, err := src.List(ctx, informer.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: informer.MatchExact})
		must(t, err)
		rest, versions, err := listAll(ctx, src, informer.ListOptions{Limit: 7, Continue: first.Continue}, nil)
		must(t, err)
		got := append(first.Items, rest...)
		if !slices.Equal(got, exact.Items) {
			t.Fatalf("paginated list at %s differs from the exact state: %d vs %d items", first.ResourceVersion, len(got), len(exact.Items))
		}
		for _, v := range versions {
			if v != first.ResourceVersion {
				t.Fatalf("page at %s in a list at %s", v, first.ResourceVersion)
			}
		}
	}
	cancel()
	wg.Wait()
}

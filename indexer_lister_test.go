package informer_test

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-go/informer"
)

func listerFixture(t *testing.T, withNamespaceIndex bool) informer.Lister[*cm] {
	t.Helper()
	var opts informer.IndexerOptions[*cm]
	if withNamespaceIndex {
		opts.Indexers = map[string]informer.IndexFunc[*cm]{informer.NamespaceIndex: informer.IndexByNamespace[*cm]()}
	}
	ix := informer.NewIndexer(opts)
	for _, o := range []*cm{
		newCM("prod", "web", "1", "app", "web", "tier", "front"),
		newCM("prod", "db", "1", "app", "db", "tier", "back"),
		newCM("prod", "cache", "1", "app", "cache", "tier", "back"),
		newCM("dev", "web", "1", "app", "web", "tier", "front"),
		newCM("dev", "db", "1", "app", "db"),
		newCM("", "global", "1", "app", "web", "scope", "cluster"),
	} {
		mustAdd(t, ix, o)
	}
	for i := range 150 { // more than one iterator batch in one namespace
		mustAdd(t, ix, newCM("bulk", "o"+string(rune('a'+i%26))+string(rune('a'+i/26)), "1", "app", "bulk"))
	}
	return informer.NewLister(ix)
}

func mustSelector(t *testing.T, s string) labels.Selector {
	t.Helper()
	sel, err := labels.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func TestLister(t *testing.T) {
	for _, indexed := range []bool{true, false} {
		name := "namespace index"
		if !indexed {
			name = "fallback scan"
		}
		t.Run(name, func(t *testing.T) {
			l := listerFixture(t, indexed)

			t.Run("Get", func(t *testing.T) {
				for key, want := range map[string]bool{"prod/web": true, "global": true, "prod/nope": false, "web": false, "": false} {
					o, ok := l.Get(key)
					if ok != want || (ok && keyOf(t, o) != key) {
						t.Errorf("Get(%q) = %v, %v; want found=%v", key, o, ok, want)
					}
				}
			})

			t.Run("List", func(t *testing.T) {
				tests := []struct {
					selector labels.Selector
					want     []string // nil: every object
				}{
					{selector: nil},
					{selector: labels.Everything()},
					{selector: mustSelector(t, "")},
					{selector: mustSelector(t, "app=web"), want: []string{"dev/web", "global", "prod/web"}},
					{selector: mustSelector(t, "tier=back"), want: []string{"prod/cache", "prod/db"}},
					{selector: mustSelector(t, "app in (db,cache),tier"), want: []string{"prod/cache", "prod/db"}},
					{selector: mustSelector(t, "!tier,app!=bulk"), want: []string{"dev/db", "global"}},
					{selector: mustSelector(t, "app=none"), want: []string{}},
					{selector: labels.Nothing(), want: []string{}},
				}
				all := l.List(nil)
				if len(all) != 156 {
					t.Fatalf("List(nil) = %d objects, want 156", len(all))
				}
				for _, tt := range tests {
					want := tt.want
					if want == nil {
						want = sortedObjKeys(t, all)
					}
					desc := "<nil>"
					if tt.selector != nil {
						desc = tt.selector.String()
					}
					if got := sortedObjKeys(t, l.List(tt.selector)); !slices.Equal(got, want) {
						t.Errorf("List(%s) = %q, want %q", desc, got, want)
					}
					if got := sortedObjKeys(t, slices.Collect(l.ListSeq(tt.selector))); !slices.Equal(got, want) {
						t.Errorf("ListSeq(%s) = %q, want %q", desc, got, want)
					}
				}
			})

			t.Run("Namespace", func(t *testing.T) {
				tests := []struct {
					ns       string
					selector labels.Selector
					want     []string
				}{
					{ns: "prod", want: []string{"prod/cache", "prod/db", "prod/web"}},
					{ns: "prod", selector: labels.Everything(), want: []string{"prod/cache", "prod/db", "prod/web"}},
					{ns: "prod", selector: mustSelector(t, "tier=back"), want: []string{"prod/cache", "prod/db"}},
					{ns: "dev", selector: mustSelector(t, "app=web"), want: []string{"dev/web"}},
					{ns: "dev", selector: mustSelector(t, "tier"), want: []string{"dev/web"}},
					{ns: "", want: []string{"global"}},
					{ns: "nope"},
					{ns: "prod", selector: labels.Nothing()},
				}
				for _, tt := range tests {
					nl := l.Namespace(tt.ns)
					got := sortedObjKeys(t, nl.List(tt.selector))
					if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
						t.Errorf("Namespace(%q).List(%v) = %q, want %q", tt.ns, tt.selector, got, tt.want)
					}
					got = sortedObjKeys(t, slices.Collect(nl.ListSeq(tt.selector)))
					if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
						t.Errorf("Namespace(%q).ListSeq(%v) = %q, want %q", tt.ns, tt.selector, got, tt.want)
					}
				}
				if n := len(l.Namespace("bulk").List(nil)); n != 150 {
					t.Errorf("Namespace(bulk).List = %d objects, want 150", n)
				}
				// Breaking out of Seq early.
				n := 0
				for range l.Namespace("bulk").ListSeq(nil) {
					n++
					if n == 70 {
						break
					}
				}
				if n != 70 {
					t.Errorf("Namespace(bulk).Seq: %d iterations before break, want 70", n)
				}
			})

			t.Run("Namespace.Get", func(t *testing.T) {
				for _, tt := range []struct {
					ns, name string
					want     bool
				}{
					{"prod", "web", true}, {"dev", "web", true}, {"dev", "cache", false},
					{"", "global", true}, {"prod", "global", false}, {"nope", "web", false},
				} {
					o, ok := l.Namespace(tt.ns).Get(tt.name)
					if ok != tt.want || (ok && (o.Namespace != tt.ns || o.Name != tt.name)) {
						t.Errorf("Namespace(%q).Get(%q) = %v, %v; want found=%v", tt.ns, tt.name, o, ok, tt.want)
					}
				}
			})
		})
	}
}

// TestListerSeesWrites: a Lister is a live view of its Indexer.
func TestListerSeesWrites(t *testing.T) {
	ix := newCMIndexer()
	l := informer.NewLister(ix)
	if len(l.List(nil)) != 0 || len(l.Namespace("a").List(nil)) != 0 {
		t.Fatal("empty lister lists objects")
	}
	mustAdd(t, ix, newCM("a", "x", "1", "app", "one"))
	if got := l.Namespace("a").List(mustSelector(t, "app=one")); len(got) != 1 {
		t.Fatalf("after Add: %v", got)
	}
	mustAdd(t, ix, newCM("a", "x", "2", "app", "two"))
	if got := l.Namespace("a").List(mustSelector(t, "app=one")); len(got) != 0 {
		t.Fatalf("after Update: %v", got)
	}
	if o, ok := l.Namespace("a").Get("x"); !ok || o.ResourceVersion != "2" {
		t.Fatalf("Namespace.Get after Update = %v, %v", o, ok)
	}
	if err := ix.Delete(newCM("a", "x", "")); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Get("a/x"); ok {
		t.Fatal("Get after Delete found the object")
	}
}

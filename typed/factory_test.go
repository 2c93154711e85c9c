package typed_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/typed"
)

// The factory's unit tests run it against fakeAPI inside testing/synctest
// bubbles: no kube-apiserver, no sleeps, in every go test run.

func quietOpts() typed.FactoryOptions {
	return typed.FactoryOptions{Logger: slog.New(slog.DiscardHandler)}
}

// mustInformer is typed.Informer that fails the test on an error.
func mustInformer[T informer.Object](t *testing.T, f *typed.Factory, res typed.Resource[T], opts ...typed.Options[T]) *typed.Ref[T] {
	t.Helper()
	var o typed.Options[T]
	if len(opts) > 0 {
		o = opts[0]
	}
	ref, err := typed.Informer(f, res, o)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// syncAll starts f and waits, in fake time, until its informers synced.
func syncAll(t *testing.T, ctx context.Context, f *typed.Factory) []typed.SyncResult {
	t.Helper()
	f.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := f.WaitForCacheSync(wctx)
	if err != nil {
		t.Fatalf("WaitForCacheSync: %v", err)
	}
	return res
}

// cachedNames lists the names in a cache, sorted, comma-separated.
func cachedNames[T informer.Object](l typed.Lister[T]) string {
	var names []string
	for _, obj := range l.List(nil) {
		names = append(names, obj.GetName())
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

func upperColor(g *Gadget) (*Gadget, error) {
	g.Spec.Color = strings.ToUpper(g.Spec.Color)
	return g, nil
}

func markGadget(g *Gadget) (*Gadget, error) {
	if g.Labels == nil {
		g.Labels = map[string]string{}
	}
	g.Labels["marked"] = "yes"
	return g, nil
}

// TestFactorySharing: asking again for the same resource, namespace,
// selectors, transform and Go type returns the same informer; a difference
// in any of them makes another one, which lists and watches what it asked
// for: one list and one watch per informer, however many Refs it has.
func TestFactorySharing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(
			gadgetState{"a", "g1", "red", "web"},
			gadgetState{"a", "g2", "blue", "db"},
			gadgetState{"b", "g3", "green", "web"},
		)
		opts := quietOpts()
		opts.Namespace = "a"
		f := newFakeFactory(t, api, opts)
		defer f.Shutdown()

		type G = typed.Options[*Gadget]
		refs := map[string]*typed.Ref[*Gadget]{}
		ask := func(name string, o G) { refs[name] = mustInformer(t, f, gadgets, o) }
		ask("base", G{})
		ask("base again", G{})
		ask("namespace a named", G{Namespace: "a"})
		ask("with a resync", G{ResyncPeriod: time.Hour}) // the resync and OnError do not pick the informer
		ask("with OnError", G{OnError: func(error) {}})
		ask("namespace b", G{Namespace: "b"})
		ask("all namespaces", G{Namespace: typed.AllNamespaces})
		ask("labels", G{LabelSelector: "app=web"})
		ask("fields", G{FieldSelector: "metadata.name=g1"})
		ask("upper", G{Transform: upperColor})
		ask("upper again", G{Transform: upperColor})
		ask("mark", G{Transform: markGadget})
		ask("named", G{Transform: upperColor, TransformName: "shout"})
		ask("named, another function", G{Transform: markGadget, TransformName: "shout"})
		view := mustInformer(t, f, gadgetViews)

		groups := [][]string{
			{"base", "base again", "namespace a named", "with a resync", "with OnError"},
			{"namespace b"}, {"all namespaces"}, {"labels"}, {"fields"},
			{"upper", "upper again"}, {"mark"}, {"named", "named, another function"},
		}
		group := map[string]int{}
		for i, g := range groups {
			for _, name := range g {
				group[name] = i
			}
		}
		for _, a := range slices.Sorted(maps.Keys(refs)) {
			for _, b := range slices.Sorted(maps.Keys(refs)) {
				if a < b && (refs[a].Informer() == refs[b].Informer()) != (group[a] == group[b]) {
					t.Errorf("%q and %q: same informer %v, want %v", a, b, refs[a].Informer() == refs[b].Informer(), group[a] == group[b])
				}
			}
		}
		if want := len(groups) + 1; f.Len() != want { // one more: the other Go type
			t.Errorf("Len %d, want %d", f.Len(), want)
		}

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		syncAll(t, ctx, f)
		synctest.Wait() // every watch is open
		perCollection := map[string]int{
			gadgetPath("a"):                              5, // base, upper, mark, named, the other Go type
			gadgetPath("b"):                              1,
			gadgetPath(""):                               1,
			gadgetPath("a") + " labels app=web":          1,
			gadgetPath("a") + " fields metadata.name=g1": 1,
		}
		for c, want := range perCollection {
			if n := api.listsOf(c); n != want {
				t.Errorf("%d lists of %s, want %d", n, c, want)
			}
		}
		if got := api.openWatches(); !maps.Equal(got, perCollection) {
			t.Errorf("open watches %v, want %v", got, perCollection)
		}
		for name, want := range map[string]string{
			"base": "g1,g2", "namespace b": "g3", "all namespaces": "g1,g2,g3", "labels": "g1",
		} {
			if got := cachedNames(refs[name].Lister()); got != want {
				t.Errorf("%s caches %q, want %q", name, got, want)
			}
		}
		if g, ok := refs["upper"].Lister().Get("a/g1"); !ok || g.Spec.Color != "RED" {
			t.Errorf("the upper transform's cache holds %+v", g)
		}
		if g, ok := refs["base"].Lister().Get("a/g1"); !ok || g.Spec.Color != "red" {
			t.Errorf("the cache without a transform holds %+v", g)
		}
		if got := cachedNames(view.Lister()); got != "g1,g2" {
			t.Errorf("the other Go type's informer caches %q", got)
		}
	})
}

// TestFactoryReferenceCounting: releasing one of two references keeps the
// informer and its watch; a second Release of that reference changes
// nothing; releasing the last stops the watch before Release returns and
// drops the informer, and asking again makes a new one.
func TestFactoryReferenceCounting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"})
		f := newFakeFactory(t, api, quietOpts())
		defer f.Shutdown()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		first := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a"})
		second := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a"})
		syncAll(t, ctx, f)
		synctest.Wait()
		watching := func() int { return api.watchesOn(gadgetPath("a")) }
		if n := watching(); n != 1 {
			t.Fatalf("%d watches for two references, want 1", n)
		}

		first.Release()
		synctest.Wait()
		if n := watching(); n != 1 || f.Len() != 1 {
			t.Errorf("after releasing one of two references: %d watches, Len %d; want 1 and 1", n, f.Len())
		}
		first.Release() // again: a no-op, the other reference holds on
		synctest.Wait()
		if n := watching(); n != 1 || f.Len() != 1 {
			t.Errorf("after releasing the same reference twice: %d watches, Len %d; want 1 and 1", n, f.Len())
		}
		if _, ok := second.Lister().Get("a/g1"); !ok || !second.HasSynced() {
			t.Error("the remaining reference's informer lost its cache")
		}

		second.Release() // the last: the watch has ended when it returns
		if n := watching(); n != 0 || f.Len() != 0 {
			t.Errorf("after the last release: %d watches, Len %d; want 0 and 0", n, f.Len())
		}
		second.Release()

		third := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a"})
		defer third.Release()
		if third.Informer() == second.Informer() {
			t.Error("asking again after the last release returned the stopped informer")
		}
		if err := third.WaitForSync(ctx); err != nil { // the factory has started: it runs at once
			t.Fatal(err)
		}
		if n := api.listsOf(gadgetPath("a")); n != 2 {
			t.Errorf("%d lists, want 2 (the new informer lists again)", n)
		}
	})
}

// TestFactoryUniqueNames: every informer has its own name, in the
// SyncResults (sorted by it) and its logs, even for the same resource and
// namespace as another Go type or with an unnamed transform.
func TestFactoryUniqueNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"})
		f := newFakeFactory(t, api, quietOpts())
		defer f.Shutdown()
		type G = typed.Options[*Gadget]
		mustInformer(t, f, gadgets, G{Namespace: "a"})
		mustInformer(t, f, gadgets, G{Namespace: "a", Transform: upperColor})
		mustInformer(t, f, gadgets, G{Namespace: "a", Transform: markGadget})
		mustInformer(t, f, gadgets, G{Namespace: "a", Transform: upperColor, TransformName: "shout"})
		mustInformer(t, f, gadgets, G{Namespace: "b"})
		mustInformer(t, f, gadgets, G{Namespace: "a", LabelSelector: "app=web"})
		mustInformer(t, f, gadgetViews, typed.Options[*GadgetView]{Namespace: "a"})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		results := syncAll(t, ctx, f)
		var names []string
		for _, r := range results {
			names = append(names, r.Informer)
		}
		if len(names) != 7 {
			t.Fatalf("%d results, want 7: %q", len(names), names)
		}
		if !slices.IsSorted(names) {
			t.Errorf("results not sorted by name: %q", names)
		}
		if c := slices.Compact(slices.Clone(names)); len(c) != len(names) {
			t.Errorf("names are not unique: %q", names)
		}
		for _, want := range []string{
			"gadgets.example.com/v1 in a",
			"gadgets.example.com/v1 in b",
			"gadgets.example.com/v1 in a labels app=web",
			"gadgets.example.com/v1 in a transform shout",
		} {
			if !slices.Contains(names, want) {
				t.Errorf("no informer named %q in %q", want, names)
			}
		}
	})
}

// TestFactoryManagedFieldsAndTransform: by default the factory drops
// managedFields before the user's transform runs, and both apply to the
// cached objects; with KeepManagedFields the transform sees and keeps
// them.
func TestFactoryManagedFieldsAndTransform(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("KeepManagedFields=%v", keep), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				api := newFakeAPI(gadgetState{"a", "g1", "red", "web"}, gadgetState{"a", "g2", "blue", "db"})
				opts := quietOpts()
				opts.KeepManagedFields = keep
				f := newFakeFactory(t, api, opts)
				defer f.Shutdown()
				var sawManaged atomic.Int32
				ref := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a", Transform: func(g *Gadget) (*Gadget, error) {
					if len(g.ManagedFields) > 0 {
						sawManaged.Add(1)
					}
					return upperColor(g)
				}})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				syncAll(t, ctx, f)
				for _, name := range []string{"g1", "g2"} {
					g, ok := ref.Lister().Get("a/" + name)
					if !ok {
						t.Fatalf("a/%s not cached", name)
					}
					if g.Spec.Color != strings.ToUpper(g.Spec.Color) {
						t.Errorf("a/%s: color %q, the transform did not apply", name, g.Spec.Color)
					}
					if got := len(g.ManagedFields) > 0; got != keep {
						t.Errorf("a/%s cached with managedFields %v, want %v", name, got, keep)
					}
				}
				if want := map[bool]int32{false: 0, true: 2}[keep]; sawManaged.Load() != want {
					t.Errorf("the transform saw managedFields on %d objects, want %d", sawManaged.Load(), want)
				}
			})
		})
	}
}

// TestFactoryWaitForCacheSync: WaitForCacheSync reports every started
// informer and only those, synced or not; its error names exactly the
// unsynced ones, with their source's error; an informer that cannot sync
// does not hold back the others' reports; before Start there is nothing to
// wait for.
func TestFactoryWaitForCacheSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"}, gadgetState{"b", "g2", "red", "web"})
		api.forbidden["secret"] = true
		f := newFakeFactory(t, api, quietOpts())
		defer f.Shutdown()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a"})
		res, err := f.WaitForCacheSync(ctx) // nothing started: nothing to wait for
		if len(res) != 0 || err != nil {
			t.Errorf("before Start: %v, %v; want nothing", res, err)
		}

		f.Start(ctx)
		mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "secret"}) // started at once, never syncs
		mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "b"})
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		defer wcancel()
		start := time.Now()
		res, err = f.WaitForCacheSync(wctx)
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("WaitForCacheSync returned after %v, want the wait's end (30s)", d)
		}
		got := map[string]bool{}
		for _, r := range res {
			got[r.Informer] = r.Synced
			if r.Synced != (r.Err == nil) {
				t.Errorf("%s: Synced %v with Err %v", r.Informer, r.Synced, r.Err)
			}
		}
		want := map[string]bool{
			"gadgets.example.com/v1 in a":      true,
			"gadgets.example.com/v1 in b":      true,
			"gadgets.example.com/v1 in secret": false,
		}
		if !maps.Equal(got, want) {
			t.Errorf("results %v, want %v", got, want)
		}
		if err == nil || !strings.Contains(err.Error(), "in secret") || strings.Contains(err.Error(), "in a:") || strings.Contains(err.Error(), "in b:") {
			t.Errorf("error %v, want one naming only the informer of namespace secret", err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v does not match the wait's end", err)
		}
		if !strings.Contains(fmt.Sprint(err), "403") && !strings.Contains(fmt.Sprint(err), "orbidden") {
			t.Errorf("error %v does not carry the source's 403", err)
		}
	})
}

// TestFactoryStartTwice: a second Start starts only the informers not yet
// running: one watch per informer still.
func TestFactoryStartTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"})
		f := newFakeFactory(t, api, quietOpts())
		defer f.Shutdown()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		ref := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a"})
		syncAll(t, ctx, f)
		f.Start(ctx)
		synctest.Wait()
		if n, l := api.watchesOn(gadgetPath("a")), api.listsOf(gadgetPath("a")); n != 1 || l != 1 {
			t.Errorf("after a second Start: %d watches and %d lists, want 1 and 1", n, l)
		}
		ref.Release() // the last: it stops the one informer that runs
		if n := api.watchesOn(gadgetPath("a")); n != 0 {
			t.Errorf("%d watches after the last Release, want 0", n)
		}
	})
}

// TestFactoryShutdown: Shutdown stops every watch before it returns, and
// the factory makes no informer after it (ErrShutDown).
func TestFactoryShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"})
		f := newFakeFactory(t, api, quietOpts())
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		ref := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a"})
		mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "b"})
		syncAll(t, ctx, f)
		synctest.Wait()
		f.Shutdown()
		if got := api.openWatches(); len(got) != 0 {
			t.Errorf("open watches after Shutdown: %v", got)
		}
		if f.Len() != 0 {
			t.Errorf("Len %d after Shutdown", f.Len())
		}
		if _, err := typed.Informer(f, gadgets, typed.Options[*Gadget]{}); !errors.Is(err, typed.ErrShutDown) {
			t.Errorf("Informer after Shutdown: %v, want ErrShutDown", err)
		}
		ref.Release() // after Shutdown: nothing to do, and no hang
	})
}

// TestFactoryClusterScoped: a cluster-scoped resource ignores the factory's
// namespace, refuses one asked for (ErrClusterScoped), and its Lister says
// it is not namespaced.
func TestFactoryClusterScoped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"}, gadgetState{"b", "g2", "red", "web"})
		opts := quietOpts()
		opts.Namespace = "a"
		f := newFakeFactory(t, api, opts)
		defer f.Shutdown()
		clusterGadgets := gadgets
		clusterGadgets.Namespaced = false
		if _, err := typed.Informer(f, clusterGadgets, typed.Options[*Gadget]{Namespace: "b"}); !errors.Is(err, typed.ErrClusterScoped) {
			t.Errorf("a namespace of a cluster-scoped resource: %v, want ErrClusterScoped", err)
		}
		ref := mustInformer(t, f, clusterGadgets)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		syncAll(t, ctx, f)
		if n := api.listsOf(gadgetPath("")); n != 1 {
			t.Errorf("%d lists of the cluster-wide collection, want 1 (the factory's namespace ignored)", n)
		}
		if got := cachedNames(ref.Lister()); got != "g1,g2" {
			t.Errorf("cached %q, want g1,g2", got)
		}
		if ref.Lister().Namespaced() {
			t.Error("the Lister of a cluster-scoped resource says it is namespaced")
		}
		nsRef := mustInformer(t, f, gadgets)
		if err := nsRef.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		if l := nsRef.Lister(); !l.Namespaced() || len(l.Namespace("a").List(nil)) != 1 {
			t.Errorf("Lister of a namespaced resource: Namespaced %v, namespace a lists %d; want true, 1", l.Namespaced(), len(l.Namespace("a").List(nil)))
		}
	})
}

// TestFactoryIndexersAndOnErrorPerCaller: a later caller's indexes join the
// shared cache (one of a name already there keeps the first function); each
// caller's OnError hears the informer's errors until its Release, and the
// factory's OnError hears them with the informer's name.
func TestFactoryIndexersAndOnErrorPerCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"}, gadgetState{"a", "g2", "blue", "db"})
		api.forbidden["secret"] = true
		var mu sync.Mutex // the OnErrors run on the informers' goroutines
		var factoryErrs []string
		opts := quietOpts()
		opts.OnError = func(name string, err error) {
			mu.Lock()
			factoryErrs = append(factoryErrs, name)
			mu.Unlock()
		}
		f := newFakeFactory(t, api, opts)
		defer f.Shutdown()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		byColor := func(g *Gadget, dst []string) ([]string, error) { return append(dst, g.Spec.Color), nil }
		byApp := func(g *Gadget, dst []string) ([]string, error) { return append(dst, g.Labels["app"]), nil }
		first := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a", Indexers: map[string]informer.IndexFunc[*Gadget]{"color": byColor}})
		syncAll(t, ctx, f)
		second := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a", Indexers: map[string]informer.IndexFunc[*Gadget]{"color": byApp, "app": byApp}})
		for _, r := range []*typed.Ref[*Gadget]{first, second} {
			if got, err := r.Informer().Lister().ByIndex("color", "red"); err != nil || len(got) != 1 || got[0].Name != "g1" {
				t.Errorf("ByIndex(color, red): %v, %v; want g1 (the first function kept)", got, err)
			}
			if got, err := r.Informer().Lister().ByIndex("app", "db"); err != nil || len(got) != 1 || got[0].Name != "g2" {
				t.Errorf("ByIndex(app, db): %v, %v; want g2 (the later caller's index)", got, err)
			}
		}

		var errs [2]atomic.Int32
		one := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "secret", OnError: func(error) { errs[0].Add(1) }})
		two := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "secret", OnError: func(error) { errs[1].Add(1) }})
		defer two.Release()
		time.Sleep(time.Minute) // the reflector retries the 403 with backoff
		synctest.Wait()
		if errs[0].Load() == 0 || errs[1].Load() == 0 {
			t.Fatalf("OnError calls %d and %d, want some for each caller", errs[0].Load(), errs[1].Load())
		}
		mu.Lock()
		if len(factoryErrs) == 0 || factoryErrs[0] != "gadgets.example.com/v1 in secret" {
			t.Errorf("the factory's OnError heard %q", factoryErrs)
		}
		mu.Unlock()
		one.Release()
		before := [2]int32{errs[0].Load(), errs[1].Load()}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n := errs[0].Load(); n != before[0] {
			t.Errorf("a released caller's OnError was called %d more times", n-before[0])
		}
		if errs[1].Load() == before[1] {
			t.Error("the remaining caller's OnError heard nothing more")
		}
	})
}

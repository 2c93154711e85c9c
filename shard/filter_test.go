package shard_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

type obj = metav1.PartialObjectMetadata

func newObj(i int) *obj {
	o := &obj{}
	o.Namespace, o.Name = "ns", fmt.Sprintf("o%04d", i)
	o.UID = types.UID(fmt.Sprintf("uid-%d", i))
	return o
}

// TestFilterPartitions: n filters of equal ranges over one Source hold
// every object exactly once, through lists and watches (adds, updates,
// deletes), each with its informer.
func TestFilterPartitions(t *testing.T) {
	for _, hash := range []struct {
		name string
		fn   shard.HashFunc[*obj]
	}{{"uid", shard.ByUID[*obj]}, {"key", shard.ByKey[*obj]}} {
		t.Run(hash.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*obj](memory.Options{})
				for i := range 300 {
					if err := src.Create(newObj(i)); err != nil {
						t.Fatal(err)
					}
				}
				const n = 3
				ctx, cancel := context.WithCancel(t.Context())
				var infs []*informer.Informer[*obj]
				var filters []*shard.Filter[*obj]
				done := make(chan struct{}, n)
				for i := range n {
					f := shard.NewFilter(src, shard.NewSet(shard.Split(n, i)), shard.FilterOptions[*obj]{Hash: hash.fn})
					inf := informer.New(f, informer.Options[*obj]{})
					filters, infs = append(filters, f), append(infs, inf)
					go func() { _ = inf.Run(ctx); done <- struct{}{} }()
				}
				synctest.Wait()
				for i := 300; i < 400; i++ { // watched adds
					_ = src.Create(newObj(i))
				}
				for i := 0; i < 100; i++ { // watched deletes
					_ = src.Delete(fmt.Sprintf("ns/o%04d", i))
				}
				for i := 100; i < 200; i++ { // watched updates
					o := newObj(i)
					o.Labels = map[string]string{"v": "2"}
					_ = src.Update(o)
				}
				synctest.Wait()
				owner := map[string]int{}
				for i, inf := range infs {
					for _, o := range inf.Lister().List(nil) {
						k, _ := informer.MetaKey(o)
						if j, dup := owner[k]; dup {
							t.Fatalf("%s held by %d and %d", k, j, i)
						}
						owner[k] = i
						if !filters[i].Set().Contains(hash.fn(o)) {
							t.Fatalf("%s held by %d outside its set", k, i)
						}
					}
				}
				if len(owner) != 300 {
					t.Fatalf("held %d objects, want 300", len(owner))
				}
				var seen, dropped int64
				for _, f := range filters {
					s, d := f.Counts()
					seen, dropped = seen+s, dropped+d
				}
				if dropped == 0 || dropped >= seen {
					t.Fatalf("counts: seen %d dropped %d", seen, dropped)
				}
				cancel()
				for range n {
					<-done
				}
			})
		})
	}
}

// TestFilterMutable: with a hash of a field that changes, an object
// that moves out of a filter's Set is deleted from its informer.
func TestFilterMutable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*obj](memory.Options{})
		byLabel := shard.ByField(func(o *obj) string { return o.Labels["team"] })
		// the team whose hash is in the lower half, and one in the upper
		in, out := "", ""
		for i := 0; in == "" || out == ""; i++ {
			s := fmt.Sprintf("team%d", i)
			if shard.Hash(s) < 1<<63 {
				in = s
			} else {
				out = s
			}
		}
		o := newObj(1)
		o.Labels = map[string]string{"team": in}
		_ = src.Create(o)
		for _, mutable := range []bool{false, true} {
			f := shard.NewFilter(src, shard.NewSet(shard.Split(2, 0)), shard.FilterOptions[*obj]{Hash: byLabel, Mutable: mutable})
			inf := informer.New(f, informer.Options[*obj]{})
			ctx, cancel := context.WithCancel(t.Context())
			go func() { _ = inf.Run(ctx) }()
			synctest.Wait()
			if n := len(inf.Lister().List(nil)); n != 1 {
				t.Fatalf("holds %d, want 1", n)
			}
			o2 := newObj(1)
			o2.Labels = map[string]string{"team": out}
			_ = src.Update(o2)
			synctest.Wait()
			want := 1 // without Mutable the move is not seen
			if mutable {
				want = 0
			}
			if n := len(inf.Lister().List(nil)); n != want {
				t.Fatalf("Mutable %v: holds %d after the move, want %d", mutable, n, want)
			}
			o3 := newObj(1)
			o3.Labels = map[string]string{"team": in}
			_ = src.Update(o3)
			cancel()
			synctest.Wait()
		}
	})
}

// TestFilterKeepsVersionMoving: writes to other shards only still move
// the member's informer's version on (dropped events become Bookmarks),
// so WaitForResourceVersion returns for them.
func TestFilterKeepsVersionMoving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*obj](memory.Options{})
		set := shard.NewSet(shard.Split(2, 0))
		f := shard.NewFilter(src, set, shard.FilterOptions[*obj]{Hash: shard.ByUID[*obj]})
		inf := informer.New(f, informer.Options[*obj]{})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() { _ = inf.Run(ctx) }()
		synctest.Wait()
		n := 0
		for i := 0; n < 20; i++ {
			if o := newObj(i); !set.Contains(shard.ByUID(o)) {
				_ = src.Create(o)
				n++
			}
		}
		wctx, wcancel := context.WithTimeout(ctx, time.Minute)
		defer wcancel()
		if err := inf.WaitForResourceVersion(wctx, src.ResourceVersion()); err != nil {
			t.Fatalf("the informer did not reach the last write to another shard: %v", err)
		}
		if len(inf.Lister().List(nil)) != 0 {
			t.Fatal("holds objects of another shard")
		}
	})
}

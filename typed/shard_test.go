package typed_test

import (
	"context"
	"testing"

	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/typed"
)

// TestFactoryShard: FactoryOptions.Shard shards the factory's informers.
// The fake server ignores shardSelector, as one without the feature gate
// does, so the Source filters on the client; its gadgets have no uid,
// and the hash of "" falls in the upper half of the space.
func TestFactoryShard(t *testing.T) {
	if !shard.NewSet(shard.Split(2, 1)).Contains(shard.Hash("")) {
		t.Fatal("the hash of \"\" is not in the upper half")
	}
	for i, want := range []int{0, 3} {
		a := newFakeAPI(gadgetState{"ns", "a", "red", "x"}, gadgetState{"ns", "b", "red", "x"}, gadgetState{"ns", "c", "red", "x"})
		f := newFakeFactory(t, a, typed.FactoryOptions{Shard: shard.NewSet(shard.Split(2, i))})
		ref, err := typed.Informer(f, gadgets, typed.Options[*Gadget]{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)
		if _, err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := len(ref.Lister().List(nil)); got != want {
			t.Errorf("half %d holds %d gadgets, want %d", i, got, want)
		}
		if st := ref.ShardStats(); st.Selector == "" || st.Received != 3 || st.Dropped != int64(3-want) {
			t.Errorf("half %d: ShardStats %+v, want a selector, 3 received, %d dropped", i, st, 3-want)
		}
		cancel()
		f.Shutdown()
	}
}

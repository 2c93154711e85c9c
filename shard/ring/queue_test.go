package ring_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/shard/ring"
	"github.com/informer-go/informer/workqueue"
)

// TestRingPruneQueue: a member whose queue outlives its assignments (its
// keys requeued every second, so that they are always in it) works,
// after a second member joins, only the keys of its new ranges: the
// others are dropped from its queue before its new assignment starts.
// Without PruneQueue it goes on working the keys that moved away, which
// the other member works too.
func TestRingPruneQueue(t *testing.T) {
	byHash := func(a ring.Assignment, key string) bool { return a.Ranges.Contains(shard.Hash(key)) }
	tests := []struct {
		name      string
		prune     bool
		owns      func(ring.Assignment, string) bool
		wantStray bool
	}{
		{"owns by hash", true, byHash, false},
		{"drop every key", true, nil, false},
		{"no pruning", false, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var keys []string
				for i := range 200 {
					keys = append(keys, fmt.Sprintf("ns/k%d", i))
				}
				var mu sync.Mutex
				var stray []string
				h := newHarness(t)
				newWork := func() func(context.Context, ring.Assignment) {
					q := workqueue.New(workqueue.Options[string]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
					t.Cleanup(q.ShutDown)
					work := func(ctx context.Context, a ring.Assignment) {
						for _, k := range keys { // the informer's initial list
							if a.Ranges.Contains(shard.Hash(k)) {
								q.Add(k)
							}
						}
						a.Synced()
						h.rec.run(a, func() {
							_ = q.Run(ctx, 2, func(_ context.Context, k string) error {
								if !a.Ranges.Contains(shard.Hash(k)) {
									mu.Lock()
									stray = append(stray, fmt.Sprintf("%s#%d %s", a.Identity, a.Epoch, k))
									mu.Unlock()
								}
								return workqueue.RequeueAfter(time.Second)
							})
						})
					}
					if tt.prune {
						return ring.PruneQueue(q, tt.owns, work)
					}
					return work
				}
				h.startWith("a", newWork())
				h.settle(10 * time.Second)
				h.startWith("b", newWork())
				h.settle(10 * time.Second)
				time.Sleep(3 * time.Second)
				h.check()
				mu.Lock()
				defer mu.Unlock()
				if got := len(stray) > 0; got != tt.wantStray {
					t.Fatalf("keys worked outside their member's ranges: %d (first: %v), want any: %v", len(stray), stray[:min(3, len(stray))], tt.wantStray)
				}
			})
		})
	}
}

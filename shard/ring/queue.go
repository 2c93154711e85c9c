package ring

import "context"

// Retainer is a work queue that can drop keys; *workqueue.Queue[K] is
// one.
type Retainer[K comparable] interface {
	Retain(keep func(key K) bool) int
}

// PruneQueue adapts work for a queue kept across assignments (to keep
// its keys' backoff and delays): the returned work function first drops
// from q every key the new assignment does not own, then runs work. Run
// calls it only once the previous assignment's work has returned, so
// nothing else works q's keys then, and before work starts the new
// assignment's informers, which enqueue its keys as they sync.
//
// owns reports whether key lies in a.Ranges. nil drops every key: what a
// source sharded by uid needs, since its keys (namespace/name) do not
// tell their hash. A queue made inside work needs none of this: it is
// dropped with the assignment. Not for Options.Incremental, whose pieces
// run at once: each needs a queue of its own.
func PruneQueue[K comparable](q Retainer[K], owns func(a Assignment, key K) bool, work func(context.Context, Assignment)) func(context.Context, Assignment) {
	return func(ctx context.Context, a Assignment) {
		keep := func(K) bool { return false }
		if owns != nil {
			keep = func(k K) bool { return owns(a, k) }
		}
		if n := q.Retain(keep); n > 0 && a.log != nil {
			a.log.Info("ring: dropped the queued keys of ranges gone", "keys", n, "epoch", a.Epoch)
		}
		work(ctx, a)
	}
}

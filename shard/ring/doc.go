// Package ring shares a hash space (package shard) between the replicas
// of a controller through coordination.k8s.io/v1 Leases, one per member,
// so that each replica caches and works only its part of a collection.
//
//	lc, _ := ring.NewLeaseClient(cfg, kube.ClientOptions{})
//	m, _ := ring.New(lc, ring.Options{Namespace: "kube-system", Name: "my-controller"})
//	err := m.Run(ctx, func(ctx context.Context, a ring.Assignment) {
//		f, _ := typed.NewFactory(cfg, typed.FactoryOptions{Shard: a.Ranges})
//		// informers, a queue and its workers over a.Ranges, until ctx ends
//	})
//
// The rules:
//
//   - Each member renews its own Lease every RetryPeriod (2 s), labelled
//     with the ring's name (LabelRing), and reads the others' Leases. A
//     member whose Lease has not changed for LeaseDuration (15 s), by the
//     reader's clock, is dead.
//   - Ranges follow from the live members alone (Assign): the hash space
//     in equal ranges, in the order of the sorted identities. Every member
//     computes the same, once their views agree.
//   - A Lease claims the ranges its member works (AnnotationClaim). A
//     member starts work only in ranges nobody else claims: it writes its
//     claim first, then reads the others' again, so of two members
//     claiming at once at least one sees the other (the API server's
//     writes are linearizable), keeps out, and withdraws its claim on
//     what it did not start at once: the other may have kept out too.
//   - Handoff: when its ranges change, a member cancels its work, waits
//     for it to return (workers drained, queue dropped), and only then
//     writes its smaller claim; the new owner starts after it reads that.
//   - Death: a dead member's claim is ignored once the member is evicted:
//     another deletes its Lease, conditional on the resourceVersion it saw
//     unchanged for LeaseDuration. A member that renewed since is not
//     evicted (409 Conflict), and an evicted one learns it at its next
//     renewal (404) and joins again.
//   - Fencing: a member that could not renew for RenewDeadline (10 s)
//     cancels its work (ErrLeaseLost), before LeaseDuration has passed for
//     anyone else: a partitioned or paused member stops before its ranges
//     are taken, as long as its work returns within LeaseDuration −
//     RenewDeadline. Assignment.Epoch with the identity names each
//     assignment, for writes that must be fenced on the server too.
//
// Member.Health reports the member's ranges and claim, the live members
// as it sees them, whether the work has called Assignment.Synced, and the
// last renewal.
//
// Limits: any change of a member's ranges restarts its work over the new
// ranges as a whole (the part it keeps is listed again too, which with
// the server's shard filter is 1/N of the collection). With
// Options.Incremental the work runs once per piece instead, and a change
// stops only the pieces that lose ranges: after a death the survivors
// only grow, and their work goes on while a new piece syncs what they
// gained. Make the work
// queue inside the work function, as the example does, and it goes with
// the assignment; a queue kept across assignments must be pruned of the
// keys that moved away: wrap the work function with PruneQueue. Fencing rests on time,
// as the leader election's does: a process paused for longer than
// LeaseDuration − RenewDeadline in the middle of a write defeats it;
// writes that must be fenced on the server can carry Identity and Epoch.
//
// After a death, the dead member's ranges are worked again within
// LeaseDuration plus RetryPeriod (how late the others may have read its
// last renewal) plus the time to sync the new ranges: a member reads the
// Leases again the moment one would expire, and every RetryPeriod/4 while
// it waits for others to release ranges. After a graceful leave (Run's
// context ends: the member deletes its Lease), within about RetryPeriod
// plus that sync.
package ring

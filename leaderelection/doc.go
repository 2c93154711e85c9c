// Package leaderelection elects one leader among the replicas of a
// controller through a coordination.k8s.io/v1 Lease, as client-go's
// leader election does, without client-go: an Elector campaigns for the
// lease and runs a function while it holds it.
//
//	lc, _ := leaderelection.NewLeaseClient(cfg, kube.ClientOptions{}) // a rate limiter of its own
//	el, _ := leaderelection.New(lc, leaderelection.Options{Namespace: "kube-system", Name: "my-controller"})
//	err := el.Run(ctx, func(ctx context.Context) {
//		// lead until ctx ends
//	})
//
// The rules:
//
//   - The leader renews the lease every RetryPeriod (2 s). Its function's
//     context is cancelled, with cause ErrLeaseLost, the moment
//     RenewDeadline (10 s) has passed since the start of its last
//     successful renewal, or it sees another holder.
//   - A candidate takes the lease when it is free (released, or never
//     created), or when it has not seen the lease change for
//     LeaseDuration (15 s), by its own clock: clocks need not agree.
//   - Every write is conditional on the resourceVersion read (optimistic
//     concurrency): of two candidates writing at once, one gets 409
//     Conflict and goes on waiting.
//   - On shutdown (Run's context ends) the leader cancels its function,
//     waits for it to return, then releases the lease, so that a successor
//     takes over at once instead of after LeaseDuration; a server that
//     does not answer delays Run's return by ReleaseTimeout (2 s) at most.
//   - The transitions are logged (log/slog) and reported to the
//     OnNewLeader and OnStoppedLeading callbacks; Leader and IsLeader say
//     the current state. Attempts that fail (a 403 for want of RBAC on
//     leases, a server out of reach) are logged at Warn, summarised, and
//     LastError and Health say why a candidate does not lead: serve
//     Health().Err() on /healthz.
//   - The function may run a workqueue.Queue that lives across terms:
//     Queue.Run returns when the term's context ends and runs again in
//     the next term, with what was queued meanwhile.
//
// Because RenewDeadline < LeaseDuration, a leader cut off from the server
// stops before any other candidate may start: there are never two leaders
// as long as the function returns promptly when its context ends and the
// process is not frozen for longer than the difference.
package leaderelection

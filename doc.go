// Package informer keeps a local, indexed, always-current cache of remote
// objects and tells handlers what changed: the informer machinery of
// Kubernetes client-go, rebuilt with generics, typed all the way down.
//
// # Data flow
//
//	Source[T]        a backend: one page of a list, or a watch stream, at a time
//	Reflector[T]     lists, then watches from the list's resourceVersion; resumes after a
//	                 drop; lists again when the version expired; backs off on errors
//	DeltaFIFO[T]     the changes per key, in order; a relist turns objects that vanished
//	                 into deletions whose final state is unknown
//	Informer[T]      applies each batch of changes to the Indexer, then hands one
//	                 notification per change to every handler's listener
//	listener         a queue per handler, drained by one goroutine calling the Handler
//
// Indexer[T] is the cache, with named indexes; Lister[T] is its read-only
// view. Each piece is usable on its own.
//
// # Architecture
//
// The files are named by stage, one prefix each, in the order of the table
// above: source*.go, reflector*.go, deltafifo*.go, informer*.go,
// indexer*.go, listener.go and handler.go; errors.go, object.go and
// metrics.go are shared, and snapshot*.go saves and restores a cache. One
// object, from the wire to a handler:
//
//  1. The Source (source.go; source_version.go for the order of its
//     versions) returns a page of a List or an Event from a Watcher.
//  2. Reflector.Run (reflector.go) asks step (reflector_machine.go: the
//     state, a list cursor and the Source's health, and the policy) what
//     to do next, performs it, and hands step the outcome. A page goes
//     through listPage (reflector.go); a watch or streaming list is read
//     by a stream (reflector_stream.go), whose end pure functions sort
//     into an outcome (reflector_outcome.go). What the reflector publishes
//     (its version, Health) is in reflector_health.go, with
//     reflector_lasterror.go, reflector_skipped.go and
//     reflector_activity.go; what it reports (logs, OnError, Report) in
//     reflector_report.go; its waits in reflector_backoff.go; its options
//     and the Sink it writes to in reflector_options.go.
//  3. The Informer's Sink (informer_sink.go) applies Options.Transform and
//     queues the object in the DeltaFIFO: deltafifo.go for the queue,
//     deltafifo_replace.go for relists, deltafifo_keys.go for its keys
//     (the queued ones and, over an Indexer, the cached ones),
//     deltafifo_pop.go for taking a batch and learning where the
//     consumer stored each key.
//  4. The process loop (informer_process.go) pops a batch, applies it to
//     the Indexer (indexer_batch.go; the storage in indexer.go and
//     indexer_slots.go, the indexes in indexer_index.go and their buckets
//     in indexer_bucket.go, reads in
//     indexer_read.go and indexer_lister.go), moves the applied version on
//     (informer_applied.go), and pushes one notification per change to each
//     handler's listener.
//  5. The listener (listener.go) queues the notifications of one handler
//     and calls its Handler (handler.go) from its own goroutine.
//
// Run and the informer's lifecycle are in informer.go, its options in
// informer_options.go, handlers joining and leaving in informer_handlers.go,
// resync in informer_resync.go, the mutation detector in
// informer_mutation.go.
//
// # Guarantees
//
// Each guarantee is proven by the test named after it, in
// guarantees_test.go.
//
//  1. Order (TestGuarantee1PerKeyOrder). Per key, a handler sees states in
//     the source's order: a state may be skipped (by a relist, or by the
//     coalescing policy of HandlerOptions.CoalesceAbove), never reordered,
//     and never an older state after a newer one.
//  2. Cache first (TestGuarantee2CacheBeforeNotification). The cache is
//     updated before the notification for a change is handed out: a handler
//     that reads the Lister sees at least that state.
//  3. Vanished objects (TestGuarantee3VanishedObjectsDeleted). Every object
//     that vanished while the watch was down is deleted from the cache and
//     reported to handlers as OnDelete with Deleted.FinalStateUnknown set and
//     the last known state, typed, never hidden in an any.
//  4. Sync (TestGuarantee4HasSynced). Informer.HasSynced: the first full
//     list is in the cache. Registration.HasSynced: that handler has also
//     returned from every notification of the initial list. Waiting
//     (WaitForSync, WaitForCacheSync) is event-driven, never polling.
//  5. Slow handlers (TestGuarantee5SlowHandler). A slow handler never blocks
//     the cache, other handlers, or the watch. What it costs in memory is
//     the policy chosen with HandlerOptions.CoalesceAbove: unbounded by
//     default (17 bytes per pending notification for pointer types),
//     or bounded by the number of keys: a notification for a key already
//     queued is folded into it (add or update then update is one add or
//     update with the first one's old object, add or update then delete
//     is the delete, delete then add stays two).
//  6. Shutdown (TestGuarantee6Shutdown). After ctx is cancelled, Run
//     returns once every goroutine it started has exited; no handler call is
//     in progress then, and none is made afterwards.
//  7. Panics (TestGuarantee7PanicContained). A panic in a handler is
//     recovered and reported (Options.OnError with a *HandlerPanicError, and
//     the log); that handler goes on receiving later notifications, and
//     other handlers are unaffected.
//
// # Sharing
//
// Objects in the cache and in notifications are shared by every reader and
// handler, and their parts may be shared between objects (source/kube
// decodes byte-for-byte identical containers, volumes, label maps... into
// one value): never write into them, nor into anything reachable from
// them; deep-copy first. A handler may read, keep and pass on the objects
// it gets (they never change: a later state is a new object); it may not
// set a field, append to or write an element of a slice, set or delete a
// map key, or write through a pointer, of the object or of anything
// reachable from it, even for a moment. A shallow copy (c := *pod) may
// have its own fields replaced (c.Labels = newMap), but what it shares
// with the original (c.Labels["x"] = "y") stays read-only.
//
// What a write does anyway: with client-go, or source/kube with
// SharingOff, it changes the one object, in the cache and for every
// handler, until its next change; with sharing (the default) it changes
// every object that holds the written value now (the pods of one
// Deployment share their labels, containers, env...). Objects decoded
// afterwards are never affected: source/kube checks each shared value
// before handing it out again, decodes afresh the one found written
// into, and reports it (a SharedWriteError to OnError and the log,
// Health.Mutations).
//
// The mutation detector (Options.DetectMutations, or the environment
// variable INFORMER_MUTATION_DETECTOR: "1" reports, "panic" panics, as
// this project's tests run) keeps a deep copy of every object put in the
// cache and reports a *MutationError when one changed: at the key's next
// change and when Run ends. It catches what source/kube's sharing guard
// does not: a write into any part of any object, shared or not, and the
// object written into (the guard names the object whose decode met the
// written value, if its bytes come again).
//
// Handlers and every other function a user gives the library (key, index
// and transform functions, OnError) are never called while the library
// holds a lock.
//
// # Errors
//
// Errors are typed and wrap sentinels: errors.Is(err, ErrExpired) and
// friends, errors.As with *SourceError, *ObjectError, *KeyError,
// *IndexError and *HandlerPanicError. An informer reports them to
// Options.OnError and to its slog.Logger, and recovers by itself: invalid
// objects are skipped, failed calls are retried with backoff, and an expired
// resourceVersion leads to a relist. Retrying also covers errors only a
// person can fix (a resource not installed yet, missing RBAC grants), so
// they are kept visible: Informer.LastError returns the last error from the
// Source, and a WaitForSync or WaitForCacheSync that ends with its context
// returns the context's error joined with it. Informer.Health gives the
// whole picture: synced, listing, watching or backing off (until when), the
// time since the source last showed life, consecutive failures, and the
// unreadable events a watch skipped (ErrSkippedEvents): each may have been
// a change the cache lacks, so the reflector lists again within a second,
// and until that list is in, Health is not Healthy, LastError says so, and
// the applied version (WaitForResourceVersion) does not move on.
//
// # Recovery
//
// The Reflector's policy is a state machine: Run performs an action, and
// one pure function (step, in reflector_machine.go, proven row by row by
// reflector_machine_test.go) decides from what came of it the next state and
// action. Its states and transitions:
//
//	             ┌───────── unsupported (for good), or an unreadable object (once) ──────────┐
//	             │                                                                          ▼
//	start ──► STREAMING LIST ── initial events end ──┐          LIST page ── more pages ──► LIST page
//	             │  (WatchList)                      │           │  later page fails: WAIT 50ms·2ⁿ, same page (4×)
//	             │                                   ▼           │  its token expires: one unpaged LIST, at once
//	             │                              ┌─► WATCH ◄──────┘ last page
//	             │                              │    │
//	             │                              │    ├─ ended, or broke after progress ──► WATCH, at once
//	             │                              │    ├─ failed, no progress ──► WAIT backoff ──► WATCH
//	             │                              │    ├─ 3rd in a row to end within 1 s of its start ──► WAIT backoff ──► WATCH
//	             │                              └────┘
//	             │                                   ├─ expired, the first time after progress ──┐ at once
//	             │                                   ├─ expired right after a paged LIST ────────┤ at once, unpaged
//	             │                                   ├─ an unreadable event, 1 s later (or at ───┤ at once; after WAIT
//	             │                                   │  the 8th, or at the stream's end) ────────┤ backoff if repeated
//	             │                                   ├─ expired again, out of order,             │
//	             │                                   │  3 watches in a row empty or stalled ─────┤ after WAIT backoff
//	             │                                   ▼                                           ▼
//	             └─ fails: WAIT backoff (the initial delay if cut half way, 4×) ──► relist from the latest
//	                                                                                (STREAMING LIST or LIST)
//
// Backoff: capped, jittered, exponential (ReflectorOptions.Backoff); it
// starts over after a completed list (unless lists keep expiring before
// any progress) and after every watch that delivered or stayed open a
// second, but not after watches that keep ending within a second of their
// start (3 in a row: each then counts as a failure, which bounds the rate
// of reconnections to a server that ends every stream after an event, and
// Health says so), nor after one whose first event is out of order (a
// service that replays its history), and the first 4 failures after such a watch wait the initial
// delay (a burst of errors costs a fraction of a second once it is over). Heartbeats (WatchOptions.Heartbeat), bookmarks and events are
// liveness: a watch alive past its deadline ends like a timeout, one silent
// past it is stalled.
//
// A reflector started from a restored snapshot (Informer.Restore,
// ReflectorOptions.ResumeFrom) begins at WATCH from the snapshot's version
// instead of a list: a watch that delivers, or stays open, confirms it;
// expired, it relists at once; refused three times in a row in any other
// way (a server that lost its history may say "too large" or nothing), it
// relists too. Handlers get the restored objects as initial adds, then
// only the changes since the snapshot. See Informer.Restore for when such
// a cache counts as synced, and snapshot_format.go for the file format.
package informer

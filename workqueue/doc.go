// Package workqueue is a typed, rate-limited work queue for controllers,
// and the loop that joins an informer to it.
//
// Handlers do not do work themselves: they put keys on a Queue (Enqueue
// does it for every change of an informer), and workers take keys, bring
// the world in line with the cache (reconcile), and mark them done
// (Queue.Run is that loop). It is the model of client-go's
// util/workqueue, generic and context-first.
//
// # Guarantees
//
//  1. A key is processed by at most one worker at a time: between Get
//     handing it out and Done, Get does not hand it out again.
//  2. A key added while it is processed is queued again once, when Done is
//     called, so the change that caused the Add is not missed.
//  3. A key added while it is already queued coalesces with the pending
//     one: Len counts it once and Get hands it out once.
//  4. Otherwise keys are handed out first in, first out.
//  5. AddAfter delays a key with one heap and one timer for the whole
//     queue: no goroutine per key. A key waiting keeps its earliest due
//     time.
//  6. Get waits event-driven, and returns when a key arrives, when ctx ends
//     or when the queue is shut down and empty. Run returns when ctx ends
//     with no goroutine left, and leaves the queue's keys for the next Run
//     (a leader's next term); the queue starts none of its own (the delay
//     timer's callback runs only when a key is due, and not after
//     ShutDown).
//  7. Steady-state Add, Get and Done allocate nothing; callbacks (metrics,
//     rate limiters, OnError) are never called under the queue's lock.
//
// # Rate limiting
//
// AddRateLimited asks the queue's RateLimiter how long a key should wait
// before its next attempt, Forget resets it after a success. The default,
// DefaultRateLimiter, is client-go's controller default: the larger of a
// per-key exponential backoff (5 ms doubling to 1000 s) and a token bucket
// over all keys (10 a second, bursts of 100). ExponentialBackoff,
// TokenBucket and MaxOf build others.
//
// # Metrics and logs
//
// Options.Metrics takes callbacks for depth, adds, queue latency, work
// duration and retries, and Queue.Processing reports the keys being
// processed (how many, the longest running, their unfinished work), so any
// metrics system can record them without this package depending on one
// (metrics/prometheus and metrics/otel do, under client-go's names). Run logs failed and panicking reconciles through
// log/slog, naming the key (never an object's content).
package workqueue

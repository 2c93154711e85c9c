package workqueue

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// PanicError is what Run reports when a reconcile panicked: the key is
// retried like after an error.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the panicking goroutine's stack.
	Stack []byte
}

// Error says that the reconcile panicked and with a value of which type;
// the value itself is not quoted, since it may hold object data.
func (e *PanicError) Error() string {
	return fmt.Sprintf("workqueue: reconcile panicked (a %T)", e.Value)
}

// Run processes the queue with the given number of workers (at least
// one) until ctx ends or the queue is shut down, and returns once every
// worker has returned: no goroutine is left behind. When ctx ends, each
// worker finishes the key it holds (its reconcile sees ctx cancelled)
// and Run returns context.Cause(ctx), leaving the queue as it is: keys
// queued, delayed or backing off stay, Add goes on queuing, and the next
// Run picks them up. So one queue serves every term of a leader
// (leaderelection.Elector.Run calls Run again after a lost and regained
// lease). Run returns nil once the queue is shut down (ShutDown) and
// drained.
//
// Each worker takes a key with Get, calls reconcile(ctx, key) and calls
// Done. A nil error forgets the key's backoff (Forget); a *Requeue
// (RequeueAfter) forgets it too and adds the key back after its delay,
// not as a failure; another error, or a
// panic (recovered and reported as a *PanicError), is passed to
// Options.OnError, logged with the key and the number of retries, and the
// key is added back with AddRateLimited. The queue guarantees that no key
// is reconciled by two workers at once, also across Runs.
func (q *Queue[K]) Run(ctx context.Context, workers int, reconcile func(ctx context.Context, key K) error) error {
	workers = max(workers, 1)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				key, err := q.Get(ctx)
				if err != nil {
					return
				}
				q.work(ctx, key, reconcile)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	return nil
}

// work reconciles one key and settles it: Forget on success,
// AddRateLimited on error or panic; Done in every case.
func (q *Queue[K]) work(ctx context.Context, key K, reconcile func(context.Context, K) error) {
	defer q.Done(key)
	err := call(ctx, key, reconcile)
	if err == nil {
		q.Forget(key)
		return
	}
	var rq *Requeue
	if errors.As(err, &rq) {
		q.Forget(key)
		q.AddAfter(key, rq.After)
		return
	}
	if q.opts.OnError != nil {
		q.opts.OnError(key, err)
	}
	retries := q.NumRequeues(key)
	var pe *PanicError
	if errors.As(err, &pe) {
		q.log.Error("workqueue: reconcile panicked; retrying", "key", key, "retries", retries, "panic", fmt.Sprintf("%T", pe.Value), "stack", string(pe.Stack))
	} else if ctx.Err() == nil {
		q.log.Warn("workqueue: reconcile failed; retrying", "key", key, "retries", retries, "err", err)
	}
	q.AddRateLimited(key)
}

// call runs reconcile, turning a panic into a *PanicError.
func call[K comparable](ctx context.Context, key K, reconcile func(context.Context, K) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return reconcile(ctx, key)
}

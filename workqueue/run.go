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

// Run processes the queue with workers workers (at least one) until ctx
// ends or the queue is shut down, and returns once every worker has
// returned. Each worker takes a key (Get), calls reconcile and calls Done:
// a nil error or a *Requeue (RequeueAfter) forgets the key's backoff;
// another error or a panic (a *PanicError) goes to Options.OnError and the
// log, and the key is added back with AddRateLimited. No key is reconciled
// by two workers at once. When ctx ends, workers finish their keys and Run
// returns context.Cause(ctx), leaving the queue as it is for the next Run
// (a leader's next term); after ShutDown it returns nil once drained.
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

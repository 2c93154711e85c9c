package workqueue

import (
	"fmt"
	"time"
)

// Requeue is the result a reconcile returns, as an error, to be called
// again for the same key after a while without having failed: Run
// forgets the key's backoff (as after nil), calls AddAfter(key, After),
// and neither logs it nor passes it to OnError. Return one with
// RequeueAfter; Run finds it with errors.As, also wrapped.
type Requeue struct {
	// After is how long to wait; 0 or less queues the key at once.
	After time.Duration
}

// RequeueAfter returns a *Requeue: "done for now, come back in d", such
// as when waiting for something outside the cache, or to check again
// periodically.
func RequeueAfter(d time.Duration) error { return &Requeue{After: d} }

// Error says when the key is requeued.
func (r *Requeue) Error() string {
	return fmt.Sprintf("workqueue: requeue after %s", r.After)
}

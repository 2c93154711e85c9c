package kube

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/informer-go/informer/internal/kubewire"
)

// ErrInvalidArgument reports a call the Client refuses before sending
// anything: an empty or malformed name or namespace, an unknown patch
// type, an Apply without a field manager.
var (
	ErrInvalidArgument = errors.New("kube: invalid argument")
)

// IgnoreNotFound returns nil for an error matching ErrNotFound and err
// otherwise: a Delete of an object that is already gone is done.
func IgnoreNotFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Conflict retries of RetryOnConflict: client-go's default.
const (
	conflictAttempts = 5
	conflictDelay    = 10 * time.Millisecond
)

// RetryOnConflict calls fn until it returns anything but an error
// matching ErrConflict, at most 5 times, waiting about 10 ms between
// calls (as client-go's retry.RetryOnConflict with its default backoff),
// and returns its last error. fn must read the object afresh each time
// (a Get, or the informer's cache after WaitForResourceVersion) and apply
// its change to what it read:
//
//	err := kube.RetryOnConflict(ctx, func(ctx context.Context) error {
//		cm, err := client.Get(ctx, "ns", "name", kube.GetOptions{})
//		if err != nil {
//			return err
//		}
//		cm.Data["count"] = "2"
//		_, err = client.Update(ctx, cm, kube.WriteOptions{})
//		return err
//	})
//
// It stops with an error wrapping ctx.Err() when ctx ends.
func RetryOnConflict(ctx context.Context, fn func(ctx context.Context) error) error {
	var err error
	for attempt := range conflictAttempts {
		if attempt > 0 {
			d := conflictDelay + rand.N(conflictDelay/10+1)
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return errors.Join(kubewire.ContextError(ctx), err)
			case <-t.C:
			}
		}
		if err = fn(ctx); !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return err
}

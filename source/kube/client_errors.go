package kube

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/informer-go/informer"
)

// Sentinel errors of a Client's calls, besides those of a Source
// (ErrNotFound, ErrForbidden, ErrUnauthorized, ErrTooManyRequests, ...).
// Match them with errors.Is; the errors themselves are *APIError values
// with the server's Status.
var (
	// ErrConflict matches an *APIError for reason Conflict (or HTTP 409
	// without a reason): an Update or a Delete whose resourceVersion or
	// UID precondition no longer holds, or an Apply whose fields another
	// manager owns. Read the object again and retry: see
	// RetryOnConflict. An AlreadyExists 409 matches ErrAlreadyExists, not
	// ErrConflict.
	ErrConflict = errors.New("kube: conflict")
	// ErrAlreadyExists matches an *APIError for reason AlreadyExists: a
	// Create of a name that is taken.
	ErrAlreadyExists = errors.New("kube: already exists")
	// ErrInvalid matches an *APIError for reason Invalid (or HTTP 422
	// without a reason): the server refused the object's fields.
	// APIError.Causes lists them.
	ErrInvalid = errors.New("kube: invalid")
	// ErrGone matches an *APIError for HTTP 410 or the reasons Expired and
	// Gone: a resourceVersion or continue token too old to serve. It is
	// informer.ErrExpired, under the name of its HTTP status.
	ErrGone = informer.ErrExpired
	// ErrUnknownOutcome matches the error of a Client's write whose
	// outcome is not known: the connection failed, or the call's context
	// ended, after the request may have reached the server, or the server
	// answered 5xx. The write may have been applied: the Client does not
	// repeat it, and neither should the caller blindly: read the object
	// and decide (an Update with a resourceVersion, a Delete with
	// preconditions and an Apply are safe to repeat; a Create may then
	// fail with ErrAlreadyExists).
	ErrUnknownOutcome = errors.New("kube: outcome unknown: the write may have been applied")
	// ErrInvalidArgument reports a call the Client refuses before sending
	// anything: an empty or malformed name or namespace, an unknown patch
	// type, an Apply without a field manager.
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
				return errors.Join(contextError(ctx), err)
			case <-t.C:
			}
		}
		if err = fn(ctx); !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return err
}

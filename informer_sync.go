package informer

import "context"

// Syncer is anything that can wait to be synced: *Informer and
// *Registration.
type Syncer interface {
	WaitForSync(ctx context.Context) error
}

// WaitForCacheSync waits until every syncer has synced, without polling. It
// returns the first error: ctx's if it ends first (joined with the
// informer's LastError, the reason it has not synced, when there is one:
// errors.Is matches both), ErrStopped if an informer stops or a handler
// is removed first.
func WaitForCacheSync(ctx context.Context, syncers ...Syncer) error {
	for _, s := range syncers {
		if err := s.WaitForSync(ctx); err != nil {
			return err
		}
	}
	return nil
}

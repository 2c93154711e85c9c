package informer

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// lastError holds the last *SourceError the reflector reported, until
// the Source answers again: an event arrives, or a list completes (which
// does not clear the error of a watch, other than skipped events that the
// list repaired: a watch that fails behind good lists stays visible).
type lastError struct{ p atomic.Pointer[SourceError] }

func (l *lastError) set(err error) {
	var se *SourceError
	if errors.As(err, &se) {
		l.p.Store(se)
	}
}

// clear forgets the error; cheap when there is none (the event path).
func (l *lastError) clear() {
	if l.p.Load() != nil {
		l.p.Store(nil)
	}
}

// clearAfterList forgets the error once a list completed, unless it is
// a watch's failure (a watch that fails behind good lists stays visible);
// skipped events are a watch's error that the list repaired.
func (l *lastError) clearAfterList() {
	if se := l.p.Load(); se != nil && (se.Op != "watch" || errors.Is(se, ErrSkippedEvents)) {
		l.p.CompareAndSwap(se, nil)
	}
}

func (l *lastError) get() error {
	if se := l.p.Load(); se != nil {
		return se
	}
	return nil
}

// LastError returns the last error from the Source (a *SourceError: the
// list or watch that failed, wrapping the Source's error, such as a
// kube.APIError for a 404 or 403) since it last answered: it is nil
// before any error, and again once an event arrives, a watch has stayed
// open for a second, or a list completes (unless the error is a watch's:
// a watch that keeps failing behind good lists stays visible). The
// reflector retries every error; LastError says why an informer has not
// synced yet, or why it is not current. It is Health().LastError.
func (inf *Informer[T]) LastError() error { return inf.refl.lastError() }

// waitError is the error of a wait that ctx ended: ctx's error, joined
// with the last source error when there is one, so that a timeout says
// why (errors.Is matches both).
func waitError(ctx context.Context, last func() error) error {
	err := ctx.Err()
	if last == nil {
		return err
	}
	if le := last(); le != nil {
		return fmt.Errorf("%w; the last source error: %w", err, le)
	}
	return err
}

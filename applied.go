package informer

import (
	"context"
	"sync"
)

// applied tracks the resourceVersion the cache has caught up with, and
// wakes those waiting for one.
type applied struct {
	mu      sync.Mutex
	rv      string
	changed chan struct{} // closed and replaced when rv changes
}

func (a *applied) get() (string, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.changed == nil {
		a.changed = make(chan struct{})
	}
	return a.rv, a.changed
}

func (a *applied) set(rv string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if rv == "" || rv == a.rv || newVersion(rv).olderThan(newVersion(a.rv)) {
		return
	}
	a.rv = rv
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
}

// AppliedResourceVersion returns the resourceVersion the cache has caught
// up with: every change the informer had read from its Source up to that
// version is in the cache (and handed to the handlers), so the Lister
// shows that state or a newer one. "" before the first list is in.
// LastSyncResourceVersion, in contrast, is what the reflector has read,
// which may still wait in the queue.
func (inf *Informer[T]) AppliedResourceVersion() string {
	rv, _ := inf.applied.get()
	return rv
}

// WaitForResourceVersion waits until the cache has applied resourceVersion
// rv or a later one, for example the version a write of the program's own
// returned, so that what it reads next from the Lister includes that
// write (read-your-writes). Versions are opaque in general: rv is reached
// when the applied version equals it, or, when both are numbers (as
// Kubernetes' are in practice), when it is not smaller. Waiting is
// event-driven; bookmarks move the applied version on even when the write
// is not one the informer watches. It returns ctx's error, joined with
// the Source's last error, if ctx ends first, and ErrStopped if the
// informer stops.
func (inf *Informer[T]) WaitForResourceVersion(ctx context.Context, rv string) error {
	want := newVersion(rv)
	for {
		cur, changed := inf.applied.get()
		if cur != "" && (cur == rv || want.num && !newVersion(cur).olderThan(want)) {
			return nil
		}
		select {
		case <-changed:
		case <-inf.stopped:
			return ErrStopped
		case <-ctx.Done():
			return waitError(ctx, inf.LastError)
		}
	}
}

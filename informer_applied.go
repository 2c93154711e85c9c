package informer

import (
	"context"
	"fmt"
	"sync"
)

// applied tracks the resourceVersion the cache has caught up with, and
// wakes those waiting for one.
type applied struct {
	order   versionOrder // the Source's, or nil: versions are only equal or not
	mu      sync.Mutex
	rv      string
	lists   uint64        // the reflector's count of completed lists at rv
	changed chan struct{} // closed and replaced when rv or relisting changes
	// relisting: a relist began when the reflector had completed
	// relistAt lists, and is not applied yet. Until it is, the cache may
	// hold a state the Source no longer has (its versions restarted, say,
	// so that rv is a number of the old history), and no version counts
	// as reached.
	relisting bool
	relistAt  uint64
}

func (a *applied) get() (string, <-chan struct{}) {
	rv, _, changed := a.waitState()
	return rv, changed
}

// waitState returns the applied version, whether a relist is in progress
// (see relisting), and a channel closed when either changes.
func (a *applied) waitState() (rv string, relisting bool, changed <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.changed == nil {
		a.changed = make(chan struct{})
	}
	return a.rv, a.relisting, a.changed
}

// beginRelist records that a relist began after lists completed lists.
func (a *applied) beginRelist(lists uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.relisting, a.relistAt = true, lists
}

// wakeLocked wakes those waiting for a change.
func (a *applied) wakeLocked() {
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
}

// set records rv, read after lists lists completed, as applied.
func (a *applied) set(rv string, lists uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// It never moves back to a version the Source orders before it (a
	// bookmark behind), except after a list: the cache then holds the
	// list's state, whatever its version (a service that restarted its
	// versions at 0 lists an older one, and a wait for its next write must
	// not return at once). Versions the Source cannot order simply follow
	// the reflector.
	relisted := lists != a.lists
	a.lists = lists
	if a.relisting && lists > a.relistAt {
		// The relist in progress is applied (set is called once the
		// queue held nothing read before lists counted it).
		a.relisting = false
		a.wakeLocked()
	}
	if rv == "" || rv == a.rv || !relisted && a.order.older(rv, a.rv) {
		return
	}
	a.rv = rv
	a.wakeLocked()
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
// rv or a later one (such as the version a write of the program returned),
// so that the Lister then includes that write (read-your-writes). Without
// a VersionComparer the Source's versions are opaque and only rv itself
// reaches it: wait then only for versions the informer will see (a watched
// write's, a list's, a bookmark's). While the informer relists (an
// expired version; a Source whose versions restarted), nothing is reached
// until the relist is applied. A restart of the Source's versions is known
// only once the informer sees it (an error of its watch, then a relist):
// until then a version of the new history that the VersionComparer orders
// before the applied one counts as reached. It is event-driven, and
// returns ctx's error joined with the Source's last error if ctx ends
// first, and ErrStopped if the informer stops.
func (inf *Informer[T]) WaitForResourceVersion(ctx context.Context, rv string) error {
	for {
		cur, relisting, changed := inf.applied.waitState()
		if !relisting && inf.applied.order.reached(cur, rv) {
			return nil
		}
		select {
		case <-changed:
		case <-inf.stopped:
			return ErrStopped
		case <-ctx.Done():
			return versionWaitError(waitError(ctx, inf.LastError), rv, cur, inf.applied.order != nil)
		}
	}
}

// versionWaitError says why a wait for rv ended unreached, at applied
// version cur.
func versionWaitError(err error, rv, cur string, ordered bool) error {
	if ordered {
		return fmt.Errorf("%w (waiting for resourceVersion %q, applied %q)", err, rv, cur)
	}
	return fmt.Errorf("%w (waiting for resourceVersion %q, applied %q: the Source does not order its versions, "+
		"so %q is reached only when applied, and never if the informer does not see it)", err, rv, cur, rv)
}

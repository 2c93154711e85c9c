package informer

import (
	"fmt"
	"sync/atomic"
	"time"
)

// confirmQuiet is how long a watch from a restored version must go without
// an event for the reflector to take it as confirmed: the source accepted
// the version (an expired one is refused at once) and has sent the
// changes it had since then, which come back to back. While events keep
// coming it is confirmed productiveAfter after it opened, at the latest
// confirmQuiet later.
const confirmQuiet = 100 * time.Millisecond

// resumer is a reflector's part in warm restarts.
type resumer struct {
	from        string       // the restored version Run starts watching from; "" for a list
	unconfirmed atomic.Int64 // unix nanoseconds since the restored version waits for confirmation; 0 when not
	onConfirm   func()       // the sink's Confirmed, if it has one
	onList      func(string) // the sink's ListVersion, if it has one
}

// listVersion tells the sink the version of a list about to replace a
// restored cache that was not confirmed (see informerSink.ListVersion).
func (r *Reflector[T]) listVersion(rv string) {
	if r.resume.onList != nil && r.resume.unconfirmed.Load() != 0 {
		r.resume.onList(rv)
	}
}

// resumeFrom makes Run start with a watch from rv, for a sink that holds
// the state at rv already (a restored snapshot). Called before Run.
func (r *Reflector[T]) resumeFrom(rv string) {
	r.resume.from = rv
	r.resume.unconfirmed.Store(time.Now().UnixNano())
}

// startResumed prepares Run's start from a restored version (its first
// state is newState's).
func (r *Reflector[T]) startResumed() {
	r.resume.unconfirmed.CompareAndSwap(0, time.Now().UnixNano())
	r.setLastRV(r.resume.from)
}

// confirm records that the source confirmed the restored version: the
// reflector now counts as synced.
func (r *Reflector[T]) confirm() {
	if r.resume.unconfirmed.Swap(0) == 0 {
		return
	}
	r.pub.mu.Lock()
	r.pub.health.synced = true
	r.pub.mu.Unlock()
	r.pub.activity.Store(time.Now().UnixNano())
	r.rep.log.Info("informer reflector: restored resourceVersion confirmed by the source")
	if r.resume.onConfirm != nil {
		r.resume.onConfirm()
	}
}

// unconfirmedSince returns when the restored version started waiting for
// confirmation; zero when it is not.
func (r *Reflector[T]) unconfirmedSince() time.Time {
	if ns := r.resume.unconfirmed.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// restoredExpired wraps the error of a restored version the source
// refused as expired: it still matches ErrExpired.
func restoredExpired(err error) error {
	return &SnapshotError{Op: "restore", Offset: -1, Object: -1, Err: fmt.Errorf("%w: %w", ErrSnapshotExpired, err)}
}

// confirmer confirms a watch from a restored version once it has gone
// quiet (see confirmQuiet).
type confirmer struct {
	t       *time.Timer
	started time.Time
}

// startConfirmer returns the stream's confirmer, nil when nothing waits
// for confirmation.
func (r *Reflector[T]) startConfirmer(started time.Time) *confirmer {
	if r.resume.unconfirmed.Load() == 0 {
		return nil
	}
	return &confirmer{t: time.AfterFunc(confirmQuiet, r.confirm), started: started}
}

// event postpones the confirmation while events come back to back.
func (c *confirmer) event() {
	if c != nil && time.Since(c.started) < productiveAfter {
		c.t.Reset(confirmQuiet)
	}
}

func (c *confirmer) stop() {
	if c != nil {
		c.t.Stop()
	}
}

package interop

import (
	"context"
	"fmt"
	"sync"

	"github.com/informer-go/informer"
)

// recorder is a handler that keeps what it was told, and checks each
// key's notifications as they come: an add only for a key it does not
// hold, an update from the state it holds to a newer one, a delete of a
// key it holds, and versions that only grow over a key's whole life
// (guarantee 1: skipped states are fine, an older after a newer is not).
type recorder struct {
	d *driver

	mu      sync.Mutex
	flags   map[string]Flag  // what the handler holds now
	highest map[string]int64 // the newest version seen of each key, deleted or not
	calls   int
	seen    []Flag        // every state handed to the handler
	changed chan struct{} // closed and replaced at every call
	errs    []string
}

func newRecorder(d *driver) *recorder {
	return &recorder{d: d, flags: map[string]Flag{}, highest: map[string]int64{}, changed: make(chan struct{})}
}

func (r *recorder) handler() informer.Handler[*Flag] {
	return informer.HandlerFuncs[*Flag]{
		AddFunc: func(f *Flag, _ bool) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.called()
			if held, ok := r.flags[f.Key]; ok {
				r.fail("add of %s at %d while the handler holds it at %d", f.Key, f.Version, held.Version)
			}
			r.see("add", *f)
		},
		UpdateFunc: func(old, f *Flag) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.called()
			held, ok := r.flags[f.Key]
			switch {
			case !ok:
				r.fail("update of %s to %d, a key the handler does not hold", f.Key, f.Version)
			case *old != held:
				r.fail("update of %s from %+v, the handler holds %+v", f.Key, *old, held)
			}
			r.see("update", *f)
		},
		DeleteFunc: func(d informer.Deleted[*Flag]) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.called()
			f := d.Object
			held, ok := r.flags[f.Key]
			switch {
			case !ok:
				r.fail("delete of %s, a key the handler does not hold", f.Key)
			case f.Version < held.Version:
				r.fail("delete of %s at %d after the handler saw %d", f.Key, f.Version, held.Version)
			}
			delete(r.flags, f.Key)
		},
	}
}

// called counts a call and wakes waiters; r.mu is held.
func (r *recorder) called() {
	r.calls++
	close(r.changed)
	r.changed = make(chan struct{})
}

// waitUntil waits until ok holds for what the handler holds, or ctx ends.
func (r *recorder) waitUntil(ctx context.Context, ok func(map[string]Flag) bool) bool {
	for {
		r.mu.Lock()
		done, changed := ok(r.flags), r.changed
		r.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// see takes a new state of a key; r.mu is held.
func (r *recorder) see(op string, f Flag) {
	if h, ok := r.highest[f.Key]; ok && f.Version <= h {
		r.fail("%s of %s at %d after the handler saw %d: out of order", op, f.Key, f.Version, h)
	}
	r.seen = append(r.seen, f) // checked against the service's states at the end: the event may come before the write's answer
	r.highest[f.Key] = max(r.highest[f.Key], f.Version)
	r.flags[f.Key] = f
}

func (r *recorder) fail(format string, args ...any) {
	if len(r.errs) < 20 {
		r.errs = append(r.errs, fmt.Sprintf(format, args...))
	}
}

// view returns what the handler holds, its errors and how many calls it had.
func (r *recorder) view() (map[string]Flag, []string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]Flag, len(r.flags))
	for k, f := range r.flags {
		m[k] = f
	}
	errs := append([]string(nil), r.errs...)
	for _, f := range r.seen {
		if err := r.d.produced(f); err != nil && len(errs) < 20 {
			errs = append(errs, err.Error())
		}
	}
	return m, errs, r.calls
}

package informer

import (
	"context"
	"time"
)

// AddHandler registers h, before or after Run. A handler added after the
// informer has started first receives the cache's contents as OnAdd(obj,
// true), consistently with the changes that follow: nothing is missed or
// repeated. It fails with ErrStopped once Run has returned.
func (inf *Informer[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration[T], error) {
	l := newListener(h, opts, inf.report)
	l.q.pool = &inf.segments
	if m := &inf.opts.Metrics; m.HandlerLatency != nil || m.HandlerPanic != nil {
		l.metrics, l.timed = m, m.HandlerLatency != nil
	}
	if l.resync == 0 {
		l.resync = inf.opts.ResyncPeriod
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	switch inf.state {
	case stateStopped:
		return nil, ErrStopped
	case stateIdle:
		inf.listeners = append(inf.listeners, l)
	default:
		inf.pending = append(inf.pending, l)
		inf.poke()
	}
	return &Registration[T]{l: l, poke: inf.poke, lastErr: inf.LastError}, nil
}

// poke wakes the process loop to admit or prune handlers.
func (inf *Informer[T]) poke() {
	select {
	case inf.ctrl <- struct{}{}:
	default:
	}
}

// admit adds the handlers registered while running: each first gets the
// cache's contents as initial adds, then every later change. Run by the
// process loop between batches, so no change falls between the two. It also
// forgets removed handlers. Once ctx has ended (a handler registered while
// Run shuts down: the loop's select may take its wake-up before ctx's
// end) it admits none: Run's end finishes them, never called.
func (inf *Informer[T]) admit(ctx context.Context, rs *resyncer[T]) {
	if ctx.Err() != nil {
		return
	}
	inf.mu.Lock()
	adds := inf.pending
	inf.pending = nil
	inf.mu.Unlock()
	for _, l := range adds {
		n := 0
		l.mu.Lock()
		for key, obj := range inf.ix.All() {
			l.pushLocked(key, notification[T]{new: obj, kind: notifyAdd, flag: true})
			if n++; n%batchSize == 0 {
				l.mu.Unlock()
				l.mu.Lock()
			}
		}
		l.mu.Unlock()
		if inf.isSynced {
			l.markSynced()
		}
	}
	inf.mu.Lock()
	kept := make([]*listener[T], 0, len(inf.listeners)+len(adds))
	for _, l := range append(inf.listeners, adds...) {
		l.mu.Lock()
		removed := l.removed
		l.mu.Unlock()
		if !removed {
			kept = append(kept, l)
		}
	}
	inf.listeners = kept
	for _, l := range adds {
		inf.startListener(ctx, l)
	}
	inf.mu.Unlock()
	for _, l := range adds {
		l.signal()
	}
	rs.plan(kept, time.Now())
}

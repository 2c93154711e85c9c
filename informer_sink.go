package informer

import (
	"errors"
	"sync/atomic"
)

// informerSink is the reflector's view of the informer: the transform, then
// the queue. (Without a transform, the reflector queues a watch's adds and
// updates itself: Reflector.fifo.)
type informerSink[T Object] struct{ inf *Informer[T] }

func (s informerSink[T]) transform(obj T) (T, error) {
	fn := s.inf.opts.Transform
	if fn == nil || isNil(obj) {
		return obj, nil
	}
	out, err := fn(obj)
	if err == nil && isNil(out) {
		err = ErrNilObject
	}
	if err != nil {
		return out, &ObjectError{Op: "transform", Err: err}
	}
	return out, nil
}

// Add transforms obj and queues it as added.
func (s informerSink[T]) Add(obj T) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	return s.inf.fifo.Add(obj)
}

// Update transforms obj and queues it as updated.
func (s informerSink[T]) Update(obj T) error {
	obj, err := s.transform(obj)
	if err != nil {
		return err
	}
	return s.inf.fifo.Update(obj)
}

// Delete transforms obj and queues its deletion; see Options.Transform.
func (s informerSink[T]) Delete(obj T) error {
	out, err := s.transform(obj)
	if err == nil {
		return s.inf.fifo.Delete(out)
	}
	// A deletion is never dropped: it carries the last cached state instead.
	key, kerr := keyOf(s.inf.ix.keyFunc, obj)
	if kerr != nil {
		return errors.Join(err, kerr)
	}
	if cached, ok := s.inf.ix.Get(key); ok {
		obj = cached
	}
	return errors.Join(err, s.inf.fifo.Delete(obj))
}

// BeginReplace starts a relist in the queue.
func (s informerSink[T]) BeginReplace() {
	_, lists := s.inf.refl.readProgress()
	s.inf.applied.beginRelist(lists)
	s.inf.snap.replace.Store(1)
	s.inf.fifo.BeginReplace()
}

// ReplaceItems transforms and queues one page of a relist.
func (s informerSink[T]) ReplaceItems(items []T) error {
	var errs []error
	if s.inf.opts.Transform != nil {
		kept := items[:0]
		for _, obj := range items {
			out, err := s.transform(obj)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			kept = append(kept, out)
		}
		clear(items[len(kept):])
		items = kept
	}
	if err := s.inf.fifo.ReplaceItems(items); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// EndReplace ends a relist in the queue.
// Progress wakes the process loop, if it waits, to move the applied
// version on (see Sink).
func (s informerSink[T]) Progress() { s.inf.wake.progress() }

// progressWake is how the reflector's version moving on wakes the
// informer's process loop when it waits: the informer's reflector calls
// progress directly (published.wake), once per event, rather than
// through its sink's Progress method.
type progressWake struct {
	idle    atomic.Bool // the process loop waits, and wants to hear of progress
	pending atomic.Bool // a wake-up was sent to ch and the loop has not taken it
	ch      chan struct{}
	replace *atomic.Int32 // the informer's snapshots.replace
}

// progress records that the reflector's version moved on.
func (w *progressWake) progress() {
	// Called for every event: a load first, as a compare-and-swap is a
	// locked instruction even when it fails.
	if w.replace.Load() == 2 {
		w.replace.CompareAndSwap(2, 0)
	}
	// A wake-up already pending does: the loop reads the version after
	// it takes the wake-up (and clears pending).
	if w.idle.Load() && !w.pending.Load() {
		w.pending.Store(true)
		select {
		case w.ch <- struct{}{}:
		default:
		}
	}
}

func (s informerSink[T]) EndReplace() error {
	err := s.inf.fifo.EndReplace()
	if err == nil {
		s.inf.snap.replace.CompareAndSwap(1, 2)
	}
	return err
}

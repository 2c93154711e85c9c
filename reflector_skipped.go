package informer

import "sync/atomic"

// skippedEvents is what Health says of the unreadable events skipped
// since the last list: their changes may be missing from the cache until
// the relist that they lead to completes.
type skippedEvents struct {
	first atomic.Pointer[SourceError] // wraps ErrSkippedEvents; nil if none
	n     atomic.Int64
}

// add records one skipped event; first is the error of the first since
// the last list, nil for the later ones.
func (s *skippedEvents) add(first *SourceError) {
	if first != nil {
		s.first.CompareAndSwap(nil, first)
	}
	s.n.Add(1)
}

// repaired forgets them: a list completed.
func (s *skippedEvents) repaired() {
	if s.n.Load() != 0 {
		s.n.Store(0)
		s.first.Store(nil)
	}
}

// get returns the first one's error and how many there were.
func (s *skippedEvents) get() (*SourceError, int) {
	return s.first.Load(), int(s.n.Load())
}

package memory

import (
	"fmt"
	"io"
	"strconv"

	"github.com/informer-go/informer"
)

// This file holds fault injection and the counters tests assert on. Every
// method here is safe to call concurrently with everything else, and acts at
// once: a Next blocked on a watch that a fault ends returns.

// failure is a number of calls to fail, and the error to fail them with.
type failure struct {
	n   int
	err error
}

// take counts one call, and returns the error it should fail with, or nil.
func (f *failure) take() error {
	if f.n <= 0 {
		return nil
	}
	f.n--
	if f.err == nil {
		return ErrInjected
	}
	return f.err
}

// FailLists makes the next n calls to List fail with err, returned as is
// (ErrInjected if err is nil), before they look at their options. It replaces
// what an earlier FailLists asked; n <= 0 cancels it. Pass an error wrapping
// informer.ErrExpired to exercise a consumer's relist.
func (s *Source[T]) FailLists(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLists = failure{n: n, err: err}
}

// FailWatches makes the next n calls to Watch fail with err, returned as is
// (ErrInjected if err is nil), before they look at their options. It replaces
// what an earlier FailWatches asked; n <= 0 cancels it.
func (s *Source[T]) FailWatches(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failWatches = failure{n: n, err: err}
}

// DropWatches ends every open watch now, as a lost connection would: their
// Next returns err, or io.EOF (a clean end) if err is nil, even if events
// were still to be read. Watches opened later are not affected.
func (s *Source[T]) DropWatches(err error) {
	if err == nil {
		err = io.EOF
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.endLocked(err)
	}
	s.broadcastLocked()
}

// Compact forgets the whole history, as etcd compaction does: the compaction
// point becomes the current resourceVersion. Lists and watches from an older
// version, and every continue token issued so far, then fail with an error
// wrapping informer.ErrExpired, and so does the Next of every open watch
// that has not yet read up to the compaction point, once it has to.
func (s *Source[T]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked(s.rv)
	s.expireTokensLocked()
	s.broadcastLocked()
}

// CompactTo is Compact with the compaction point at resourceVersion instead
// of the current one: the writes after it are kept. It does nothing if the
// point is already there or further; a version that is not a number, or is
// newer than the current one, is an error wrapping ErrInvalidVersion.
// Continue tokens issued so far expire, as with Compact.
func (s *Source[T]) CompactTo(resourceVersion string) error {
	rv, err := strconv.ParseUint(resourceVersion, 10, 64)
	if err != nil {
		return fmt.Errorf("memory: compact: %w: %q", ErrInvalidVersion, resourceVersion)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv > s.rv {
		return fmt.Errorf("memory: compact: %w: %d is newer than the current %d", ErrInvalidVersion, rv, s.rv)
	}
	if rv <= s.compacted {
		return nil
	}
	s.compactLocked(rv)
	s.expireTokensLocked()
	s.broadcastLocked()
	return nil
}

// ExpireContinueTokens makes every continue token issued so far expired: List
// returns an error wrapping informer.ErrExpired for it. Tokens issued later
// are valid.
func (s *Source[T]) ExpireContinueTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireTokensLocked()
}

func (s *Source[T]) expireTokensLocked() {
	s.epoch++
	s.cache = nil
}

// StallWatches makes every watch, open or opened later, deliver nothing until
// ResumeWatches: Next keeps blocking, although its context, Close, its
// timeout and DropWatches still end it. Writes go on, and are delivered after
// ResumeWatches, in order.
func (s *Source[T]) StallWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stalled = true
}

// ResumeWatches ends what StallWatches started.
func (s *Source[T]) ResumeWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stalled = false
	s.broadcastLocked()
}

// Bookmark sends an EventBookmark at the current resourceVersion to every
// open watch that allows bookmarks, after the writes it has yet to read.
func (s *Source[T]) Bookmark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := informer.Event[T]{Type: informer.EventBookmark, ResourceVersion: strconv.FormatUint(s.rv, 10)}
	for w := range s.watchers {
		if w.bookmarks && w.end == nil {
			w.queueLocked(ev)
		}
	}
	s.broadcastLocked()
}

// InjectEvent delivers e, verbatim, to every open watch, after the writes it
// has yet to read. It is not validated, not recorded in the history and gets
// no resourceVersion: use it to feed a consumer a nil object, an unknown
// event type, an out-of-order version or a bookmark without one.
func (s *Source[T]) InjectEvent(e informer.Event[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		if w.end == nil {
			w.queueLocked(e)
		}
	}
	s.broadcastLocked()
}

// ListCalls returns the number of calls to List so far, failed ones included.
func (s *Source[T]) ListCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listCalls
}

// WatchCalls returns the number of calls to Watch so far, failed ones
// included.
func (s *Source[T]) WatchCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watchCalls
}

// OpenWatches returns the number of watchers returned by Watch that have not
// been closed with Close. A stream that ended otherwise (its context, its
// timeout, a fault) still counts until its reader closes it, so that a test
// can check that every watcher was closed.
func (s *Source[T]) OpenWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

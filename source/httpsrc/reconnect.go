package httpsrc

import (
	"fmt"
	"net/http"
	"time"

	"github.com/informer-go/informer"
)

// shortStream is how soon a stream must end after it opened for the next
// watch to wait Options.ReconnectDelay (without an SSE retry field).
const shortStream = time.Second

// setRetry records an SSE stream's retry field.
func (s *Source[T]) setRetry(d time.Duration) {
	s.mu.Lock()
	s.retry, s.retrySet = d, true
	s.mu.Unlock()
}

// streamEnded records whether the stream just closed was short: the
// server ended it within shortStream of its opening, after an event or a
// sign of life (a stream that ended with nothing is the reflector's
// affair: it backs off, and lists again if they keep coming).
func (s *Source[T]) streamEnded(short bool) {
	s.mu.Lock()
	s.short = short
	s.mu.Unlock()
}

// reconnectWait is how long a watch waits before it connects, as a browser
// would before it reconnects an EventSource: the last SSE retry field, at
// least Options.MinRetry, before every watch after one; without one, after
// a stream that ended within a second of opening after an event or a sign
// of life (a server that ends every stream after an event),
// Options.ReconnectDelay.
func (s *Source[T]) reconnectWait() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.retrySet:
		return max(s.retry, s.opts.MinRetry)
	case s.short:
		s.short = false // once: a failure next is the reflector's to back off
		return s.opts.ReconnectDelay
	}
	return 0
}

// checkEpoch compares a stream's Options.EpochHeader with the last list's:
// another one means the service restarted since, and the version the
// watch resumes from may name another state there (informer.ErrExpired).
func (s *Source[T]) checkEpoch(h http.Header, path string) error {
	name := s.opts.EpochHeader
	if name == "" {
		return nil
	}
	s.mu.Lock()
	listed := s.epoch
	s.mu.Unlock()
	if got := h.Get(name); got != listed {
		return fmt.Errorf("httpsrc: watch %s: the service's %s is %.40q, its list's was %.40q (a restart): %w", path, name, got, listed, informer.ErrExpired)
	}
	return nil
}

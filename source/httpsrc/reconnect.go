package httpsrc

import "time"

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
// server ended it within shortStream of its opening.
func (s *Source[T]) streamEnded(short bool) {
	s.mu.Lock()
	s.short = short
	s.mu.Unlock()
}

// reconnectWait is how long a watch waits before it connects, as a browser
// would before it reconnects an EventSource: the last SSE retry field, at
// least Options.MinRetry, before every watch after one; without one, after
// a stream that ended within a second of opening (a server that ends every
// stream after an event), Options.ReconnectDelay.
func (s *Source[T]) reconnectWait() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.retrySet:
		return max(s.retry, s.opts.MinRetry)
	case s.short:
		return s.opts.ReconnectDelay
	}
	return 0
}

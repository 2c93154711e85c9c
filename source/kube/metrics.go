package kube

import (
	"errors"
	"io"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
)

// Metrics receives what a Source decodes, through callbacks (nil fields
// are not called; with none set the bodies are not even counted). They
// run on the goroutine of List or of the watch's Next, never under a
// lock. metrics/prometheus records them as informer_decoded_objects_total,
// informer_decoded_bytes_total and informer_decode_failures_total.
type Metrics struct {
	// Decoded is called after each list page with its objects and the
	// bytes of its body (after gzip), and after each watch event with 1
	// object (0 for a bookmark or an error) and the bytes the stream
	// read since the last event (read ahead in chunks: exact in total,
	// not per event). op is "list" or "watch".
	Decoded func(op string, objects int, bytes int64)
	// DecodeFailed is called for each list whose body, and each watch
	// event whose bytes, could not be decoded (a *kube.DecodeError).
	DecodeFailed func(op string)
}

func (m *Metrics) set() bool { return m.Decoded != nil || m.DecodeFailed != nil }

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decodeFailed reports err to DecodeFailed when it is a *kube.DecodeError.
func (m *Metrics) decodeFailed(op string, err error) {
	var de *kube.DecodeError
	if m.DecodeFailed != nil && errors.As(err, &de) {
		m.DecodeFailed(op)
	}
}

// measure reports one event, or its failure, of the watch.
func (w *watcher[T]) measure(ev informer.Event[T], err error) {
	if err != nil {
		w.metrics.decodeFailed("watch", err)
		return
	}
	if w.metrics.Decoded == nil {
		return
	}
	objects := 0
	if ev.Type >= informer.EventAdded && ev.Type <= informer.EventDeleted {
		objects = 1
	}
	n := w.cnt.n - w.counted
	w.counted = w.cnt.n
	w.metrics.Decoded("watch", objects, n)
}

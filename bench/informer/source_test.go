package informerbench

import (
	"context"
	"io"
	"sync"

	"github.com/informer-go/informer"
	corev1 "k8s.io/api/core/v1"
)

type cm = *corev1.ConfigMap

// source lists prebuilt objects, then serves a watch that streams prebuilt
// events once gate is closed (a nil gate is open) and then blocks until it
// is closed or its context ends. It does no work of its own, so benchmarks
// measure the informer.
type source struct {
	items  []cm
	rv     string
	events []informer.Event[cm]
	gate   chan struct{}
}

func (s *source) List(ctx context.Context, _ informer.ListOptions) (informer.Page[cm], error) {
	return informer.Page[cm]{Items: s.items, ResourceVersion: s.rv}, nil
}

func (s *source) Watch(ctx context.Context, _ informer.WatchOptions) (informer.Watcher[cm], error) {
	return &watcher{ctx: ctx, events: s.events, gate: s.gate, closed: make(chan struct{})}, nil
}

type watcher struct {
	ctx    context.Context
	events []informer.Event[cm]
	gate   chan struct{}
	i      int
	once   sync.Once
	closed chan struct{}
}

func (w *watcher) Next() (informer.Event[cm], error) {
	if w.gate != nil {
		select {
		case <-w.gate:
			w.gate = nil
		case <-w.ctx.Done():
			return informer.Event[cm]{}, w.ctx.Err()
		case <-w.closed:
			return informer.Event[cm]{}, io.EOF
		}
	}
	if w.i < len(w.events) {
		w.i++
		return w.events[w.i-1], nil
	}
	select {
	case <-w.ctx.Done():
		return informer.Event[cm]{}, w.ctx.Err()
	case <-w.closed:
		return informer.Event[cm]{}, io.EOF
	}
}

func (w *watcher) Close() error { w.once.Do(func() { close(w.closed) }); return nil }

// modified wraps objects as MODIFIED events carrying their resourceVersion.
func modified(objs []cm) []informer.Event[cm] {
	evs := make([]informer.Event[cm], len(objs))
	for i, o := range objs {
		evs[i] = informer.Event[cm]{Type: informer.EventModified, Object: o, ResourceVersion: o.ResourceVersion}
	}
	return evs
}

package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
)

// Watch opens a watch (watch=1, resourceVersion, allowWatchBookmarks,
// timeoutSeconds rounded up, the Source's selectors) and returns once the
// server answered; errors of that answer are returned here, as for List.
// opts.SendInitialEvents makes it a streaming list
// (sendInitialEvents=true, resourceVersionMatch=NotOlderThan); a server
// that refuses gives an error matching informer.ErrWatchListUnsupported,
// from Watch or the first Next. Kubernetes sends every object as ADDED
// first for a watch from "" or "0" without it; the reflector never asks
// for that. Next reads the events on the caller's goroutine, JSON or
// protobuf as the Content-Type says.
func (s *Source[T]) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[T], error) {
	q := s.query()
	q.Set("watch", "1")
	if opts.AllowBookmarks || opts.SendInitialEvents {
		q.Set("allowWatchBookmarks", "true")
	}
	if opts.Timeout > 0 {
		secs := math.Ceil(opts.Timeout.Seconds())
		q.Set("timeoutSeconds", strconv.FormatInt(int64(min(secs, math.MaxInt32)), 10))
	}
	if opts.ResourceVersion != "" {
		q.Set("resourceVersion", opts.ResourceVersion)
	}
	if opts.SendInitialEvents {
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", informer.MatchNotOlderThan)
	}
	wctx, cancel := context.WithCancel(ctx)
	body, f, err := s.get(wctx, "watch", q, s.content.WatchAccept)
	if err != nil {
		cancel()
		var ae *kube.APIError
		if opts.SendInitialEvents && errors.As(err, &ae) && kubewire.WatchListRefused(ae) {
			return nil, fmt.Errorf("%w: %w", informer.ErrWatchListUnsupported, err)
		}
		return nil, s.explainNotFound(ctx, s.ctxError(ctx, "watch", err))
	}
	w := &watcher[T]{
		ctx:    wctx,
		cancel: cancel,
		body:   body,
		name:   s.name,
	}
	if s.opts.Metrics.set() {
		w.metrics = &s.opts.Metrics
		w.cnt = &counter{r: body.Reader}
		body.Reader = w.cnt
	}
	w.dec = kubewire.NewEventDecoder(body, f == kubewire.FormatProtobuf, s.newObj, s.protoDecodeFor(ctx), s.opts.MaxObjectBytes, s.name, s.path, opts.SendInitialEvents, s.kinds, s.sharedFor(ctx))
	if s.shard != nil {
		return &shardWatcher[T]{Watcher: w, f: s.shard}, nil
	}
	return w, nil
}

// watcher is an open watch: the response body and its decoder.
type watcher[T informer.Object] struct {
	ctx    context.Context
	cancel context.CancelFunc
	body   io.Closer
	name   string
	dec    kubewire.EventDecoder[T]

	metrics *Metrics // nil when none is set
	cnt     *counter
	counted int64 // cnt.n at the last event

	closed    atomic.Bool
	closeOnce sync.Once
}

// Next reads the next event. The Kubernetes event types become:
//
//	ADDED, MODIFIED, DELETED → EventAdded, EventModified, EventDeleted, with the
//	                           object decoded into a new T and its resourceVersion
//	BOOKMARK                 → EventBookmark with the object's resourceVersion, or
//	                           EventInitialEventsEnd when its annotations hold
//	                           k8s.io/initial-events-end: "true"
//	ERROR                    → an *APIError from the Status it carries (410
//	                           matches informer.ErrExpired); the stream is over
//
// Next returns io.EOF when the server ended the stream between events, and
// after Close. An event of an unknown type, or whose object does not fit T,
// is a *DecodeError with Recoverable set (the former matching
// informer.ErrUnknownEventType): the stream is intact and Next may be
// called again, though the reflector, like most callers, closes the watch
// and resumes from the last version it saw. Garbage between events, a
// truncated event, an event over Options.MaxObjectBytes and a failed
// connection end the stream with an error; when the watch's context ends,
// the error wraps ctx.Err() and its cause.
func (w *watcher[T]) Next() (informer.Event[T], error) {
	if w.closed.Load() {
		return informer.Event[T]{}, io.EOF
	}
	ev, err := w.dec.Next()
	if w.metrics != nil {
		w.measure(ev, err)
	}
	if err != nil && err != io.EOF {
		if w.closed.Load() {
			return informer.Event[T]{}, io.EOF
		}
		var de *kube.DecodeError
		if cerr := kubewire.ContextError(w.ctx); cerr != nil && !errors.As(err, &de) {
			return ev, fmt.Errorf("kube: watch %s: %w", w.name, cerr)
		}
	}
	return ev, err
}

// Close ends the watch: it cancels the request and closes the body, which
// makes a blocked Next return io.EOF. It may be called more than once and
// concurrently with Next.
func (w *watcher[T]) Close() error {
	w.closeOnce.Do(func() {
		w.closed.Store(true)
		w.cancel()
		_ = w.body.Close()
	})
	return nil
}

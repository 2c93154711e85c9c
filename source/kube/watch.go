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

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Watch opens a watch: GET with watch=1, resourceVersion,
// allowWatchBookmarks (when opts.AllowBookmarks or a streaming list asks
// for it), timeoutSeconds (opts.Timeout rounded up to whole seconds) and
// the Source's selectors. It returns once the server has answered;
// errors of that answer are returned here, as for List.
//
// Note that Kubernetes, asked to watch from resourceVersion "" or "0"
// without SendInitialEvents, first sends an ADDED event for every object
// (the legacy "get state and start" semantics); the reflector always
// watches from a version it has seen.
//
// opts.SendInitialEvents makes it a streaming list: sendInitialEvents=true
// and resourceVersionMatch=NotOlderThan. A server that refuses it (the
// WatchList feature is off: 422 "sendInitialEvents is forbidden", or its
// storage lacks what it needs, reported by an ERROR event) gives an error
// matching informer.ErrWatchListUnsupported, from Watch or from the first
// Next.
//
// The events are read with Next, one at a time from the response body on
// the caller's goroutine: no goroutine is started. The stream is JSON
// (one object per event) or protobuf (length-prefixed frames), as the
// response's Content-Type says. See the watcher's Next
// for how each Kubernetes event type is translated.
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
	body, f, err := s.get(wctx, "watch", q, s.content.watchAccept)
	if err != nil {
		cancel()
		var ae *APIError
		if opts.SendInitialEvents && errors.As(err, &ae) && watchListRefused(ae) {
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
	if f == formatProtobuf {
		d := newProtoWatchDecoder(body, s.newObj, s.protoDecodeFor(ctx), s.opts.MaxObjectBytes, s.name, s.path, opts.SendInitialEvents)
		d.rule = s.kinds
		w.dec = d
	} else {
		d := newWatchDecoder(body, s.newObj, s.opts.MaxObjectBytes, s.name, s.path, opts.SendInitialEvents)
		d.kinds = s.kinds
		d.s.share = s.sharedFor(ctx)
		w.dec = d
	}
	if s.shard != nil {
		return &shardWatcher[T]{Watcher: w, f: s.shard}, nil
	}
	return w, nil
}

// eventDecoder reads the events of a watch stream: watchDecoder (JSON)
// or protoWatchDecoder (protobuf). next returns an event or an error,
// never both; an error that ends the stream comes back on every later
// call.
type eventDecoder[T informer.Object] interface {
	next() (informer.Event[T], error)
}

// watcher is an open watch: the response body and its decoder.
type watcher[T informer.Object] struct {
	ctx    context.Context
	cancel context.CancelFunc
	body   io.Closer
	name   string
	dec    eventDecoder[T]

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
	ev, err := w.dec.next()
	if err != nil && err != io.EOF {
		if w.closed.Load() {
			return informer.Event[T]{}, io.EOF
		}
		var de *DecodeError
		if cerr := contextError(w.ctx); cerr != nil && !errors.As(err, &de) {
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

// streamState is what both watch decoders keep of their stream: the names
// for errors, whether a streaming list was asked for, the error that
// ended the stream (returned again by every later call), and where the
// event being read starts.
type streamState struct {
	res     string
	path    string
	initial bool
	err     error
	start   int64
}

// fail records and returns the error that ends the stream: readErr when
// reading the body failed, else a *DecodeError for err.
func (st *streamState) fail(err, readErr error) error {
	if readErr != nil {
		err = fmt.Errorf("kube: watch %s: reading the stream: %w", st.res, readErr)
	} else {
		err = &DecodeError{Op: "watch", Resource: st.res, Offset: st.start, Item: -1, Err: err}
	}
	st.err = err
	return err
}

// recoverable returns the error of one unusable event; the stream goes on.
func (st *streamState) recoverable(err error) error {
	return &DecodeError{Op: "watch", Resource: st.res, Offset: st.start, Item: -1, Recoverable: true, Err: err}
}

// endWithStatus ends the stream with the error an ERROR event's Status
// carries: an *APIError (410 matches informer.ErrExpired), which also
// matches informer.ErrWatchListUnsupported when a streaming list was
// refused; a Status with nothing in it is a *DecodeError.
func (st *streamState) endWithStatus(s *metav1.Status) error {
	if s.Code == 0 && s.Reason == "" && s.Message == "" {
		return st.fail(errors.New("the ERROR event's Status has no code, reason or message"), nil)
	}
	ae := statusError("watch", st.path, 0, s)
	if st.initial && watchListRefused(ae) {
		st.err = fmt.Errorf("%w: %w", informer.ErrWatchListUnsupported, ae)
	} else {
		st.err = ae
	}
	return st.err
}

// objectEventType maps the Kubernetes event types that carry an object of
// the resource (ADDED, MODIFIED, DELETED) to the informer's.
func objectEventType(typ string) (informer.EventType, bool) {
	switch typ {
	case "ADDED":
		return informer.EventAdded, true
	case "MODIFIED":
		return informer.EventModified, true
	case "DELETED":
		return informer.EventDeleted, true
	}
	return 0, false
}

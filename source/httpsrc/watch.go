package httpsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/informer-go/informer"
)

// Watch streams the changes after opts.ResourceVersion from WatchURL, or,
// without a WatchURL, polls the list (see Options.PollInterval). A
// streaming list (SendInitialEvents) is not supported: the reflector
// lists instead.
func (s *Source[T]) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[T], error) {
	if opts.SendInitialEvents {
		return nil, informer.ErrWatchListUnsupported
	}
	if s.opts.WatchURL == "" {
		return s.poll(ctx, opts)
	}
	if d := s.reconnectWait(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	u, err := url.Parse(s.opts.WatchURL)
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	switch s.opts.Format {
	case FormatSSE:
		header.Set("Accept", "text/event-stream")
	case FormatNDJSON, FormatKubernetes:
		header.Set("Accept", "application/x-ndjson, application/jsonl, application/json")
	default:
		header.Set("Accept", "text/event-stream, application/x-ndjson, application/jsonl, application/json")
	}
	if opts.ResourceVersion != "" {
		q := u.Query()
		q.Set(s.opts.VersionParam, opts.ResourceVersion)
		u.RawQuery = q.Encode()
		header.Set("Last-Event-ID", opts.ResourceVersion)
	}
	wctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(nil) }
	var timer *time.Timer
	if d := s.opts.ConnectTimeout; d > 0 {
		timer = time.AfterFunc(d, func() {
			cancelCause(fmt.Errorf("%w: no answer to the watch within %s", ErrTimeout, d))
		})
	}
	resp, body, err := s.get(wctx, "watch", u, header)
	if timer != nil {
		timer.Stop()
	}
	if err != nil {
		if cause := context.Cause(wctx); errors.Is(cause, ErrTimeout) {
			err = fmt.Errorf("httpsrc: watch %s: %w", u.Path, cause)
		}
		cancel()
		return nil, err
	}
	if body == nil {
		cancel()
		return nil, &StatusError{Op: "watch", Path: u.Path, Code: http.StatusNotModified}
	}
	if err := s.checkEpoch(resp.Header, u.Path); err != nil {
		body.Close()
		cancel()
		return nil, err
	}
	format := s.opts.Format
	if format == FormatAuto {
		format = FormatNDJSON
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
			format = FormatSSE
		}
	}
	w := &streamWatcher[T]{s: s, body: body, cancel: cancel, from: opts.ResourceVersion, heartbeat: opts.Heartbeat, opened: time.Now()}
	max := int(min(s.opts.MaxObjectBytes, 1<<40))
	if format == FormatSSE {
		w.sse = newSSEReader(body, max, opts.ResourceVersion)
		w.sse.heartbeat = w.alive
	} else {
		w.lines = newLineReader(body, max)
	}
	return w, nil
}

// streamWatcher reads SSE or NDJSON events.
type streamWatcher[T informer.Object] struct {
	s      *Source[T]
	body   io.ReadCloser
	cancel context.CancelFunc
	sse    *sseReader
	lines  *lineReader
	from   string
	// heartbeat is WatchOptions.Heartbeat: called for an SSE comment, a
	// blank NDJSON line or an event mapped to Ignore, which servers send
	// to keep a quiet stream open.
	heartbeat func()
	opened    time.Time
	ended     bool // Next returned the stream's end (not Close)
	delivered bool // an event or a sign of life
}

func (w *streamWatcher[T]) Close() error {
	w.cancel()
	w.s.streamEnded(w.ended && w.delivered && time.Since(w.opened) < shortStream)
	return w.body.Close()
}

func (w *streamWatcher[T]) Next() (informer.Event[T], error) {
	var ev informer.Event[T]
	var err error
	if w.sse != nil {
		ev, err = w.nextSSE()
	} else {
		ev, err = w.nextLine()
	}
	w.delivered = w.delivered || err == nil
	return ev, err
}

func (w *streamWatcher[T]) nextSSE() (informer.Event[T], error) {
	for {
		ev, err := w.sse.next()
		if w.sse.retrySet {
			w.s.setRetry(w.sse.retry)
		}
		if err != nil {
			return informer.Event[T]{}, w.streamErr(err)
		}
		where := w.sse.lines.off
		if ev.data == nil { // an id alone: the stream moved on
			return informer.Event[T]{Type: informer.EventBookmark, ResourceVersion: ev.id}, nil
		}
		name, data := []byte(ev.typ), ev.data
		if w.s.evTypeSet && (len(name) == 0 || ev.typ == "message") {
			if v, err := w.s.evType.find(data); err == nil {
				name, _ = rawString(v)
			}
		}
		t, known := w.s.opts.eventType(name)
		if known && t == Ignore {
			w.alive()
			continue
		}
		if w.s.evObjectSet && known && t != informer.EventBookmark {
			if data, _ = w.s.evObject.find(data); data == nil {
				return informer.Event[T]{}, badEvent(where, fmt.Sprintf("no object at %q", w.s.evObject.String()))
			}
		}
		rv := ""
		if ev.hasID {
			rv = ev.id
		}
		e, err := w.event(name, t, known, data, rv, where)
		if err == errKeepAlive {
			w.alive()
			continue
		}
		return e, err
	}
}

// errKeepAlive is what event says of a bookmark without a version (a
// "heartbeat" event with no id, say): no error, and no bookmark, which
// must carry a version; like a comment, it shows the stream alive.
var errKeepAlive = errors.New("httpsrc: a bookmark without a version: a keep-alive")

// alive reports a heartbeat, if the reflector asked for them.
func (w *streamWatcher[T]) alive() {
	w.delivered = true
	if w.heartbeat != nil {
		w.heartbeat()
	}
}

func (w *streamWatcher[T]) nextLine() (informer.Event[T], error) {
	for {
		line, err := w.lines.next()
		if err != nil {
			return informer.Event[T]{}, w.streamErr(err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			w.alive()
			continue
		}
		where := w.lines.off
		typ, err := w.s.evType.find(line)
		if err != nil {
			return informer.Event[T]{}, badEvent(where, reason(err))
		}
		rv := ""
		if w.s.evVersion != nil {
			v, _ := w.s.evVersion.find(line)
			rv = scalarString(v)
		}
		name, _ := rawString(typ)
		if bytes.EqualFold(name, []byte("ERROR")) { // a Kubernetes-shaped error Status
			obj, _ := w.s.evObject.find(line)
			code, _ := pointer{"code"}.find(obj)
			c, _ := strconv.Atoi(scalarString(code))
			msg, _ := pointer{"message"}.find(obj)
			return informer.Event[T]{}, &StatusError{Op: "watch", Path: "(ERROR event)", Code: c, Expired: w.s.opts.expired(c), Message: cleanMessage(scalarString(msg))}
		}
		t, known := w.s.opts.eventType(name)
		if known && t == Ignore {
			// A keep-alive (Options.Types maps its name to Ignore): like a
			// blank line, it shows the stream is alive.
			w.alive()
			continue
		}
		if bytes.EqualFold(name, []byte("BOOKMARK")) && rv == "" {
			obj, _ := w.s.evObject.find(line)
			v, _ := pointer{"metadata", "resourceVersion"}.find(obj)
			if rv = scalarString(v); rv == "" {
				w.alive()
				continue
			}
			return informer.Event[T]{Type: informer.EventBookmark, ResourceVersion: rv}, nil
		}
		obj, exact, _ := w.s.evObject.findTail(line)
		if obj == nil && !strings.EqualFold(string(name), w.s.opts.ExpiredEvent) {
			if !known {
				// A type the options do not map (a greeting, a stats
				// message) carries no change, object or not.
				return w.event(name, t, known, nil, rv, where)
			}
			return informer.Event[T]{}, badEvent(where, fmt.Sprintf("no object at %q", w.s.evObject.String()))
		}
		ev, err := w.event(name, t, known, obj, rv, where)
		if err != nil && !exact && errors.Is(err, informer.ErrBadEvent) {
			// The guess at the object's end may have been wrong (it was
			// not the last member): find it exactly and try again.
			if obj, _ = w.s.evObject.find(line); obj != nil {
				ev, err = w.event(name, t, known, obj, rv, where)
			}
		}
		if err == errKeepAlive {
			w.alive()
			continue
		}
		return ev, err
	}
}

// event turns a type name, its type in Options.Types (known: it is
// there), and an object into an Event.
func (w *streamWatcher[T]) event(name []byte, t informer.EventType, known bool, data []byte, rv string, where int64) (informer.Event[T], error) {
	if len(name) == len(w.s.opts.ExpiredEvent) && strings.EqualFold(string(name), w.s.opts.ExpiredEvent) {
		return informer.Event[T]{}, fmt.Errorf("httpsrc: watch from %q: the server says it is too old: %w", w.from, informer.ErrExpired)
	}
	if !known {
		// ErrUnknownEventType for errors.Is: a reflector skips such an
		// event as carrying no change, not as a lost one.
		return informer.Event[T]{}, fmt.Errorf("%w: %w", informer.ErrBadEvent, &DecodeError{Op: "watch", Where: eventAt(where),
			Reason: fmt.Sprintf("%v: %.40q", informer.ErrUnknownEventType, name), Err: informer.ErrUnknownEventType})
	}
	if t == informer.EventBookmark {
		if rv == "" {
			v, _ := pointer{"metadata", "resourceVersion"}.find(data)
			rv = scalarString(v)
		}
		if rv == "" {
			return informer.Event[T]{}, errKeepAlive
		}
		return informer.Event[T]{Type: t, ResourceVersion: rv}, nil
	}
	obj, err := w.s.dec.decode(data)
	if err != nil {
		return informer.Event[T]{}, fmt.Errorf("%w: %w", informer.ErrBadEvent, &DecodeError{Op: "watch", Where: eventAt(where), Reason: err.Error(), Err: err})
	}
	return informer.Event[T]{Type: t, Object: obj, ResourceVersion: rv}, nil
}

func badEvent(where int64, why string) error {
	return fmt.Errorf("%w: %w", informer.ErrBadEvent, &DecodeError{Op: "watch", Where: eventAt(where), Reason: why})
}

func eventAt(off int64) string { return "the event ending at byte " + strconv.FormatInt(off, 10) }

// streamErr reports the end of a stream: io.EOF as is, the rest as an
// error of the watch (a cut connection, a line too long).
func (w *streamWatcher[T]) streamErr(err error) error {
	w.ended = true
	if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return io.EOF
	}
	if errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("%w (watch)", err) // it says "httpsrc: too large" already
	}
	return fmt.Errorf("httpsrc: watch: %w", err)
}

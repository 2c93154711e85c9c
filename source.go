package informer

import (
	"context"
	"reflect"
	"strconv"
	"time"
)

// Source is the one interface a backend implements: a Kubernetes API server,
// any HTTP service with list and watch, or memory. An informer lists a
// Source, then watches it from the list's resourceVersion.
//
// A Source must be safe for concurrent use (informers may share one; a
// Reflector makes one call at a time), honour ctx (return promptly with an
// error wrapping ctx.Err()), and never change an object it returned. Its
// errors: ErrExpired for a resourceVersion or continue token too old to
// serve (the reflector relists; never retry it yourself),
// ErrWatchListUnsupported when it cannot send initial events (the
// reflector lists); anything else is retried with backoff. Optional
// interfaces: VersionComparer, KeyedSource, WatchListPreferrer.
type Source[T Object] interface {
	// List returns one page of the collection. An empty Continue in the
	// result means it was the last page.
	List(ctx context.Context, opts ListOptions) (Page[T], error)
	// Watch opens a stream of changes after opts.ResourceVersion. It returns
	// once the stream is open; events are read with the Watcher's Next. The
	// stream ends when ctx ends, when the Watcher is closed, or when the
	// source ends it (Next then returns io.EOF).
	Watch(ctx context.Context, opts WatchOptions) (Watcher[T], error)
}

// ListOptions are the arguments of Source.List.
type ListOptions struct {
	// ResourceVersion is the oldest state the list may show. "" asks for the
	// most recent state (a consistent read); "0" accepts any state, however
	// old, which a server may serve from a cache. Sources that keep no
	// history may ignore it.
	ResourceVersion string
	// ResourceVersionMatch says how ResourceVersion is applied
	// (MatchNotOlderThan, MatchExact); "" means the source's default.
	// Sources other than Kubernetes may ignore it.
	ResourceVersionMatch string
	// Limit is the most items one page may hold. 0 leaves the page size
	// to the source (its own default, or no limit if it has none); a
	// negative value (NoLimit) asks for the whole collection in one
	// response. A source may return fewer items, with a Continue token
	// for the rest.
	Limit int64
	// Continue is the token from the previous page; "" asks for the first.
	// A source reports an expired token with ErrExpired.
	Continue string
	// Initial marks the first list of a reflector, which fills a cache that
	// holds nothing yet: no older copy of the collection is kept beside
	// it, so a source that pages only to bound what a relist holds may
	// answer it in fewer, larger pages when Limit is 0 (source/kube: in
	// one response). Sources may ignore it. Once such a first list failed
	// (a collection too large to send within a timeout fails every time),
	// the lists after it are not Initial.
	Initial bool
}

// NoLimit as ListOptions.Limit asks for the whole collection in one
// response.
const NoLimit int64 = -1

// Values of ListOptions.ResourceVersionMatch, as Kubernetes spells them.
const (
	// MatchNotOlderThan: the state shown is ResourceVersion or newer.
	MatchNotOlderThan = "NotOlderThan"
	// MatchExact: the state shown is exactly ResourceVersion.
	MatchExact = "Exact"
)

// Page is one page of a list.
type Page[T Object] struct {
	// Items are the objects of this page.
	Items []T
	// ResourceVersion is the version of the collection the list shows. Pages
	// after the first carry the first page's version.
	ResourceVersion string
	// Continue, when not empty, fetches the next page.
	Continue string
}

// WatchOptions are the arguments of Source.Watch.
type WatchOptions struct {
	// ResourceVersion is where the stream starts: events after it. A
	// reflector always passes a version it has seen; "" may mean "from now"
	// or (as in Kubernetes) "the current state as ADDED events, then
	// changes", depending on the source. A version too old to serve is
	// ErrExpired.
	ResourceVersion string
	// AllowBookmarks asks for Bookmark events, which carry only a
	// resourceVersion and let a watch resume from further on.
	AllowBookmarks bool
	// Timeout, when not zero, asks the source to end the stream cleanly after
	// about this long (Kubernetes' timeoutSeconds).
	Timeout time.Duration
	// SendInitialEvents asks for a streaming list: the stream begins with an
	// Added event for every object present, then an EventInitialEventsEnd event,
	// then changes. A source that cannot returns ErrWatchListUnsupported,
	// from Watch or from the first Next.
	SendInitialEvents bool
	// Heartbeat, when not nil, is for the Watcher to call (from Next, or
	// from any goroutine) each time the stream shows it is alive without
	// an event: an SSE comment, a blank NDJSON line, a ping. The source
	// decides what counts. A reflector counts heartbeats as liveness, so
	// that a quiet stream that is alive is not taken for a stalled one,
	// and reports them in Health. It is cheap, and never blocks.
	Heartbeat func()
}

// Watcher is an open watch stream, read by pulling.
//
// Next and Close may be called concurrently with each other, but Next must
// not be called from two goroutines at once.
type Watcher[T Object] interface {
	// Next blocks until the next event, and returns io.EOF when the stream
	// ended cleanly. An error wrapping ErrBadEvent reports one unusable
	// event: the stream goes on and the next Next reads the next event.
	// After any other error the stream is over; the reader calls Close.
	Next() (Event[T], error)
	// Close ends the stream and releases its resources; a blocked Next
	// returns. Close may be called more than once.
	Close() error
}

// EventType is the kind of a watch Event.
type EventType uint8

// The kinds of Event.
const (
	// EventAdded: Object was created (or, in a streaming list's initial
	// events, exists).
	EventAdded EventType = iota + 1
	// EventModified: Object changed.
	EventModified
	// EventDeleted: Object was deleted; it is the object's last state.
	EventDeleted
	// EventBookmark: nothing changed, but the stream has reached
	// ResourceVersion. Object is the zero value.
	EventBookmark
	// EventInitialEventsEnd: a streaming list's initial events are complete
	// as of ResourceVersion. Object is the zero value.
	EventInitialEventsEnd
)

var eventTypeNames = [...]string{"", "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "INITIAL_EVENTS_END"}

// String returns the event type's name as Kubernetes spells it.
func (t EventType) String() string {
	if t > 0 && int(t) < len(eventTypeNames) {
		return eventTypeNames[t]
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}

// Event is one change read from a watch.
type Event[T Object] struct {
	Type EventType
	// Object is the object's new state (its last state for EventDeleted);
	// the zero value for EventBookmark and EventInitialEventsEnd.
	Object T
	// ResourceVersion is the version the stream has reached, and where a
	// watch resumes from. It takes precedence over the object's own; a
	// source should set it, and must for EventDeleted when the deleted
	// object carries its last write's version rather than the deletion's.
	// If it is empty the object's own is used. During a streaming list's
	// initial events it is ignored: the stream's position is the version of
	// EventInitialEventsEnd.
	ResourceVersion string
}

// KeyedSource is an optional interface of a Source that keys its objects
// itself, as a Source that compares lists does (source/httpsrc in poll
// mode, whose httpsrc.Options.Key says how): an informer over it keys its cache
// and queue with the same function, unless Options.KeyFunc names another.
// One key function must rule the whole path: set the key in the Source's
// options, and leave the informer's KeyFunc nil (or set it to the same
// function: another one makes Run return ErrKeyFuncConflict).
type KeyedSource[T Object] interface {
	// KeyFunc returns the Source's key function; nil means MetaKey.
	KeyFunc() KeyFunc[T]
}

// sameKeyFunc reports whether the informer's key function f is the
// Source's, src (nil: MetaKey): the same function, by its code.
func sameKeyFunc[T Object](f, src KeyFunc[T]) bool {
	if src == nil {
		src = MetaKey[T]
	}
	return reflect.ValueOf(f).Pointer() == reflect.ValueOf(src).Pointer()
}

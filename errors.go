package informer

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// Sentinel errors. Match them with errors.Is: the library wraps them with
// context.
var (
	// ErrNilObject is returned for a nil object where an object is required.
	ErrNilObject = errors.New("informer: nil object")
	// ErrEmptyName is returned by MetaKey for an object without a name.
	ErrEmptyName = errors.New("informer: object has an empty name")
	// ErrInvalidKey is returned by SplitKey for a key it cannot split.
	ErrInvalidKey = errors.New("informer: invalid key")
	// ErrIndexExists is returned by AddIndex for a name already in use.
	ErrIndexExists = errors.New("informer: index already exists")
	// ErrNoSuchIndex is returned when a named index does not exist.
	ErrNoSuchIndex = errors.New("informer: no such index")
	// ErrDuplicateKey reports that one list held two objects with the same key;
	// the later one wins. A Watcher that lists (a poll) reports one as an
	// event error wrapping both ErrBadEvent and ErrDuplicateKey: reported,
	// and not a skipped change (see ErrSkippedEvents).
	ErrDuplicateKey = errors.New("informer: duplicate key in list")
	// ErrClosed is returned by a DeltaFIFO that has been closed.
	ErrClosed = errors.New("informer: queue closed")
	// ErrExpired is the error a Source returns (wrapped or not) when the
	// resourceVersion or continue token it was asked for is too old to serve:
	// the reflector then lists again from scratch. Kubernetes reports it as
	// HTTP 410 Gone.
	ErrExpired = errors.New("informer: resource version expired")
	// ErrWatchListUnsupported is returned by a Source whose Watch cannot send
	// the initial events of a streaming list; the reflector falls back to List.
	ErrWatchListUnsupported = errors.New("informer: streaming list not supported")
	// ErrOutOfOrder reports a watch event whose resourceVersion is older than
	// one already seen; the reflector drops the watch and lists again.
	ErrOutOfOrder = errors.New("informer: event out of resourceVersion order")
	// ErrBadEvent is what a Watcher's Next returns (wrapped) when one event
	// could not be read but the stream goes on: an unknown type, an object
	// that does not decode into T. The reflector reports it and reads on,
	// except among a streaming list's initial events (unless it also
	// matches ErrUnknownEventType or ErrDuplicateKey): there it ends the streaming list and
	// syncs with a List at once, which reads every object or fails saying
	// why, so that a cache never syncs without an object it could not read.
	ErrBadEvent = errors.New("informer: bad watch event")
	// ErrSkippedEvents reports that a watch skipped unreadable events
	// (ErrBadEvent, other than ErrUnknownEventType and ErrDuplicateKey,
	// which carry no lost change): each may have carried
	// a change that the cache now lacks. The reflector ends such a stream
	// soon after its first skip and lists again, which repairs the cache;
	// until that list completes, Health.LastError (and Informer.LastError)
	// is a *SourceError wrapping ErrSkippedEvents and the first skipped
	// event's error, Health.SkippedEvents counts them, and Health.Healthy
	// is false.
	ErrSkippedEvents = errors.New("informer: unreadable events skipped, their changes lost until a relist")
	// ErrUnknownEventType reports an event type the reflector does not know.
	ErrUnknownEventType = errors.New("informer: unknown event type")
	// ErrBookmarkWithoutVersion reports a bookmark that carries no
	// resourceVersion.
	ErrBookmarkWithoutVersion = errors.New("informer: bookmark without resourceVersion")
	// ErrTransport marks a SourceError caused by the connection rather
	// than by the server's answer: a reset, a body cut short, a network
	// timeout. After a watch that made progress the reflector rewatches at
	// once; otherwise it backs off as for any error.
	ErrTransport = errors.New("informer: transport failure")
	// ErrKeyFuncConflict is returned by Run when Options.KeyFunc is set
	// and is not the function its Source keys objects by (KeyedSource:
	// the key in source/httpsrc's options, or MetaKey): the Source would
	// compare and report objects by one key, and the cache store them by
	// another.
	ErrKeyFuncConflict = errors.New("informer: Options.KeyFunc is not the Source's key function")
	// ErrAlreadyStarted is returned by a second call to Run.
	ErrAlreadyStarted = errors.New("informer: already started")
	// ErrStopped is returned when adding a handler to an informer whose Run has
	// returned.
	ErrStopped = errors.New("informer: stopped")
	// ErrHandlerPanic is matched by a *HandlerPanicError.
	ErrHandlerPanic = errors.New("informer: handler panicked")
)

// KeyError reports that a KeyFunc failed for an object.
type KeyError struct {
	Err error
}

// Error describes the KeyError.
func (e *KeyError) Error() string { return "informer: key func: " + e.Err.Error() }

// Unwrap returns the KeyFunc's error.
func (e *KeyError) Unwrap() error { return e.Err }

// IndexError reports that an index function failed for an object. The
// object was not stored or changed.
type IndexError struct {
	Index string // the index's name
	Key   string // the object's key
	Err   error  // what the index function returned
}

// Error describes the IndexError.
func (e *IndexError) Error() string {
	return fmt.Sprintf("informer: index %q for %q: %v", e.Index, e.Key, e.Err)
}

// Unwrap returns the index function's error.
func (e *IndexError) Unwrap() error { return e.Err }

// HandlerPanicError reports a panic recovered from a handler. The handler
// keeps receiving later notifications. (A handler that calls
// runtime.Goexit, as a failing test's helpers do, ends its goroutine: it
// is reported with a Value that says so, and is called no more.)
type HandlerPanicError struct {
	Handler string // the registration's name, if it has one
	Value   any    // what the handler panicked with
	Stack   []byte // the goroutine's stack at the panic
}

// Error describes the HandlerPanicError.
func (e *HandlerPanicError) Error() string {
	return fmt.Sprintf("informer: handler %q panicked: %v", e.Handler, e.Value)
}

// Is makes errors.Is(err, ErrHandlerPanic) true.
func (e *HandlerPanicError) Is(target error) bool { return target == ErrHandlerPanic }

// ObjectError reports an object or event from a Source that was rejected
// (skipped) because it is invalid: a nil object, a missing name, an unknown
// event type, an object Options.Transform refused. Op says where it was
// found ("list", "watch", "watchlist", "transform").
type ObjectError struct {
	Op  string
	Err error
}

// Error describes the ObjectError.
func (e *ObjectError) Error() string { return "informer: " + e.Op + ": " + e.Err.Error() }

// Unwrap returns the reason the object was rejected.
func (e *ObjectError) Unwrap() error { return e.Err }

// SourceError reports a failed Source call.
type SourceError struct {
	// Op is "list", "watch" or "watchlist".
	Op string
	// ResourceVersion is the version the call started from.
	ResourceVersion string
	Err             error
}

// Error describes the SourceError: "informer: list of the latest state:
// ...", "informer: watch from resourceVersion "42": ...", "informer:
// streaming list ..." for Op "watchlist".
func (e *SourceError) Error() string {
	what := e.Op
	if what == "watchlist" {
		what = "streaming list"
	}
	if e.ResourceVersion == "" {
		return fmt.Sprintf("informer: %s of the latest state: %v", what, e.Err)
	}
	return fmt.Sprintf("informer: %s from resourceVersion %q: %v", what, e.ResourceVersion, e.Err)
}

// Unwrap returns the Source's error.
func (e *SourceError) Unwrap() error { return e.Err }

// sourceError wraps a failed Source call, marking transport failures with
// ErrTransport.
func sourceError(op, rv string, err error) *SourceError {
	if isTransport(err) && !errors.Is(err, ErrTransport) {
		err = fmt.Errorf("%w: %w", ErrTransport, err)
	}
	return &SourceError{Op: op, ResourceVersion: rv, Err: err}
}

// isTransport reports whether err comes from the connection: a network
// error, a reset, a body cut short.
func isTransport(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

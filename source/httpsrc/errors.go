package httpsrc

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/informer-go/informer"
)

var (
	// ErrTooLarge marks a response, line or event over the size limits.
	ErrTooLarge = errors.New("httpsrc: too large")
	// ErrUnexpectedContentType marks a response that is not what was
	// asked for: an HTML error page with status 200, say.
	ErrUnexpectedContentType = errors.New("httpsrc: unexpected content type")
	// ErrNoKey marks an object that has no name, so no key.
	ErrNoKey = errors.New("httpsrc: object without a key")
	// ErrTimeout marks a request that got no answer in time
	// (Options.ListTimeout, Options.ConnectTimeout).
	ErrTimeout = errors.New("httpsrc: no answer in time")
	// ErrInvalidOptions marks Options that cannot work.
	ErrInvalidOptions = errors.New("httpsrc: invalid options")
	// ErrPageRepeated marks a list whose next page is the page just read:
	// the same next link or token, or, with PagingNumber, the same body
	// again (a service that ignores Options.PageParam). Paging on would
	// never end; the list fails instead, and the reflector retries it with
	// backoff while LastError says why.
	ErrPageRepeated = errors.New("httpsrc: the next page repeats the page before")

	// ErrBadPaging marks a list whose next page cannot be found: a Link
	// header that mentions "next" but does not parse (RFC 8288), or a next
	// page's URL that does not parse. The list fails rather than end
	// early, which would delete the later pages' objects; the reflector
	// retries it with backoff while LastError says why.
	ErrBadPaging = errors.New("httpsrc: the next page cannot be followed")

	errNotArray = errors.New("the items are not a JSON array")
	// errMalformedList marks a list body whose JSON is malformed around
	// its items.
	errMalformedList = errors.New("malformed list")
)

// StatusError is a response with an unexpected HTTP status. Its Error
// names the request and the status, and what the server said when its
// body is a message (Message), never an object or a page. A status that
// Options.ExpiredStatus lists matches informer.ErrExpired.
type StatusError struct {
	// Op is "list" or "watch" (in poll mode too: a failed poll is a
	// "list"), or "poll" for the 410 poll mode answers itself when asked
	// to resume from a version other than its last list's.
	Op string
	// Path is the request's path (no query: it may hold tokens).
	Path string
	// Code is the HTTP status code.
	Code int
	// Expired is set when the status means "version too old".
	Expired bool
	// Message is what the server said, when the body is a message: the
	// text of a text/plain body, the detail (or title) of an
	// application/problem+json one, or the top-level "detail", "message"
	// or "error" string of a JSON object (a Kubernetes ERROR event's
	// message, in a stream). Never an excerpt of an object or an HTML
	// page. Control characters are removed and it is at most 200 bytes.
	// "" when the body says nothing of the kind.
	Message string
}

// Error names the request and the status, and the server's message if
// any.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("httpsrc: %s %s: %d %s", e.Op, e.Path, e.Code, http.StatusText(e.Code))
	if e.Message != "" {
		s += fmt.Sprintf(" (the server says %q)", e.Message)
	}
	return s
}

// Is matches informer.ErrExpired for an expired version.
func (e *StatusError) Is(target error) bool {
	return e.Expired && target == informer.ErrExpired
}

// DecodeError reports an object or event that could not be decoded, by
// its position (the list item's index or the stream's byte offset), never
// its content.
type DecodeError struct {
	// Op is "list" or "watch", or "poll" for a duplicate key in a poll.
	Op string
	// Where is the list's path, with the item's index when one item
	// failed ("/items: item 3"), or the stream's position ("the event
	// ending at byte 1024").
	Where string
	// Reason is the decoder's error, without the input.
	Reason string
	// Err is the cause when it is a sentinel (this package's ErrNoKey,
	// informer.ErrUnknownEventType), for errors.Is.
	Err error
}

// Unwrap returns Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// Error names where the object was and why it failed, not its content.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("httpsrc: %s: %s: %s", e.Op, e.Where, e.Reason)
}

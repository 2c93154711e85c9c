package httpsrc

import (
	"bytes"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/informer-go/informer"
)

// Format is a watch stream's wire format.
type Format int

const (
	// FormatAuto chooses by the response's Content-Type:
	// text/event-stream is SSE, anything JSON-like is NDJSON.
	FormatAuto Format = iota
	// FormatSSE is Server-Sent Events (text/event-stream): the event
	// field is the type, data the object, id the version.
	FormatSSE
	// FormatNDJSON is one JSON event per line
	// (application/x-ndjson, application/jsonl): the type, the object and
	// optionally the version at Options.EventType, EventObject and
	// EventVersion.
	FormatNDJSON
	// FormatKubernetes is NDJSON in the shape of Kubernetes watch events,
	// {"type":"ADDED","object":{...}}, with BOOKMARK events carrying the
	// version in the object's metadata and ERROR events carrying a Status
	// (code 410: expired).
	FormatKubernetes
)

// Paging is how the pages of a list follow each other (Options.Paging).
// Whatever it says, a Link header's rel="next" is followed, and every
// page of one list must show the same state (see the package doc).
type Paging int

const (
	// PagingAuto takes the value at Options.Next as the next page's URL
	// when it is an absolute http(s) URL, else as a token.
	PagingAuto Paging = iota
	// PagingToken takes the value at Options.Next as a token, sent back
	// as the Options.ContinueParam query parameter.
	PagingToken
	// PagingURL takes the value at Options.Next as the next page's URL,
	// absolute or relative to the page's (Django REST's "next":
	// "https://api.example/items?cursor=b", or "?page=3").
	PagingURL
	// PagingNumber numbers the pages from 1: the first is the list URL as
	// it is, the next ones add Options.PageParam=2, 3..., up to the first
	// page without items (or a 404, as Django answers for a page past the
	// last). The service must honour the parameter.
	PagingNumber
)

// Defaults of Options.
const (
	DefaultMaxObjectBytes   = 16 << 20
	DefaultMaxResponseBytes = 256 << 20
	DefaultListTimeout      = time.Minute
	DefaultConnectTimeout   = 30 * time.Second
	DefaultPollInterval     = 30 * time.Second
	DefaultReconnectDelay   = 3 * time.Second
	DefaultMinRetry         = time.Second
	DefaultVersionParam     = "resourceVersion"
	DefaultContinueParam    = "continue"
	DefaultPageParam        = "page"
)

// Options configures a Source. The zero value of every field means the
// documented default; only ListURL is required.
type Options[T informer.Object] struct {
	// ListURL is where the whole collection is listed: a GET answering a
	// JSON document with the items.
	ListURL string
	// WatchURL streams changes; "" means poll mode: the list is fetched
	// again every PollInterval (conditionally, with If-None-Match) and
	// compared with the previous one.
	WatchURL string
	// Format is the watch stream's format; FormatAuto by default.
	Format Format

	// Items is the JSON pointer to the items array of a list, such as
	// "/data/items"; "" means the document itself when it is an array,
	// and "/items" otherwise.
	Items string
	// Version is the JSON pointer to the collection's version in a list,
	// "" means "/metadata/resourceVersion" when present. VersionHeader,
	// when set, names a response header holding it instead, such as
	// "X-Resource-Version"; without either, the ETag is the version.
	// A version from an ETag is the entity tag's opaque value, without
	// quotes or W/ (If-None-Match still sends the ETag as received).
	// In poll mode, a list with no version at all (or the same version as
	// the last list with different items) gets one the Source makes up:
	// "poll-1", "poll-2"...
	Version, VersionHeader string
	// NumericVersions says that the service's versions are decimal
	// numbers that grow with every change (a counter, a database's
	// sequence): the Source then orders them (CompareVersions), and an
	// informer's WaitForResourceVersion returns once its cache has applied
	// the version asked for or a later one. Without it, versions are
	// opaque: a version is reached only when the informer sees that very
	// one, in a list, an event or a bookmark. (Versions poll mode makes up
	// are ordered either way.)
	NumericVersions bool
	// Next is the JSON pointer to the next page in a list, ""
	// means "/metadata/continue" when present. Paging says what it holds:
	// by default, a token sent as the ContinueParam query parameter, or,
	// when it is an absolute http(s) URL, the next page's URL (Django
	// REST's "next"). A Link header with rel="next" is followed whatever
	// Next says. A next page is always requested on the list's scheme and
	// host, with the path and query of its URL, whatever host the URL
	// names (a service behind a proxy often names its own address). A
	// next URL or Link header that does not parse fails the list
	// (ErrBadPaging), never ends it early.
	Next          string
	ContinueParam string
	// Paging says how a list's pages follow each other; PagingAuto by
	// default. PageParam is the query parameter of the page number with
	// PagingNumber ("page" by default).
	Paging    Paging
	PageParam string
	// VersionParam is the query parameter with which a watch asks for
	// the changes after a version ("resourceVersion" by default). The
	// version also goes in the Last-Event-ID header, whatever Format
	// says.
	VersionParam string

	// EventType, EventObject and EventVersion are the JSON pointers of an
	// NDJSON event's type, object and version: "/type", "/object" and
	// none (the object's own version) by default. In an SSE stream, when
	// set, EventType finds the type in the event's data for events
	// without an event field ("message"), and EventObject the object in
	// the data (Supabase's {"type":"INSERT","record":{...}}: "/type",
	// "/record"); unset, the event field is the type and the data the
	// object.
	EventType, EventObject, EventVersion string
	// Types maps the event type names of the stream to informer event
	// types; nil means DefaultTypes. Names are matched without regard to
	// case, in the stream and in Types' keys ("Flag.Created" matches
	// flag.created). A name mapped to Ignore is skipped without a word
	// (keep-alive events such as gin's "ping"); one mapped to no type
	// (absent) is a bad event, reported and skipped.
	Types map[string]informer.EventType
	// EpochHeader names a response header that tells the service's
	// instance or epoch apart (X-Instance-Id, X-Epoch: whatever changes
	// when its versions start again). When a stream's differs from the
	// last list's, the watch is expired (informer.ErrExpired) and the
	// reflector lists again. Without one, a restart that resets the
	// versions is seen only when the version resumed from is past the new
	// history (the service answers ExpiredStatus, or replays older
	// versions, which are out of order with NumericVersions); a client that
	// resumes inside the new history keeps, healthy, the objects the
	// restart lost. "" means none.
	EpochHeader string
	// ExpiredStatus lists the HTTP statuses that mean "this version is
	// too old, list again" (informer.ErrExpired); nil means 410 Gone.
	// ExpiredEvent is the event type name that means the same in a
	// stream ("expired" by default).
	ExpiredStatus []int
	ExpiredEvent  string

	// Key is the key objects are told apart by, when it is not
	// informer.MetaKey ("namespace/name"): an id, say. The Source checks
	// that every object has one (an object whose Key fails, or is "", is
	// ErrNoKey: it fails its list, or is a bad event), poll mode compares
	// lists by it, and an informer over the Source keys its cache by it
	// (the Source is an informer.KeyedSource): leave
	// informer.Options.KeyFunc nil. nil means MetaKey, and objects must
	// have a name. It is called from the Source's goroutines and must be
	// safe for concurrent use.
	Key informer.KeyFunc[T]

	// ReconnectDelay is how long a watch waits before it reconnects after
	// a stream that ended within a second of opening, after an event or a
	// keep-alive, when the stream gave no SSE retry field: DefaultReconnectDelay (3 s, as browsers
	// wait) by default, negative for none. A stream cut after a longer run
	// is resumed at once. It bounds the rate of reconnections to a server
	// that ends every stream after an event (a close-after-send endpoint),
	// at the cost of that much delay for each change it sends.
	ReconnectDelay time.Duration
	// MinRetry is the least wait an SSE retry field can ask for: a retry
	// below it (retry: 0) is raised to it. DefaultMinRetry (1 s) by
	// default, negative for none. A retry field, once read, delays every
	// later watch, as the standard says.
	MinRetry time.Duration

	// PollInterval is the poll mode's period; DefaultPollInterval (30 s)
	// by default. Each poll costs one conditional list: a 304 Not
	// Modified costs almost nothing; anything else, a whole list.
	PollInterval time.Duration

	// Client sends the requests; nil means http.DefaultClient. The Source
	// uses a copy whose CheckRedirect removes credentials on a redirect to
	// another host (see Header), then applies Client's own. Put
	// authentication in Header, or in its Transport (which then answers
	// for where it sends it).
	Client *http.Client
	// Header, when set, is called on every request before it is sent, to
	// add authentication or other headers. What it sets never leaves the
	// request's host: on a redirect to another scheme or host:port, the
	// headers it set, and Authorization, Proxy-Authorization and Cookie,
	// are removed (net/http alone keeps custom headers such as X-Api-Key,
	// and keeps the others on a subdomain).
	Header func(*http.Request) error
	// ListTimeout bounds a list request; DefaultListTimeout (1 min) by
	// default, negative for none.
	ListTimeout time.Duration
	// ConnectTimeout bounds the wait for a watch's response headers
	// (DefaultConnectTimeout, 30 s; negative for none): a server that
	// accepts the connection and never answers fails with ErrTimeout. An
	// open stream is bounded by its context and by the reflector's stall
	// detection.
	ConnectTimeout time.Duration
	// MaxObjectBytes bounds one object, line or event
	// (DefaultMaxObjectBytes, 16 MiB); MaxResponseBytes one list response
	// (DefaultMaxResponseBytes, 256 MiB).
	MaxObjectBytes, MaxResponseBytes int64
}

// Ignore, as the type of a name in Options.Types, marks events to skip
// without a word: keep-alive events such as gin's "event: ping" with
// "data: keep-alive". They are neither errors nor bookmarks (they carry no
// version); like SSE comments and blank NDJSON lines, they only show the
// stream is alive.
const Ignore informer.EventType = 255

// DefaultTypes are the event type names understood when Options.Types is
// nil: Kubernetes' (ADDED, MODIFIED, DELETED, BOOKMARK), the usual verbs
// (add, create, insert, update, change, upsert, put, delete, remove...: a
// Postgres change feed's or Supabase's INSERT, UPDATE, DELETE), and the
// usual keep-alive events (ping, keep-alive, keepalive: Ignore). An SSE
// event without a type ("message") is an upsert. A dotted name that is not
// in the map is looked up by its last part, in DefaultTypes or in
// Options.Types: GitHub's or Stripe's charge.created, issue.updated,
// customer.subscription.deleted.
var DefaultTypes = map[string]informer.EventType{
	"added": informer.EventAdded, "add": informer.EventAdded, "create": informer.EventAdded, "created": informer.EventAdded,
	"modified": informer.EventModified, "update": informer.EventModified, "updated": informer.EventModified,
	"change": informer.EventModified, "changed": informer.EventModified, "upsert": informer.EventModified,
	"put": informer.EventModified, "message": informer.EventModified, "": informer.EventModified,
	"insert": informer.EventAdded, "inserted": informer.EventAdded,
	"deleted": informer.EventDeleted, "delete": informer.EventDeleted, "removed": informer.EventDeleted, "remove": informer.EventDeleted,
	"bookmark": informer.EventBookmark, "heartbeat": informer.EventBookmark,
	"ping": Ignore, "keep-alive": Ignore, "keepalive": Ignore,
}

// lowerTypes returns types with its keys in lower case, as eventType
// looks them up.
func lowerTypes(types map[string]informer.EventType) map[string]informer.EventType {
	if types == nil {
		return nil
	}
	m := make(map[string]informer.EventType, len(types))
	for name, t := range types {
		m[strings.ToLower(name)] = t
	}
	return m
}

func (o *Options[T]) eventType(name []byte) (informer.EventType, bool) {
	types := o.Types
	if types == nil {
		types = DefaultTypes
	}
	if t, ok := lookupType(types, name); ok {
		return t, true
	}
	// A dotted name, as GitHub's and Stripe's (charge.created,
	// customer.subscription.deleted): by its last part.
	if i := bytes.LastIndexByte(name, '.'); i >= 0 && i < len(name)-1 {
		return lookupType(types, name[i+1:])
	}
	return 0, false
}

// lookupType looks name up in types, whose keys are in lower case,
// without regard to case.
func lookupType(types map[string]informer.EventType, name []byte) (informer.EventType, bool) {
	if t, ok := types[string(name)]; ok { // no allocation
		return t, true
	}
	// The keys are in lower case (New lowers them): lower an ASCII name
	// on the stack (no allocation), any other with strings.ToLower.
	var buf [64]byte
	if len(name) <= len(buf) {
		ascii := true
		for i, c := range name {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			ascii = ascii && c < utf8.RuneSelf
			buf[i] = c
		}
		if ascii {
			t, ok := types[string(buf[:len(name)])]
			return t, ok
		}
	}
	t, ok := types[strings.ToLower(string(name))]
	return t, ok
}

func (o *Options[T]) expired(code int) bool {
	if o.ExpiredStatus == nil {
		return code == http.StatusGone
	}
	for _, c := range o.ExpiredStatus {
		if c == code {
			return true
		}
	}
	return false
}

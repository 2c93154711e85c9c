package events

import (
	"container/list"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/informer-go/informer/internal/tokenbucket"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Defaults of Options; the spam filter's are client-go's.
const (
	DefaultQueueSize      = 1000
	DefaultBurst          = 25
	DefaultRefillInterval = 5 * time.Minute
	DefaultSeriesInterval = 30 * time.Second
	DefaultSeriesExpiry   = 6 * time.Minute
	DefaultCacheSize      = 4096
	DefaultRequestTimeout = 10 * time.Second
	DefaultMaxAttempts    = 6
	DefaultFlushTimeout   = 5 * time.Second
)

// Limits of the events.k8s.io/v1 API.
const (
	maxNoteBytes   = 1024
	maxReasonBytes = 128
)

// ErrInvalidOptions wraps what NewRecorder finds wrong with the Options.
var ErrInvalidOptions = errors.New("events: invalid options")

// ErrRunning is returned by Run while another Run of the same Recorder
// has not returned.
var ErrRunning = errors.New("events: recorder already running")

// Options configures a Recorder. ReportingController is required; the
// zero value of every other field means its documented default.
type Options struct {
	// ReportingController names the controller in every event, like
	// "example.com/mirror".
	ReportingController string
	// ReportingInstance names this instance; "" means
	// ReportingController + "-" + the host name, as client-go does.
	ReportingInstance string
	// QueueSize bounds the events waiting to be written; when it is full,
	// Eventf drops the event, counts it (Stats.Dropped) and logs how many
	// it dropped. 0 means DefaultQueueSize (1000).
	QueueSize int
	// Burst and RefillInterval are the spam filter: a token bucket per
	// regarding object, holding Burst tokens (0 means DefaultBurst, 25)
	// and gaining one each RefillInterval (0 means DefaultRefillInterval,
	// 5 min). Each new event about the object takes a token; one without
	// is filtered (Stats.Filtered). Repeats of an event already recorded
	// are counted in its series and take none.
	Burst          int
	RefillInterval time.Duration
	// SeriesInterval is how often the count of a repeated event is
	// written: the second occurrence is written at once, later ones at
	// most once per SeriesInterval (0 means DefaultSeriesInterval, 30 s).
	SeriesInterval time.Duration
	// SeriesExpiry ends a series not observed for so long: the next
	// occurrence is a new event. 0 means DefaultSeriesExpiry (6 min).
	SeriesExpiry time.Duration
	// CacheSize bounds the events remembered for counting; the least
	// recently observed are forgotten first. 0 means DefaultCacheSize.
	CacheSize int
	// RequestTimeout bounds each write (0 means 10 s), and MaxAttempts
	// the writes of one event (0 means 6), with a backoff between them
	// that starts at half a second and doubles up to 5 s: 12.5 s in all,
	// longer than an API server takes to restart. A write whose outcome is
	// unknown (the connection dropped after sending) is tried again too:
	// at worst an event is recorded twice.
	RequestTimeout time.Duration
	MaxAttempts    int
	// FlushTimeout bounds the writing of what is still queued when Run's
	// context ends (0 means 5 s).
	FlushTimeout time.Duration
	// Logger receives drops and failed writes (Warn) and each write
	// (Debug), naming the regarding object and the reason, never the
	// note. nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives the counts of Stats as they happen; its zero value
	// reports nothing.
	Metrics Metrics
}

// Stats counts what a Recorder did with the events it was given.
type Stats struct {
	// Recorded counts the events written as new Events.
	Recorded int64
	// Counted counts the repeats added to the series of an event.
	Counted int64
	// Filtered counts the events refused by the spam filter.
	Filtered int64
	// Dropped counts the events dropped because the queue was full.
	Dropped int64
	// Invalid counts the events refused for a missing or invalid type,
	// reason or action.
	Invalid int64
	// Failed counts the writes given up after MaxAttempts.
	Failed int64
}

// Recorder records events.k8s.io/v1 Events about objects, asynchronously:
// Eventf never blocks on the API server, and Run writes the events on its
// own goroutine. Repeats of an event (same regarding and related object,
// type, reason and action) within SeriesExpiry are counted in the
// event's series instead of being written again, and new events about one
// object are rate limited, as client-go's recorder does.
//
// A Recorder is safe for concurrent use. Create one with NewRecorder and
// call Run once; events given before Run starts wait in the queue.
type Recorder struct {
	client   EventClient
	opts     Options
	log      *slog.Logger
	queue    chan *entry
	running  atomic.Bool
	instance string

	mu      sync.Mutex
	cache   map[eventKey]*entry
	lru     list.List // of *entry, most recently observed first
	buckets map[refKey]*bucket
	stats   Stats
	logged  int64  // Dropped when last logged
	lastID  int64  // the last name suffix made
	nameTag string // this Recorder's, in every name it makes: 8 random hex digits
}

// refKey is an object reference without its resourceVersion: every
// version of an object is the same object for counting and filtering.
type refKey struct {
	apiVersion, kind, namespace, name, uid, fieldPath string
}

func keyOf(r *ObjectReference) refKey {
	if r == nil {
		return refKey{}
	}
	return refKey{r.APIVersion, r.Kind, r.Namespace, r.Name, string(r.UID), r.FieldPath}
}

// eventKey is what makes two events the same event, counted in a series.
type eventKey struct {
	regarding, related  refKey
	typ, reason, action string
}

// entry is an event as remembered: what the server has and what is yet to
// be written. Its fields are guarded by Recorder.mu.
type entry struct {
	key      eventKey
	ev       Event // as first recorded; Name set once created
	created  bool
	count    int32     // occurrences observed
	written  int32     // occurrences the server has
	last     time.Time // last observed
	lastSent time.Time
	queued   bool
	elem     *list.Element
}

// NewRecorder returns a Recorder that writes through client. It starts
// nothing: call Run.
func NewRecorder(client EventClient, opts Options) (*Recorder, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil EventClient", ErrInvalidOptions)
	}
	if opts.ReportingController == "" {
		return nil, fmt.Errorf("%w: ReportingController is required", ErrInvalidOptions)
	}
	if opts.ReportingInstance == "" {
		host, _ := os.Hostname()
		opts.ReportingInstance = opts.ReportingController + "-" + host
	}
	if len(opts.ReportingInstance) > 128 {
		return nil, fmt.Errorf("%w: ReportingInstance is over 128 bytes", ErrInvalidOptions)
	}
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	defD := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&opts.QueueSize, DefaultQueueSize)
	def(&opts.Burst, DefaultBurst)
	def(&opts.CacheSize, DefaultCacheSize)
	def(&opts.MaxAttempts, DefaultMaxAttempts)
	defD(&opts.RefillInterval, DefaultRefillInterval)
	defD(&opts.SeriesInterval, DefaultSeriesInterval)
	defD(&opts.SeriesExpiry, DefaultSeriesExpiry)
	defD(&opts.RequestTimeout, DefaultRequestTimeout)
	defD(&opts.FlushTimeout, DefaultFlushTimeout)
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Recorder{
		client:  client,
		opts:    opts,
		log:     log.With("reportingController", opts.ReportingController),
		queue:   make(chan *entry, opts.QueueSize),
		cache:   map[eventKey]*entry{},
		buckets: map[refKey]*bucket{},
		nameTag: fmt.Sprintf("%08x", rand.Uint32()),
	}, nil
}

// Stats returns the counts so far.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Eventf records an event about regarding (and related, if not nil): its
// type (Normal or Warning), reason (why, like "Mirrored"), action (what
// was done) and note (fmt.Sprintf(note, args...) when args are given, cut
// to 1 KiB). It never blocks: the event is queued for Run, counted into
// the series of the same earlier event, filtered as spam, or dropped
// when the queue is full.
func (r *Recorder) Eventf(regarding ObjectReference, related *ObjectReference, eventtype, reason, action, note string, args ...any) {
	if !validEvent(regarding, eventtype, reason, action) {
		r.mu.Lock()
		r.stats.Invalid++
		r.mu.Unlock()
		r.opts.Metrics.dropped(DropInvalid)
		r.log.Warn("events: invalid event not recorded", "regarding", regarding.String(), "type", eventtype, "reason", reason, "action", action)
		return
	}
	now := time.Now()
	key := eventKey{regarding: keyOf(&regarding), related: keyOf(related), typ: eventtype, reason: reason, action: action}

	r.mu.Lock()
	if e := r.cache[key]; e != nil && now.Sub(e.last) < r.opts.SeriesExpiry {
		e.count++
		e.last = now
		r.lru.MoveToFront(e.elem)
		r.stats.Counted++
		if e.count == 2 && e.created && !e.queued {
			r.enqueueLocked(e, false) // the first repeat is written at once
		}
		r.mu.Unlock()
		r.opts.Metrics.aggregated()
		return
	} else if e != nil {
		r.forgetLocked(e)
	}
	if !r.takeLocked(key.regarding, now) {
		r.stats.Filtered++
		r.mu.Unlock()
		r.opts.Metrics.dropped(DropSpam)
		r.log.Debug("events: filtered as spam", "regarding", regarding.String(), "reason", reason)
		return
	}
	if len(args) > 0 {
		note = fmt.Sprintf(note, args...)
	}
	ns := regarding.Namespace
	if ns == "" {
		ns = "default"
	}
	e := &entry{key: key, count: 1, last: now, ev: Event{
		ObjectMeta:          r.objectMetaLocked(ns, regarding.Name, now),
		EventTime:           microTime(now),
		ReportingController: r.opts.ReportingController,
		ReportingInstance:   r.opts.ReportingInstance,
		Action:              action,
		Reason:              reason,
		Regarding:           regarding,
		Related:             clone(related),
		Note:                truncate(note, maxNoteBytes),
		Type:                eventtype,
	}}
	if !r.enqueueLocked(e, true) {
		first := r.stats.Dropped-r.logged == 1
		r.mu.Unlock()
		r.opts.Metrics.dropped(DropQueueFull)
		if first {
			r.log.Warn("events: queue full, dropping events", "queueSize", r.opts.QueueSize, "regarding", regarding.String(), "reason", reason)
		}
		return
	}
	r.cache[key] = e
	e.elem = r.lru.PushFront(e)
	for len(r.cache) > r.opts.CacheSize {
		old := r.lru.Back().Value.(*entry)
		if old.queued {
			break // in the queue: forgotten once written
		}
		r.forgetLocked(old)
	}
	r.mu.Unlock()
}

// validEvent reports whether an event may be recorded: a known type, a
// reason and an action of at most maxReasonBytes, and a named object.
func validEvent(regarding ObjectReference, eventtype, reason, action string) bool {
	return (eventtype == Normal || eventtype == Warning) && reason != "" && action != "" &&
		len(reason) <= maxReasonBytes && len(action) <= maxReasonBytes && regarding.Name != ""
}

// enqueueLocked queues e for a write. When the queue is full, a new event
// is dropped (and counted); a count to write waits for the next sweep.
func (r *Recorder) enqueueLocked(e *entry, isNew bool) bool {
	select {
	case r.queue <- e:
		e.queued = true
		return true
	default:
		if isNew {
			r.stats.Dropped++
		}
		return false
	}
}

func (r *Recorder) forgetLocked(e *entry) {
	if r.cache[e.key] == e {
		delete(r.cache, e.key)
	}
	if e.elem != nil {
		r.lru.Remove(e.elem)
		e.elem = nil
	}
}

// bucket is the spam filter of one object.
type bucket struct {
	tokenbucket.Bucket
	last time.Time // last taken from
}

// takeLocked takes a token of the spam filter of the object.
func (r *Recorder) takeLocked(k refKey, now time.Time) bool {
	b := r.buckets[k]
	if b == nil {
		b = &bucket{Bucket: tokenbucket.New(1/r.opts.RefillInterval.Seconds(), r.opts.Burst)}
		r.buckets[k] = b
	}
	if b.Take(now) > 0 {
		b.Return()
		return false
	}
	b.last = now
	return true
}

// truncate cuts s to at most n bytes, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// objectMetaLocked names a new event: the object's name and the time in
// nanoseconds, in hex, as client-go does, made unique within the Recorder
// (two events in the same nanosecond, or a clock that stands still), and
// then the Recorder's tag, so that replicas (each with its Recorder) that
// report on one object at the same moment do not take each other's name
// (a 409, and a retry after a backoff).
//
// The object's name is cut so that the event's stays within the 253
// characters of a name (a DNS subdomain): the server refuses a longer one.
func (r *Recorder) objectMetaLocked(ns, name string, now time.Time) metav1.ObjectMeta {
	id := max(now.UnixNano(), r.lastID+1)
	r.lastID = id
	suffix := "." + strconv.FormatInt(id, 16) + r.nameTag
	if n := maxNameBytes - len(suffix); len(name) > n {
		name = strings.TrimRight(name[:n], ".-")
	}
	return metav1.ObjectMeta{Namespace: ns, Name: name + suffix}
}

// maxNameBytes is the longest name the API server accepts for an Event.
const maxNameBytes = 253

// clone copies a reference the caller may change after Eventf returns.
func clone(r *ObjectReference) *ObjectReference {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

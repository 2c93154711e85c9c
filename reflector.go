package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Sink is what a Reflector writes into. *DeltaFIFO satisfies it. A sink
// that also has a method Progress() is called each time the reflector's
// version (LastSyncResourceVersion) has moved on: after the write that
// moved it, or for a bookmark, without one. It must be cheap: it is called
// once per event.
//
// A relist arrives as BeginReplace, any number of ReplaceItems (one per
// page), then EndReplace: the items are the complete state, and whatever the
// sink held that is not among them has vanished. A relist that fails half
// way is followed by a new BeginReplace.
type Sink[T Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	BeginReplace()
	ReplaceItems(items []T) error
	EndReplace() error
}

// ReflectorOptions configures a Reflector. The zero value means the
// documented defaults.
type ReflectorOptions struct {
	// Name identifies the reflector in logs and errors.
	Name string
	// PageSize is the Limit of each List call. 0 (the default) leaves it
	// to the source: source/kube pages by its kube.Options.PageSize (500 by
	// default), source/memory does not page. A positive value overrides
	// the source's; a negative one asks for the whole collection in one
	// response.
	PageSize int64
	// ListResourceVersion is the ResourceVersion of the first list: ""
	// (default) for the most recent state, or "0" to accept a possibly stale
	// one that is cheaper for the server. A relist after an expired version
	// always uses "".
	ListResourceVersion string
	// WatchList says whether the reflector syncs with a streaming list (a
	// watch with SendInitialEvents) instead of List. The default,
	// WatchListAuto, follows the source: on for a source that says it
	// prefers streaming lists (source/kube does), off otherwise. When the
	// source cannot serve one (ErrWatchListUnsupported, or a stream that
	// shows the server ignored the request) the reflector falls back to
	// List for good.
	WatchList WatchListMode
	// MinWatchTimeout is the shortest server-side timeout asked of a watch;
	// each watch asks for a random value in [MinWatchTimeout,
	// 2×MinWatchTimeout), so that many clients do not reconnect at once.
	// Default 5m. A watch still open a minute past its timeout is closed:
	// as a normal end if events came, as stalled (an error, then backoff)
	// if it stayed silent.
	MinWatchTimeout time.Duration
	// Backoff paces retries after errors.
	Backoff Backoff
	// OnError, if set, is called with every error the reflector meets:
	// *SourceError for failed calls and *ObjectError for rejected objects and
	// events. It is called from the reflector's goroutine and must not block
	// for long.
	OnError func(error)
	// Logger receives the same errors; nil means slog.Default().
	Logger *slog.Logger
}

// WatchListMode says whether a Reflector syncs with a streaming list. See
// ReflectorOptions.WatchList.
type WatchListMode int8

const (
	// WatchListAuto uses a streaming list when the Source implements
	// WatchListPreferrer and prefers one.
	WatchListAuto WatchListMode = iota
	// WatchListOn tries a streaming list first, whatever the source says.
	WatchListOn
	// WatchListOff always lists.
	WatchListOff
)

// String returns "Auto", "On" or "Off".
func (m WatchListMode) String() string {
	switch m {
	case WatchListAuto:
		return "Auto"
	case WatchListOn:
		return "On"
	case WatchListOff:
		return "Off"
	}
	return fmt.Sprintf("WatchListMode(%d)", int8(m))
}

// WatchListPreferrer may be implemented by a Source to say whether a
// reflector left at WatchListAuto should sync from a streaming list. A
// source that prefers one must still answer a refusal of its server with
// ErrWatchListUnsupported, so that the reflector falls back to List.
type WatchListPreferrer interface {
	PrefersWatchList() bool
}

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

// Reflector lists a Source and then watches it, writing what it reads into a
// Sink. It is a loop over explicit states:
//
//	list     → paged List from scratch into BeginReplace/ReplaceItems/EndReplace, then watch;
//	           a continue token that expires half way → one unpaginated List at once;
//	           a later page that fails otherwise → the same page again (up to 4 times)
//	watch    → Watch from the last resourceVersion seen; events go to Add/Update/Delete
//	watch ends cleanly or times out → watch again, from the last resourceVersion
//	watch fails                     → back off, then watch again from the last resourceVersion
//	"expired" (ErrExpired)          → list again, asking for the most recent state
//	event out of order              → list again
//	streaming list (WatchList)      → like list, but the first watch sends the state first
//
// Errors back off with a capped, jittered exponential delay that resets after
// a healthy run.
type Reflector[T Object] struct {
	src  Source[T]
	sink Sink[T]
	opts ReflectorOptions
	log  *slog.Logger

	mu     sync.Mutex
	lastRV string

	onProgress func() // the sink's Progress, if it has one

	noWatchList bool      // lists only: streaming lists are off or the source refused one
	failures    int       // consecutive source errors, for report
	lastWarn    time.Time // when report last logged at Warn
	progress    bool      // a watch delivered events or ran a while since the last expiry
	initialSeen bool      // the current streaming list delivered an initial event
}

// NewReflector returns a Reflector that reads src into sink.
func NewReflector[T Object](src Source[T], sink Sink[T], opts ReflectorOptions) *Reflector[T] {
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	r := &Reflector[T]{src: src, sink: sink, opts: opts, log: opts.Logger}
	if r.log == nil {
		r.log = slog.Default()
	}
	if opts.Name != "" {
		r.log = r.log.With("reflector", opts.Name)
	}
	if p, ok := sink.(interface{ Progress() }); ok {
		r.onProgress = p.Progress
	}
	switch opts.WatchList {
	case WatchListOn:
	case WatchListAuto:
		p, ok := src.(WatchListPreferrer)
		r.noWatchList = !ok || !p.PrefersWatchList()
	default:
		r.noWatchList = true
	}
	return r
}

// LastSyncResourceVersion returns the resourceVersion of the last list or
// event the reflector wrote into its sink, or "" before the first list.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

func (r *Reflector[T]) setLastRV(rv string) {
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
	if r.onProgress != nil {
		r.onProgress()
	}
}

type reflectorState int

const (
	stateList reflectorState = iota
	stateWatch
)

// streamBatch is how many objects of a streaming list's initial events
// go to the sink at once: PageSize, or 500.
func (r *Reflector[T]) streamBatch() int {
	if r.opts.PageSize > 0 {
		return int(min(r.opts.PageSize, 1<<20))
	}
	return 500
}

// pageRetries is how many times a list asks again for a page after the
// first that failed, before it gives up and starts over after a backoff.
const pageRetries = 4

// productiveAfter is how long a watch must stay open to count as
// productive without delivering an event: a failure after it is resumed at
// once instead of backing off.
const productiveAfter = time.Second

// errStalled reports a watch that stayed silent past its deadline.
var errStalled = errors.New("informer: watch stalled")

// initialIdle is how long a streaming list may stay silent (before its
// server answers, and between its initial events) before the reflector
// decides that the server ignored the request and lists instead.
const initialIdle = 10 * time.Second

// errInitialIdle reports a streaming list that stayed silent for
// initialIdle.
var errInitialIdle = fmt.Errorf("no initial event for %s", initialIdle)

// Run lists and watches until ctx ends, and then returns ctx's cause.
//
// Reconnecting: a watch that made progress (delivered an event, or stayed
// open for a while) and then ended, cleanly or with an error, is resumed at
// once from the last resourceVersion. Only failures that made no progress
// back off, and the backoff starts over after a successful list and after
// every productive watch, so a blip costs a reconnect, not seconds of
// staleness, while a server that is down is retried ever less often.
func (r *Reflector[T]) Run(ctx context.Context) error {
	b := newBackoff(r.opts.Backoff)
	state := stateList
	listRV := r.opts.ListResourceVersion
	stalled := false  // relisting after expiries that made no progress
	streamCuts := 0   // streaming lists cut in a row after sending something
	listOnce := false // the next sync is a List: a streaming list had an unreadable event
	for ctx.Err() == nil {
		var err error
		productive := false
		switch state {
		case stateList:
			if !r.noWatchList && !listOnce {
				var listed bool
				r.initialSeen = false
				listed, productive, err = r.stream(ctx, b, true)
				switch {
				case listed:
					streamCuts = 0
				case err != nil && r.initialSeen && streamCuts < pageRetries && !errors.Is(err, ErrBadEvent):
					// Cut after sending part of the state: start over
					// after the initial delay, not a growing one, a few
					// times (as a paged list asks a failed page again).
					// Not for an object it could not read: that is no
					// accident of the connection, and will be there again.
					streamCuts++
					b.reset()
				}
				if errors.Is(err, ErrWatchListUnsupported) {
					r.log.Info("streaming list not supported by the source; falling back to list", "err", err)
					r.noWatchList = true
					continue
				}
				if errors.Is(err, ErrBadEvent) && ctx.Err() == nil {
					// An event of the list it could not read: an object
					// of the list, or a garbled line. List instead, at
					// once: a List reads every object or fails saying
					// why, and a stream's stray line does not hold the
					// sync back (retrying the stream could starve).
					r.report(err)
					listOnce = true
					continue
				}
				if listed {
					state = stateWatch
				}
			} else {
				listOnce = false
				err = r.list(ctx, listRV)
				if err == nil {
					if !stalled {
						b.reset()
					}
					r.failures = 0
					state = stateWatch
					continue
				}
			}
		case stateWatch:
			_, productive, err = r.stream(ctx, b, false)
		}
		if ctx.Err() != nil {
			break
		}
		if productive {
			b.reset()
			r.failures = 0
			stalled = false
		}
		switch {
		case err == nil:
			continue // a clean end: watch again at once
		case errors.Is(err, ErrExpired), errors.Is(err, ErrOutOfOrder):
			// Relist from the most recent state: an older one may be gone.
			// At once the first time after progress; if it expires again
			// before anything was read, back off like any error.
			r.reportRoutine(err)
			state, listRV = stateList, ""
			if r.progress && errors.Is(err, ErrExpired) {
				r.progress = false
				continue
			}
			// Expired again with nothing read: the lists that follow
			// do not reset the backoff until a watch makes progress.
			stalled = true
		case productive && state == stateWatch:
			// A watch that delivered and then broke (a reset, a
			// load balancer's cut): resume at once.
			r.reportRoutine(err)
			continue
		default:
			r.report(err)
		}
		if !sleep(ctx, b.delay(time.Now())) {
			break
		}
	}
	return context.Cause(ctx)
}

// sleep waits for d or ctx's end, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// report logs and hands on an error. A source that keeps failing (a
// server down for a while) is logged at Warn on its 1st, 2nd, 4th, 8th...
// consecutive failure and at least once a minute, with the count, and at
// Debug in between; OnError gets every one.
func (r *Reflector[T]) report(err error) {
	var se *SourceError
	if errors.As(err, &se) {
		r.failures++
		now := time.Now()
		if r.failures&(r.failures-1) != 0 && now.Sub(r.lastWarn) < time.Minute {
			r.log.Debug("informer reflector", "err", err, "failures", r.failures)
		} else {
			r.log.Warn("informer reflector", "err", err, "failures", r.failures)
			r.lastWarn = now
		}
	} else {
		r.log.Warn("informer reflector", "err", err)
	}
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
}

// reportRoutine reports an error that the reflector recovers from by
// itself at once (an expired resourceVersion and its relist, a productive
// watch cut and resumed): at Info level, since nothing is wrong.
func (r *Reflector[T]) reportRoutine(err error) {
	r.log.Info("informer reflector: recovering", "err", err)
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
}

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

// list reads the whole collection, page by page, into a replacement.
func (r *Reflector[T]) list(ctx context.Context, rv string) error {
	opts := ListOptions{ResourceVersion: rv, Limit: max(r.opts.PageSize, NoLimit)}
	r.sink.BeginReplace()
	listRV := ""
	retries := 0 // of the current page
	for {
		page, err := r.src.List(ctx, opts)
		if err != nil && opts.Continue != "" && !errors.Is(err, ErrExpired) && ctx.Err() == nil && retries < pageRetries {
			// A later page failed (a cut connection, a truncated body,
			// a 500): its continue token is still good, so ask for that
			// page again rather than start over, which, under a fault
			// rate per page, a long list might never get through.
			r.reportRoutine(sourceError("list", rv, err))
			if !sleep(ctx, (50*time.Millisecond)<<retries+rand.N(50*time.Millisecond)) {
				return sourceError("list", rv, err)
			}
			retries++
			continue
		}
		retries = 0
		if err != nil && opts.Continue != "" && errors.Is(err, ErrExpired) {
			// The snapshot the pages came from was compacted away. Paging
			// again could expire again, for ever, under frequent
			// compaction: list the whole collection in one request, at
			// once, which cannot expire half way.
			r.reportRoutine(sourceError("list", rv, err))
			opts = ListOptions{Limit: NoLimit}
			r.sink.BeginReplace()
			listRV = ""
			continue
		}
		if err != nil {
			return sourceError("list", rv, err)
		}
		if listRV == "" {
			listRV = page.ResourceVersion
		}
		if err := r.sink.ReplaceItems(page.Items); err != nil {
			r.report(err) // bad items are skipped; the rest is in
		}
		// Drop the page so its backing array can be collected while the
		// next one is read.
		page.Items = nil
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
		opts.ResourceVersion = ""
	}
	if err := r.sink.EndReplace(); err != nil {
		return err
	}
	r.setLastRV(listRV)
	return nil
}

// stream watches from the last resourceVersion until the stream ends. With
// initial, it is a streaming list: the initial events become a replacement
// (listed reports that it completed), and the same stream then goes on as a
// watch.
//
// productive reports that the watch delivered an event after its initial
// events, or stayed open for productiveAfter: a failure after it is a
// blip, not an outage.
func (r *Reflector[T]) stream(ctx context.Context, b *backoff, initial bool) (listed, productive bool, err error) {
	timeout := r.opts.MinWatchTimeout + rand.N(r.opts.MinWatchTimeout)
	// A watch that stays open well past the timeout it asked for is stalled.
	wctx, cancel := context.WithTimeoutCause(ctx, timeout+time.Minute, errStalled)
	defer cancel()
	from := r.LastSyncResourceVersion()
	op := "watch"
	var initialEvents atomic.Int64 // events of a streaming list so far
	if initial {
		from, op = "", "watchlist"
		// A server that serves streaming lists sends the initial events
		// back to back; one silent for initialIdle before their end
		// marker (or before answering at all) ignored the request.
		var cancelIdle context.CancelCauseFunc
		wctx, cancelIdle = context.WithCancelCause(wctx)
		defer cancelIdle(nil)
		seen := int64(0)
		var idle *time.Timer
		idle = time.AfterFunc(initialIdle, func() {
			switch n := initialEvents.Load(); {
			case n < 0: // the initial events ended
			case n != seen:
				seen = n
				idle.Reset(initialIdle)
			default:
				cancelIdle(errInitialIdle)
			}
		})
		defer idle.Stop()
	}
	started := time.Now()
	w, err := r.src.Watch(wctx, WatchOptions{
		ResourceVersion:   from,
		AllowBookmarks:    true,
		Timeout:           timeout,
		SendInitialEvents: initial,
	})
	if err != nil {
		if initial && errors.Is(err, ErrWatchListUnsupported) {
			return false, false, err
		}
		if initial && ctx.Err() == nil && errors.Is(context.Cause(wctx), errInitialIdle) {
			return false, false, fmt.Errorf("%w: %w", ErrWatchListUnsupported, errInitialIdle)
		}
		return false, false, sourceError(op, from, err)
	}
	defer w.Close()

	var pageBuf []T
	inInitial := initial
	if initial {
		r.sink.BeginReplace()
		pageBuf = make([]T, 0, r.streamBatch())
	}
	flush := func() {
		if len(pageBuf) == 0 {
			return
		}
		if err := r.sink.ReplaceItems(pageBuf); err != nil {
			r.report(err)
		}
		clear(pageBuf)
		pageBuf = pageBuf[:0]
	}
	events := 0 // after the initial events
	last := newVersion(from)
	done := func() (bool, bool) { // listed, productive
		return initial && !inInitial, !inInitial && (events > 0 || time.Since(started) >= productiveAfter)
	}
	for {
		ev, err := w.Next()
		if inInitial {
			initialEvents.Add(1)
		}
		if err != nil && errors.Is(err, ErrBadEvent) {
			if inInitial && !errors.Is(err, ErrUnknownEventType) {
				// An object of the list that cannot be read fails the
				// list, as an undecodable item fails a List: skipping it
				// would report synced a cache that lacks it, and nothing
				// would bring it back before the next relist. (An event
				// of a type it does not know carries no object of the
				// list: skipped, as in a watch.)
				return false, false, sourceError(op, from, err)
			}
			r.report(&ObjectError{Op: op, Err: err})
			continue
		}
		if err != nil {
			listed, productive := done()
			if ctx.Err() != nil {
				return listed, productive, nil
			}
			if inInitial && errors.Is(context.Cause(wctx), errInitialIdle) {
				return false, false, fmt.Errorf("%w: %w", ErrWatchListUnsupported, errInitialIdle)
			}
			if errors.Is(err, io.EOF) || errors.Is(context.Cause(wctx), errStalled) {
				if errors.Is(context.Cause(wctx), errStalled) {
					if events > 0 && !inInitial {
						// Busy past its deadline: the source ignores
						// timeouts. End it like a server-side timeout.
						return listed, productive, nil
					}
					// Silent past its deadline: however long it was
					// open, it was not working.
					err, productive = errStalled, false
				} else if productive {
					r.progress = true
					return listed, productive, nil // a clean end after a useful watch
				}
				if !errors.Is(err, errStalled) && !inInitial {
					err = errors.New("watch ended at once without an event")
				}
			}
			if inInitial && errors.Is(err, io.EOF) {
				// A server that serves streaming lists holds the stream
				// open until their end marker; one that ends it first
				// ignored the request (a proxy that drops the parameters,
				// a fake server): list instead.
				return false, false, fmt.Errorf("%w: the stream ended before the end of its initial events", ErrWatchListUnsupported)
			}
			return listed, productive, sourceError(op, from, err)
		}
		if !inInitial {
			events++
		}
		r.progress = true
		rv := ev.ResourceVersion
		switch ev.Type {
		case EventAdded, EventModified, EventDeleted:
			if isNil(ev.Object) {
				r.report(&ObjectError{Op: op, Err: fmt.Errorf("%s event: %w", ev.Type, ErrNilObject)})
				continue
			}
			if rv == "" {
				rv = ev.Object.GetResourceVersion()
			}
			if inInitial {
				if ev.Type != EventAdded {
					// A plain watch: the server ignored the request.
					return false, false, fmt.Errorf("%w: %s event before the end of the initial events", ErrWatchListUnsupported, ev.Type)
				}
				r.initialSeen = true
				pageBuf = append(pageBuf, ev.Object)
				if len(pageBuf) >= r.streamBatch() {
					flush()
				}
				continue
			}
			v := newVersion(rv)
			if v.olderThan(last) {
				listed, productive := done()
				return listed, productive, &SourceError{Op: op, ResourceVersion: from, Err: fmt.Errorf("%w: %s at %q after %q", ErrOutOfOrder, ev.Type, rv, last.s)}
			}
			var err error
			switch ev.Type {
			case EventAdded:
				err = r.sink.Add(ev.Object)
			case EventModified:
				err = r.sink.Update(ev.Object)
			default:
				err = r.sink.Delete(ev.Object)
			}
			if err != nil {
				r.report(&ObjectError{Op: op, Err: fmt.Errorf("%s event: %w", ev.Type, err)})
			}
			if rv != "" {
				last = v
				r.setLastRV(rv)
			}
		case EventBookmark:
			if inInitial {
				continue // progress only; the end marker comes as its own type
			}
			if rv == "" {
				r.report(&ObjectError{Op: op, Err: ErrBookmarkWithoutVersion})
				continue
			}
			if v := newVersion(rv); !v.olderThan(last) {
				last = v
				r.setLastRV(rv)
			}
		case EventInitialEventsEnd:
			if !inInitial {
				r.report(&ObjectError{Op: op, Err: fmt.Errorf("%w: %s outside a streaming list", ErrUnknownEventType, ev.Type)})
				continue
			}
			initialEvents.Store(math.MinInt64)
			flush()
			if err := r.sink.EndReplace(); err != nil {
				return false, false, err
			}
			inInitial = false
			last = newVersion(rv)
			r.setLastRV(rv)
			b.reset()
		default:
			r.report(&ObjectError{Op: op, Err: fmt.Errorf("%w: %d", ErrUnknownEventType, ev.Type)})
		}
	}
}

// version is a resourceVersion, with its numeric value when it has one
// (Kubernetes' are numbers in practice, though clients may not rely on it).
type version struct {
	s   string
	n   uint64
	num bool
}

func newVersion(s string) version {
	n, err := strconv.ParseUint(s, 10, 64)
	return version{s: s, n: n, num: err == nil}
}

// olderThan reports whether v is older than last, when both are numbers.
// Opaque versions are never compared.
func (v version) olderThan(last version) bool { return v.num && last.num && v.n < last.n }

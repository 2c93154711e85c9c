package interop

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// scenario is one way of keeping a cache of a flag service, run against
// every stack.
type scenario struct {
	name   string
	format string // "sse", "ndjson" or "poll"
	only   string // the one stack it runs on; "" for all
	// options adjusts the httpsrc options of the format.
	options func(*httpsrc.Options[*Flag])
	server  serverOptions // gzip, ping; versions and flags are the runner's

	mutations, drops int  // the churn: writes, and stream cuts spread over them
	restart          bool // a restart that loses the history, 2/3 through the churn
	// unversionedDeletes: a deletion's event carries no version of its
	// own (only the flag's last state), so no client can know when it has
	// seen one; waits are for the last create or update, and the churn's
	// tail ends with an update.
	unversionedDeletes bool
	// garble is how many changes, from the churn's middle on, the service
	// sends with their data cut in half.
	garble int
	// brokenStreams, at the churn's middle, cuts the stream and fails
	// that many stream requests (a 502 HTML page) while lists work; the
	// informer must say so through LastError and Health.
	brokenStreams int
	// writes are single writes after the churn, each waited for and
	// timed; quiet is the silence before each (keep-alives only).
	writes int
	quiet  time.Duration
	// liveness checks, after each silence, that the informer's Health
	// saw the keep-alives (issue 20 #9).
	liveness bool
	// tolerate accepts errors the scenario causes on purpose, beside
	// those of drops and restarts.
	tolerate func(error) bool
}

// flagTypes names the services' event types, and gin's keep-alive
// (event: ping), which is none.
var flagTypes = map[string]informer.EventType{
	"flag.created": informer.EventAdded,
	"flag.updated": informer.EventModified,
	"flag.deleted": informer.EventDeleted,
	"ping":         httpsrc.Ignore,
}

// sourceOptions are the httpsrc options a user would write for the flag
// services in each format.
func sourceOptions(base, format string, client *http.Client) httpsrc.Options[*Flag] {
	o := httpsrc.Options[*Flag]{ListURL: base + "/flags", Client: client, Types: flagTypes}
	switch format {
	case "sse":
		o.WatchURL = base + "/flags/events"
		o.Version = "/version"
		o.NumericVersions = true // integers that grow with every write
	case "ndjson":
		o.WatchURL = base + "/flags/changes"
		o.Version, o.VersionParam = "/version", "since"
		o.EventObject, o.EventVersion = "/flag", "/version"
		o.NumericVersions = true
	case "poll":
		// The defaults: the ETag is the version, an opaque one, reached
		// when a poll's list has it.
		o.PollInterval = 100 * time.Millisecond
	}
	return o
}

// scenarios run on every stack (or the one named by only).
var scenarios = []scenario{
	// The plain cases, with drops and a restart that loses the history.
	{name: "sse", format: "sse", mutations: 150, drops: 3, restart: true, writes: 5},
	{name: "ndjson", format: "ndjson", mutations: 150, drops: 3, restart: true, writes: 5},
	// Poll mode as a user would leave it: the ETag is the version, an
	// opaque one (issue 20 #1, #2); the churn's tail creates and deletes
	// a flag within one interval, so the list's items are as before and
	// only its ETag moved (#3).
	{name: "poll", format: "poll", mutations: 60, restart: true, writes: 5},
	// SSE with the ETag as the collection's version (no body field): the
	// version resumed from is the tag's value, without its quotes (#2).
	{name: "sse-etag", format: "sse", options: func(o *httpsrc.Options[*Flag]) { o.Version = "" },
		mutations: 60, drops: 1, restart: true, writes: 3},
	// NDJSON with versions from the objects only (no EventVersion): a
	// deletion carries the flag's last state and its older version (#11).
	{name: "ndjson-object-versions", format: "ndjson", options: func(o *httpsrc.Options[*Flag]) { o.EventVersion = "" },
		mutations: 60, drops: 1, restart: true, unversionedDeletes: true, writes: 3},
	// Types written in another case than the service's (#5).
	{name: "sse-types-case", format: "sse", options: func(o *httpsrc.Options[*Flag]) {
		o.Types = map[string]informer.EventType{"Flag.Created": informer.EventAdded, "Flag.Updated": informer.EventModified, "Flag.Deleted": informer.EventDeleted}
	}, mutations: 30, writes: 3},
	// The stack's compression middleware on (FastAPI's GZipMiddleware
	// buffers what it compresses: #8).
	{name: "sse-gzip", format: "sse", server: serverOptions{gzip: true}, mutations: 60, drops: 1, writes: 5},
	{name: "ndjson-gzip", format: "ndjson", server: serverOptions{gzip: true}, mutations: 60, drops: 1, writes: 5},
	// Quiet streams: keep-alives only between single writes (gin's
	// "event: ping", mapped to httpsrc.Ignore: #10; FastAPI's ": ping"
	// comments with CRLF line ends; blank NDJSON lines), which the
	// informer's Health counts as signs of life (#9).
	{name: "sse-quiet", format: "sse", server: serverOptions{ping: 100 * time.Millisecond}, writes: 3, quiet: 700 * time.Millisecond, liveness: true},
	{name: "ndjson-quiet", format: "ndjson", server: serverOptions{ping: 100 * time.Millisecond}, writes: 3, quiet: 700 * time.Millisecond, liveness: true},
	// A restart after which the service answers an old version with a
	// "reset" event and the end of the stream, an expiry the options do
	// not name: watches that keep ending without delivering escalate to
	// a relist (#6).
	{name: "sse-reset-event", format: "sse", server: serverOptions{resetEvent: true}, mutations: 60, restart: true, writes: 3,
		tolerate: func(err error) bool { return errors.Is(err, informer.ErrUnknownEventType) }},
	// A list in pages of 4: Django REST's absolute "next" URL (#12), and
	// page numbers up to the first empty page.
	{name: "sse-pages-next-url", format: "sse", options: func(o *httpsrc.Options[*Flag]) {
		o.ListURL += "?size=4"
		o.Next = "/next"
	}, mutations: 60, drops: 1, writes: 3},
	{name: "ndjson-pages-numbered", format: "ndjson", options: func(o *httpsrc.Options[*Flag]) {
		o.ListURL += "?size=4"
		o.Paging = httpsrc.PagingNumber
	}, mutations: 60, drops: 1, writes: 3},
	// The stream fails (a proxy's 502 HTML page) while the list works: a
	// program sees it through Health and LastError, and the informer
	// recovers when the stream does.
	{name: "sse-stream-502", format: "sse", mutations: 30, brokenStreams: 5, writes: 3,
		tolerate: func(err error) bool {
			var se *httpsrc.StatusError
			return errors.As(err, &se) && se.Code == http.StatusBadGateway
		}},
	// A run of changes whose data is cut in half: each is reported and
	// skipped, and after a bounded number (8, the reflector's
	// maxSkippedEvents) on one stream the reflector lists again at once,
	// since a skipped change is a lost one (#7); 11: the 3 after those 8
	// come on the stream after the relist, which is repaired in turn.
	{name: "sse-garbled", format: "sse", mutations: 60, garble: 11, writes: 3, tolerate: skippedEvents},
	// Fewer unreadable changes than that bound on one stream: the
	// reflector lists again a second after the first (on FastAPI, 3
	// garbled deletes left deleted flags k04, k09 in the cache for good,
	// with Health healthy and LastError nil, when only the 8th relisted).
	{name: "sse-garbled-few", format: "sse", mutations: 60, garble: 3, writes: 3, tolerate: skippedEvents},
}

// skippedEvents tolerates the errors of garbled events: each one, and
// the stream's ErrSkippedEvents that leads to a relist.
func skippedEvents(err error) bool {
	return errors.Is(err, informer.ErrBadEvent) || errors.Is(err, informer.ErrSkippedEvents)
}

// errCounter counts the errors an informer reports. Drops and restarts
// explain some: a cut stream (ErrTransport, or a watch that ended at once
// because the service went away) and an expired version after a restart
// (ErrExpired). Any other is unexpected: the services are well-behaved.
type errCounter struct {
	tolerate   func(error) bool
	mu         sync.Mutex
	n          int
	badEvents  int
	unexpected []string
	first      []string
}

func (c *errCounter) add(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if errors.Is(err, informer.ErrBadEvent) {
		c.badEvents++
	}
	if !errors.Is(err, informer.ErrExpired) && !errors.Is(err, informer.ErrTransport) &&
		!strings.Contains(err.Error(), "watch ended at once without an event") &&
		(c.tolerate == nil || !c.tolerate(err)) && len(c.unexpected) < 5 {
		c.unexpected = append(c.unexpected, err.Error())
	}
	if len(c.first) < 10 {
		c.first = append(c.first, err.Error())
	}
}

func (c *errCounter) get() (n, bad int, unexpected, first []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.badEvents, slices.Clone(c.unexpected), slices.Clone(c.first)
}

func TestInterop(t *testing.T) {
	for _, st := range stacks {
		t.Run(st.name, func(t *testing.T) {
			for _, sc := range scenarios {
				if sc.only != "" && sc.only != st.name {
					continue
				}
				t.Run(sc.name, func(t *testing.T) { runScenario(t, st, sc) })
			}
		})
	}
}

func runScenario(t *testing.T, st stack, sc scenario) {
	started := time.Now()
	fig := figures{stack: st.name, scenario: sc.name}
	defer func() {
		fig.total = time.Since(started)
		fig.failed = t.Failed()
		fig.log(t)
		report.add(fig)
	}()
	opts := sc.server
	opts.flags, opts.seed = 10, 1
	svc := st.start(t, opts)

	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	client := &http.Client{Transport: tr}
	// The driver's requests are bounded: a service that never answers
	// (a Python process that died at start) fails the test, not hangs it.
	d := newDriver(t, svc.URL(), &http.Client{Transport: tr, Timeout: 10 * time.Second})
	d.list()

	o := sourceOptions(svc.URL(), sc.format, client)
	if sc.options != nil {
		sc.options(&o)
	}
	src, err := httpsrc.New(o)
	if err != nil {
		t.Fatal(err)
	}
	errs := &errCounter{tolerate: sc.tolerate}
	warnings := &warnCounter{}
	inf := informer.New(src, informer.Options[*Flag]{
		OnError: errs.add,
		Logger:  slog.New(warnings),
		Reflector: informer.ReflectorOptions{
			Backoff: informer.Backoff{Initial: 20 * time.Millisecond, Max: 500 * time.Millisecond},
		},
	})
	rec := newRecorder(d)
	reg, err := inf.AddHandler(rec.handler(), informer.HandlerOptions{Name: "recorder"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		// After the services' cleanups registered before: stop the
		// informer first, then check that nothing of it, of the client
		// or of gin is left running once the services are gone.
		checkNoLeaks(t)
	})
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
		tr.CloseIdleConnections()
	}()
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	if err := informer.WaitForCacheSync(syncCtx, inf, reg); err != nil {
		t.Fatalf("sync: %v (last error: %v)", err, inf.LastError())
	}

	// waitFor waits until the cache has the version of the driver's last
	// write, and returns the time from that write's request to now.
	waitFor := func(what string) time.Duration {
		t.Helper()
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		target := d.last
		if sc.unversionedDeletes {
			target = d.lastPut
		}
		if err := inf.WaitForResourceVersion(wctx, version(target)); err != nil {
			t.Fatalf("%s: WaitForResourceVersion(%d): %v (applied %q)", what, target, err, inf.AppliedResourceVersion())
		}
		return time.Since(d.lastStart)
	}

	// The churn: creates, updates and deletes of a fixed key set, drawn
	// from a seed of the scenario's name; stream cuts spread over it,
	// each once the cache has caught up (so that a stream is open), and a
	// restart with new state two thirds in.
	h := fnv.New64a()
	h.Write([]byte(st.name + "/" + sc.name))
	rng := rand.New(rand.NewPCG(h.Sum64(), 20))
	present := map[string]bool{}
	_, items := d.list()
	keys := []string{}
	for _, f := range items {
		present[f.Key] = true
		keys = append(keys, f.Key)
	}
	for i := range 14 {
		keys = append(keys, fmt.Sprintf("k%02d", i))
	}
	for i := range sc.mutations {
		if sc.drops > 0 && i > 0 && i%(sc.mutations/(sc.drops+1)) == 0 && fig.drops < sc.drops {
			waitFor("before a drop")
			d.drop()
			fig.drops++
		}
		if sc.garble > 0 && i == sc.mutations/2 {
			d.garble(sc.garble)
		}
		if sc.brokenStreams > 0 && i == sc.mutations/2 {
			waitFor("before breaking the streams")
			d.breakStreams(sc.brokenStreams)
			d.drop()
			checkVisible(t, inf, d.drop)
		}
		if sc.restart && i == sc.mutations*2/3 {
			next := opts
			next.startVersion, next.flags, next.seed = d.last+1000, 8, 2
			svc.Restart(t, next)
			tr.CloseIdleConnections() // to the old process: a PUT is not retried on one
			fig.restarts++
			_, items := d.list()
			clear(present)
			for _, f := range items {
				present[f.Key] = true
			}
		}
		key := keys[rng.IntN(len(keys))]
		switch {
		case !present[key]:
			d.put(key, rng.IntN(2) == 0, rng.IntN(101), true)
			present[key] = true
		case rng.IntN(10) < 3:
			d.del(key)
			delete(present, key)
		default:
			d.put(key, rng.IntN(2) == 0, rng.IntN(101), false)
		}
	}
	fig.mutations = sc.mutations
	if sc.mutations > 0 {
		waitFor("after the churn")
	}
	// The tail: a flag created and deleted at once (in poll mode, within
	// one interval: the list's items are as before, its ETag is not),
	// and, where deletions carry no version, an update after it.
	d.put("tmp", true, 1, true)
	d.del("tmp")
	if sc.unversionedDeletes {
		d.put(keys[0], true, 99, !present[keys[0]])
		present[keys[0]] = true
	}
	fig.lastWrite = waitFor("after the last write")
	checkConverged(t, d, inf, rec, "after the churn")

	for i := range sc.writes {
		if sc.quiet > 0 {
			time.Sleep(sc.quiet) // real silence, with the service's keep-alives
			if h := inf.Health(); sc.liveness && (h.LastActivity.IsZero() || h.SinceActivity > sc.quiet*2/3) {
				t.Errorf("after %s of keep-alives every %s, Health says the last sign of life was %s ago: %s", sc.quiet, sc.server.ping, h.SinceActivity, h)
			}
		}
		key := keys[i%len(keys)]
		f := d.put(key, i%2 == 0, i, !present[key])
		present[key] = true
		fig.writes = append(fig.writes, waitFor("a single write"))
		if got, ok := inf.Lister().Get(key); !ok || *got != f {
			t.Errorf("after WaitForResourceVersion(%d), the cache has %s = %+v, want %+v", f.Version, key, got, f)
		}
	}
	checkConverged(t, d, inf, rec, "at the end")
	var unexpected []string
	fig.errors, fig.badEvents, unexpected, fig.firstErrors = errs.get()
	fig.warnings = int(warnings.n.Load())
	_, _, fig.calls = rec.view()
	for _, e := range unexpected {
		t.Errorf("reported, though neither a drop nor a restart explains it: %s", e)
	}
}

// checkVisible waits until the informer says its watch keeps failing:
// Health unhealthy after 3 failures in a row, LastError naming the 502.
//
// redrop ends the service's streams again every second while the informer
// looks healthy: a stream request the service had already let through
// when it was told to break the next ones, but that had not yet joined its
// streams when they were dropped, escaped both (a race of the harness
// with the service, seen once in CI: gin, watching for 5 s, no error).
func checkVisible(t *testing.T, inf *informer.Informer[*Flag], redrop func()) {
	t.Helper()
	nextDrop := time.Now().Add(time.Second)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(nextDrop) {
			redrop()
			nextDrop = time.Now().Add(time.Second)
		}
		h := inf.Health()
		if !h.Healthy() {
			var se *httpsrc.StatusError
			if err := inf.LastError(); !errors.As(err, &se) || se.Code != http.StatusBadGateway {
				t.Errorf("Health is unhealthy (%s) but LastError is %v, want the 502", h, err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the watch fails behind a good list, and after 5 s Health still says %s (LastError %v)", h, inf.LastError())
			return
		}
	}
}

// checkConverged compares the service's list with the cache and with
// what the handler holds, and reports the handler's order errors.
func checkConverged(t *testing.T, d *driver, inf *informer.Informer[*Flag], rec *recorder, when string) {
	t.Helper()
	_, items := d.list()
	want := map[string]Flag{}
	for _, f := range items {
		want[f.Key] = f
	}
	cache := map[string]Flag{}
	for _, f := range inf.Lister().List(nil) {
		cache[f.Key] = *f
	}
	// The cache is updated before handlers are told (guarantee 2): give
	// the handler a moment to catch up.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	rec.waitUntil(ctx, func(held map[string]Flag) bool { return maps.Equal(held, want) })
	held, orderErrs, _ := rec.view()
	defer func() {
		if t.Failed() {
			t.Logf("%s: applied version %q; %s", when, inf.AppliedResourceVersion(), inf.Health())
		}
	}()
	for name, got := range map[string]map[string]Flag{"cache": cache, "handler": held} {
		for k, w := range want {
			if g, ok := got[k]; !ok {
				t.Errorf("%s: the %s lacks %s (service: %+v)", when, name, k, w)
			} else if g != w {
				t.Errorf("%s: the %s has %+v, the service %+v", when, name, g, w)
			}
		}
		for k, g := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: the %s has %+v, which the service does not", when, name, g)
			}
		}
	}
	for _, e := range orderErrs {
		t.Errorf("%s: handler: %s", when, e)
	}
}

func version(v int64) string { return strconv.FormatInt(v, 10) }

// warnCounter is a slog.Handler that counts the records at WARN and above
// and drops everything.
type warnCounter struct{ n atomic.Int64 }

func (w *warnCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnCounter) Handle(context.Context, slog.Record) error    { w.n.Add(1); return nil }
func (w *warnCounter) WithAttrs([]slog.Attr) slog.Handler           { return w }
func (w *warnCounter) WithGroup(string) slog.Handler                { return w }

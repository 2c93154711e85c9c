package interop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Server behaviours the source had not met (issue 33), against each stack:
// a Link header whose URL holds a comma, close-after-send streams, a
// redirect to another host with credentials in Options.Header, a restart
// that starts the versions at 0 again, and streams that ignore
// Last-Event-ID and replay the history.
func TestServerBehaviours(t *testing.T) {
	for _, st := range stacks {
		t.Run(st.name, func(t *testing.T) {
			t.Run("link-header-commas", func(t *testing.T) { linkHeaderCommas(t, st) })
			t.Run("close-after-send-retry-0", func(t *testing.T) { closeAfterSend(t, st, "0", 2) })
			t.Run("close-after-send-no-retry", func(t *testing.T) { closeAfterSend(t, st, "", 1) })
			t.Run("redirect-credentials", func(t *testing.T) { redirectCredentials(t, st) })
			t.Run("restart-at-zero", func(t *testing.T) { restartAtZero(t, st) })
			t.Run("replay-from-start", func(t *testing.T) { replayFromStart(t, st) })
		})
	}
}

// counting is a transport that counts the GETs of each path.
type counting struct {
	tr *http.Transport
	mu sync.Mutex
	n  map[string]int
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.mu.Lock()
		c.n[r.URL.Path]++
		c.mu.Unlock()
	}
	return c.tr.RoundTrip(r)
}

func (c *counting) get(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[path]
}

// bench is one running service with a driver and a counted client.
type bench struct {
	svc    service
	d      *driver
	count  *counting
	client *http.Client
}

func newBench(t *testing.T, st stack, opts serverOptions) *bench {
	if opts.flags == 0 {
		opts.flags, opts.seed = 10, 1
	}
	svc := st.start(t, opts)
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	b := &bench{svc: svc, count: &counting{tr: tr, n: map[string]int{}}}
	b.client = &http.Client{Transport: b.count}
	b.d = newDriver(t, svc.URL(), &http.Client{Transport: tr, Timeout: 10 * time.Second})
	b.d.list()
	return b
}

// run starts an informer over src until the test ends, and waits for its
// sync.
func run(t *testing.T, src *httpsrc.Source[*Flag], ropts informer.ReflectorOptions) *informer.Informer[*Flag] {
	t.Helper()
	inf := informer.New(src, informer.Options[*Flag]{Logger: slog.New(slog.DiscardHandler), Reflector: ropts})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	if err := informer.WaitForCacheSync(sctx, inf); err != nil {
		t.Fatalf("sync: %v (last error: %v)", err, inf.LastError())
	}
	return inf
}

// sameAsService checks that the cache holds the service's list.
func sameAsService(t *testing.T, d *driver, inf *informer.Informer[*Flag]) {
	t.Helper()
	_, items := d.list()
	deadline := time.Now().Add(10 * time.Second)
	for {
		diff := ""
		cache := inf.Lister().List(nil)
		if len(cache) != len(items) {
			diff = fmt.Sprintf("%d flags in the cache, the service has %d", len(cache), len(items))
		}
		for _, f := range items {
			if got, ok := inf.Lister().Get(f.Key); !ok || *got != f {
				diff = fmt.Sprintf("the cache has %s = %v, the service %+v", f.Key, got, f)
			}
		}
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (%s)", diff, inf.Health())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitWrite waits for a write's version and checks the cache has it.
func waitWrite(t *testing.T, inf *informer.Informer[*Flag], f Flag) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := inf.WaitForResourceVersion(ctx, version(f.Version)); err != nil {
		t.Fatalf("WaitForResourceVersion(%d): %v", f.Version, err)
	}
	if got, ok := inf.Lister().Get(f.Key); !ok || *got != f {
		t.Fatalf("after WaitForResourceVersion(%d), the cache has %s = %v, want %+v (applied %q)", f.Version, f.Key, got, f, inf.AppliedResourceVersion())
	}
}

// A list in pages of 4 whose next page is in a Link header with a comma in
// its URL (&fields=key,version): every page is read. (The header was split
// on commas: the list ended after 4 flags, and a relist deleted the rest.)
func linkHeaderCommas(t *testing.T, st stack) {
	b := newBench(t, st, serverOptions{})
	o := sourceOptions(b.svc.URL(), "sse", b.client)
	o.ListURL += "?size=4&link=1&fields=key,version"
	src, err := httpsrc.New(o)
	if err != nil {
		t.Fatal(err)
	}
	inf := run(t, src, informer.ReflectorOptions{})
	sameAsService(t, b.d, inf)
	if n := b.count.get("/flags"); n < 3 {
		t.Errorf("%d list requests for 10 flags in pages of 4, want 3", n)
	}
	waitWrite(t, inf, b.d.put("k00", true, 5, true))
	sameAsService(t, b.d, inf)
}

// A close-after-send SSE endpoint (every stream ends after the changes it
// sent), with retry: 0 or no retry field: the informer reconnects at most
// about once a second (MinRetry) or once in 3 s (ReconnectDelay), and its
// cache follows the service. (Before: hundreds of reconnections a second,
// healthy and silent.)
func closeAfterSend(t *testing.T, st stack, retry string, maxRate float64) {
	b := newBench(t, st, serverOptions{closeAfterSend: true, retry: retry})
	src, err := httpsrc.New(sourceOptions(b.svc.URL(), "sse", b.client))
	if err != nil {
		t.Fatal(err)
	}
	inf := run(t, src, informer.ReflectorOptions{})
	before, start := b.count.get("/flags/events"), time.Now()
	var last Flag
	for i := range 20 {
		last = b.d.put(fmt.Sprintf("k%02d", i%5), i%2 == 0, i, i < 5)
		time.Sleep(100 * time.Millisecond)
	}
	waitWrite(t, inf, last)
	time.Sleep(3 * time.Second)
	n, took := b.count.get("/flags/events")-before, time.Since(start)
	rate := float64(n) / took.Seconds()
	t.Logf("%s: %d stream requests in %s: %.2f/s (retry %q)", st.name, n, took.Round(time.Millisecond), rate, retry)
	if rate > maxRate {
		t.Errorf("%.2f stream requests a second to a close-after-send server, want at most %.0f", rate, maxRate)
	}
	sameAsService(t, b.d, inf)
}

// The list and stream URLs redirect (302) to the service on another
// host:port: Options.Header's X-Api-Key never reaches it, on lists,
// streams and polls. (net/http forwards custom headers on a redirect.)
func redirectCredentials(t *testing.T, st stack) {
	b := newBench(t, st, serverOptions{})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.svc.URL()+r.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(front.Close)
	header := func(r *http.Request) error {
		r.Header.Set("X-Api-Key", "secret")
		return nil
	}
	for _, format := range []string{"sse", "poll"} {
		o := sourceOptions(front.URL, format, b.client)
		o.Header = header
		src, err := httpsrc.New(o)
		if err != nil {
			t.Fatal(err)
		}
		inf := run(t, src, informer.ReflectorOptions{})
		f := b.d.put("k0"+format, true, 1, true)
		if format == "poll" { // opaque versions: wait for the flag itself
			deadline := time.Now().Add(10 * time.Second)
			for got, ok := inf.Lister().Get(f.Key); !ok || *got != f; got, ok = inf.Lister().Get(f.Key) {
				if time.Now().After(deadline) {
					t.Fatalf("poll: the cache lacks %+v (%s)", f, inf.Health())
				}
				time.Sleep(10 * time.Millisecond)
			}
		} else {
			waitWrite(t, inf, f)
		}
	}
	var keys struct{ Keys int }
	b.d.do(http.MethodGet, "/admin/keys", nil, http.StatusOK, &keys)
	if keys.Keys != 0 || b.count.get("/flags") == 0 || b.count.get("/flags/events") == 0 {
		t.Errorf("%d requests reached the service with the X-Api-Key meant for the redirecting host (%d lists, %d streams)",
			keys.Keys, b.count.get("/flags"), b.count.get("/flags/events"))
	}
}

// The service restarts with its versions from 0 again: once the informer
// has listed the new history, WaitForResourceVersion of a new write
// returns only when the write is in the cache. (It returned at once, the
// applied version stuck at the old maximum.) The streams end after each
// change, so that a write waits for the next stream (ReconnectDelay): a
// wait that returns early finds the cache without it.
func restartAtZero(t *testing.T, st stack) {
	b := newBench(t, st, serverOptions{closeAfterSend: true})
	src, err := httpsrc.New(sourceOptions(b.svc.URL(), "sse", b.client))
	if err != nil {
		t.Fatal(err)
	}
	inf := run(t, src, informer.ReflectorOptions{Backoff: informer.Backoff{Initial: 20 * time.Millisecond, Max: 500 * time.Millisecond}})
	for i := range 30 {
		b.d.put(fmt.Sprintf("k%02d", i%7), i%2 == 0, i, i < 7)
	}
	waitWrite(t, inf, b.d.put("k00", true, 99, false))                       // version 41
	b.svc.Restart(t, serverOptions{flags: 3, seed: 2, closeAfterSend: true}) // versions 1 to 3
	b.count.tr.CloseIdleConnections()
	b.d = newDriver(t, b.svc.URL(), b.d.client) // a new history: versions repeat
	sameAsService(t, b.d, inf)
	for i := range 3 {
		waitWrite(t, inf, b.d.put(fmt.Sprintf("n%d", i), true, i, true))
	}
}

// Streams that ignore Last-Event-ID and replay the history from its start:
// every stream's first event is out of order, and the relists that follow
// back off; LastError says why. (Before: about 7 relists a second, for
// ever, healthy.)
func replayFromStart(t *testing.T, st stack) {
	b := newBench(t, st, serverOptions{ignoreLastEventID: true})
	for i := range 5 {
		b.d.put(fmt.Sprintf("k%02d", i), true, i, true)
	}
	src, err := httpsrc.New(sourceOptions(b.svc.URL(), "sse", b.client))
	if err != nil {
		t.Fatal(err)
	}
	inf := run(t, src, informer.ReflectorOptions{})
	before, start := b.count.get("/flags"), time.Now()
	time.Sleep(6 * time.Second)
	n, took := b.count.get("/flags")-before, time.Since(start)
	t.Logf("%s: %d lists in %s: %.2f/s", st.name, n, took.Round(time.Millisecond), float64(n)/took.Seconds())
	if n > 12 {
		t.Errorf("%d relists in %s of streams that replay from the start, want a backoff (at most 12)", n, took.Round(time.Second))
	}
	if err := inf.LastError(); !errors.Is(err, informer.ErrOutOfOrder) {
		t.Errorf("LastError %v, want ErrOutOfOrder", err)
	}
	sameAsService(t, b.d, inf)
}

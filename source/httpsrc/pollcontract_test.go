package httpsrc_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// polledService is a list-only service for poll mode: one object, a, whose
// JSON the test sets, behind an ETag that changes with it. It answers 304
// to a request whose If-None-Match holds the current ETag, and records the
// If-None-Match of every request.
type polledService struct {
	mu          sync.Mutex
	body        string // the list
	etag        string // "" for none
	ifNoneMatch []string
}

func (p *polledService) set(body, etag string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.body, p.etag = body, etag
}

func (p *polledService) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inm := r.Header.Get("If-None-Match")
	p.ifNoneMatch = append(p.ifNoneMatch, inm)
	if p.etag != "" {
		if inm == p.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", p.etag)
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, p.body)
}

// requests returns the If-None-Match of every request so far.
func (p *polledService) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ifNoneMatch...)
}

const pollEvery = time.Second

func newPolledSource(t *testing.T, p *polledService) *httpsrc.Source[*Item] {
	t.Helper()
	src, err := httpsrc.New(httpsrc.Options[*Item]{
		ListURL:      "http://inventory.test/items",
		PollInterval: pollEvery,
		Client:       inMemoryClient(p.serve),
	})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// pollReader reads a watch in a goroutine, until it ends, and keeps what
// it read.
type pollReader struct {
	mu     sync.Mutex
	events []string
	err    error
}

func readPolls(w informer.Watcher[*Item]) *pollReader {
	pr := &pollReader{}
	go func() {
		for {
			ev, err := w.Next()
			pr.mu.Lock()
			if err != nil {
				pr.err = err
				pr.mu.Unlock()
				return
			}
			s := ev.Type.String()
			if ev.Object != nil {
				s += fmt.Sprintf(" %s count=%d", ev.Object.Name, ev.Object.Count)
			}
			pr.events = append(pr.events, s)
			pr.mu.Unlock()
		}
	}()
	return pr
}

// take returns the events read so far and forgets them.
func (pr *pollReader) take() []string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	evs := pr.events
	pr.events = nil
	return evs
}

// afterPoll lets one poll period pass and every goroutine settle.
func afterPoll() {
	time.Sleep(pollEvery)
	synctest.Wait()
}

// TestPollReportsChangesOfObjectsWithoutVersion: in poll mode, an object
// without a resourceVersion whose JSON changed between two polls is
// reported as modified; one whose JSON did not is not reported at all.
func TestPollReportsChangesOfObjectsWithoutVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		item := func(count int) string {
			return fmt.Sprintf(`[{"metadata":{"name":"a","namespace":"shop"},"count":%d}]`, count)
		}
		p := &polledService{body: item(1)} // no ETag, no version anywhere
		src := newPolledSource(t, p)
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: page.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		pr := readPolls(w)

		afterPoll() // the same JSON: nothing to tell
		if evs := pr.take(); len(evs) != 0 {
			t.Errorf("a poll of the same list reported %q", evs)
		}
		p.set(item(2), "")
		afterPoll()
		evs := pr.take()
		if len(evs) == 0 || evs[0] != "MODIFIED a count=2" {
			t.Errorf("after a change of a's JSON, the poll reported %q, want MODIFIED a count=2 first", evs)
		}
		afterPoll()
		if evs := pr.take(); len(evs) != 0 {
			t.Errorf("a poll of the same changed list reported %q", evs)
		}
	})
}

// TestPollIsConditional: every poll asks with If-None-Match the ETag of the
// last list it saw, exactly as received; a 304 reports nothing, and a new
// list moves the ETag on.
func TestPollIsConditional(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		item := func(count int) string {
			return fmt.Sprintf(`{"metadata":{"resourceVersion":"%d"},"items":[{"metadata":{"name":"a","namespace":"shop","resourceVersion":"%d"},"count":%d}]}`, count, count, count)
		}
		p := &polledService{body: item(1), etag: `W/"e1"`}
		src := newPolledSource(t, p)
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: page.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		pr := readPolls(w)
		afterPoll()
		afterPoll()
		p.set(item(2), `W/"e2"`)
		afterPoll()
		afterPoll()
		want := []string{"", `W/"e1"`, `W/"e1"`, `W/"e1"`, `W/"e2"`}
		if got := p.requests(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("If-None-Match of the list and each poll: %q, want %q", got, want)
		}
		if evs := pr.take(); fmt.Sprint(evs) != "[MODIFIED a count=2 BOOKMARK]" {
			t.Errorf("events %q, want one MODIFIED and its bookmark", evs)
		}
	})
}

// TestPollWatchFromAnOldVersionExpires: poll mode keeps only the latest
// list, so a watch from any other version is expired (the reflector lists
// again) rather than served from the latest list, which would miss the
// changes in between. A watch from the latest version is served.
func TestPollWatchFromAnOldVersionExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		item := func(count int) string {
			return fmt.Sprintf(`{"metadata":{"resourceVersion":"%d"},"items":[{"metadata":{"name":"a","namespace":"shop","resourceVersion":"%d"},"count":%d}]}`, count, count, count)
		}
		p := &polledService{body: item(1)}
		src := newPolledSource(t, p)
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if page.ResourceVersion != "1" {
			t.Fatalf("list version %q", page.ResourceVersion)
		}
		// A first watch sees a change to version 2, and ends.
		w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
		if err != nil {
			t.Fatal(err)
		}
		p.set(item(2), "")
		for _, want := range []informer.EventType{informer.EventModified, informer.EventBookmark} {
			ev, err := w.Next()
			if err != nil || ev.Type != want {
				t.Fatalf("event %v, %v; want %v", ev.Type, err, want)
			}
			if want == informer.EventBookmark && ev.ResourceVersion != "2" {
				t.Fatalf("bookmark at %q, want 2", ev.ResourceVersion)
			}
		}
		w.Close()

		for _, from := range []string{"1", "7", "nonsense"} {
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: from})
			if err == nil {
				// An expiry may also come from the first Next.
				pr := readPolls(w)
				afterPoll()
				pr.mu.Lock()
				err = pr.err
				pr.mu.Unlock()
				w.Close()
			}
			if !errors.Is(err, informer.ErrExpired) {
				t.Errorf("watch from %q after the watch reached 2: %v, want ErrExpired", from, err)
			}
		}
		w, err = src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "2"})
		if err != nil {
			t.Fatalf("watch from the latest version: %v", err)
		}
		pr := readPolls(w)
		p.set(item(3), "")
		afterPoll()
		if evs := pr.take(); fmt.Sprint(evs) != "[MODIFIED a count=3 BOOKMARK]" {
			t.Errorf("watch from 2: %q, want the change to 3", evs)
		}
		w.Close()
	})
}

// TestPollReportsAddsAndDeletes: a poll reports an object new to the list
// as added, one gone from it as deleted (with its last state), and one
// whose version changed as modified; a bookmark at the new list's version
// ends them.
func TestPollReportsAddsAndDeletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		item := func(name string, rv int) string {
			return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"shop","resourceVersion":"%d"},"count":%d}`, name, rv, rv)
		}
		list := func(rv int, items ...string) string {
			return fmt.Sprintf(`{"metadata":{"resourceVersion":"%d"},"items":[%s]}`, rv, strings.Join(items, ","))
		}
		p := &polledService{body: list(2, item("a", 1), item("b", 2))}
		src := newPolledSource(t, p)
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: page.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		pr := readPolls(w)
		p.set(list(5, item("b", 4), item("c", 5)), "")
		afterPoll()
		evs := pr.take()
		if len(evs) != 4 || evs[3] != "BOOKMARK" {
			t.Fatalf("events %q, want three changes and a bookmark", evs)
		}
		changes := evs[:3]
		slices.Sort(changes)
		if want := []string{"ADDED c count=5", "DELETED a count=1", "MODIFIED b count=4"}; !slices.Equal(changes, want) {
			t.Errorf("changes %q, want %q", changes, want)
		}
	})
}

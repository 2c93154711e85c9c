package httpsrc_test

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// counterService is a small service with a numeric version that every
// write increases, serving a list at /items and SSE at /events, with the
// behaviours of servers the Source had not met.
type counterService struct {
	mu      sync.Mutex
	version int
	items   map[string]int // name → version
	history []counterChange
	changed chan struct{}
	drop    chan struct{} // closed by restart: open streams end

	// delay holds each event back this long (a slow stream).
	delay time.Duration
	// closeAfterSend ends a stream after its first event, or at once
	// when it has none to send (a close-after-send endpoint); retry, if
	// not "", is sent as the stream's retry field first.
	closeAfterSend bool
	retry          string
	comment        bool // a ": ping" comment at the start of each stream
	// replay ignores Last-Event-ID: every stream starts from the first
	// change of the history.
	replay bool
	// epoch, if not "", is sent as X-Epoch on every answer; restart
	// changes it.
	epoch string

	streams atomic.Int64 // stream requests
	lists   atomic.Int64
}

type counterChange struct {
	name    string
	version int
}

func newCounterService(names ...string) *counterService {
	c := &counterService{items: map[string]int{}, changed: make(chan struct{}), drop: make(chan struct{})}
	for _, n := range names {
		c.put(n)
	}
	return c
}

// put creates or updates name and returns the new version.
func (c *counterService) put(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version++
	c.items[name] = c.version
	c.history = append(c.history, counterChange{name, c.version})
	close(c.changed)
	c.changed = make(chan struct{})
	return c.version
}

// restart loses the state: the versions start at 0 again, and open
// streams end.
func (c *counterService) restart(names ...string) {
	c.mu.Lock()
	c.version, c.items, c.history = 0, map[string]int{}, nil
	if c.epoch != "" {
		c.epoch += "'"
	}
	close(c.drop)
	c.drop = make(chan struct{})
	c.mu.Unlock()
	for _, n := range names {
		c.put(n)
	}
}

func (c *counterService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	if c.epoch != "" {
		w.Header().Set("X-Epoch", c.epoch)
	}
	c.mu.Unlock()
	switch r.URL.Path {
	case "/items":
		c.lists.Add(1)
		c.mu.Lock()
		fmt.Fprintf(w, `{"metadata":{"resourceVersion":"%d"},"items":[`, c.version)
		sep := ""
		for n, v := range c.items {
			fmt.Fprintf(w, `%s{"metadata":{"name":%q,"resourceVersion":"%d"}}`, sep, n, v)
			sep = ","
		}
		fmt.Fprint(w, "]}")
		c.mu.Unlock()
	case "/events":
		c.stream(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (c *counterService) stream(w http.ResponseWriter, r *http.Request) {
	c.streams.Add(1)
	from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
	c.mu.Lock()
	if from > c.version && !c.replay {
		c.mu.Unlock()
		http.Error(w, "version not in the history", http.StatusGone)
		return
	}
	if c.replay {
		from = 0
	}
	ours := c.drop // a restart closes it: this stream belongs to the old state
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	if c.retry != "" {
		fmt.Fprintf(w, "retry: %s\n\n", c.retry)
	}
	if c.comment {
		fmt.Fprint(w, ": ping\n\n")
	}
	w.(http.Flusher).Flush()
	for {
		c.mu.Lock()
		if c.drop != ours {
			// Restarted: a stream of the old state never sends the new
			// history (the select below may have taken the new state's
			// first change rather than the drop).
			c.mu.Unlock()
			return
		}
		var next *counterChange
		for i := range c.history {
			if c.history[i].version > from {
				next = &c.history[i]
				break
			}
		}
		changed, drop, delay := c.changed, c.drop, c.delay
		c.mu.Unlock()
		if next == nil {
			if c.closeAfterSend {
				return
			}
			select {
			case <-changed:
				continue
			case <-drop:
				return
			case <-r.Context().Done():
				return
			}
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		fmt.Fprintf(w, "id: %d\nevent: modified\ndata: {\"metadata\":{\"name\":%q,\"resourceVersion\":\"%d\"}}\n\n", next.version, next.name, next.version)
		w.(http.Flusher).Flush()
		from = next.version
		if c.closeAfterSend {
			return
		}
	}
}

func (c *counterService) serve(t *testing.T) string {
	t.Helper()
	return serve(t, c.ServeHTTP).URL
}

package httpsrc_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/inventory"
	"github.com/informer-go/informer/source/httpsrc"
)

// seen records what a handler saw: each key's states in order, and its
// view of the collection.
type seen struct {
	mu       sync.Mutex
	state    map[string]string
	reorders []string
	last     map[string]uint64
}

func (s *seen) saw(key, rv string, del bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, _ := strconv.ParseUint(rv, 10, 64)
	if v < s.last[key] {
		s.reorders = append(s.reorders, fmt.Sprintf("%s: %d after %d", key, v, s.last[key]))
	}
	s.last[key] = v
	if del {
		delete(s.state, key)
	} else {
		s.state[key] = rv
	}
}

func (s *seen) snapshot() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.state)
}

// TestInformerOverTheService changes the inventory at random while its
// streams are dropped after a few events and its history is compacted
// (forcing 410 and relists), for each wire format, and checks that the
// informer's handler converges to the service's state, per key in order.
func TestInformerOverTheService(t *testing.T) {
	for _, mode := range []string{"sse", "ndjson", "poll"} {
		t.Run(mode, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(42, uint64(len(mode))))
			var rngMu sync.Mutex
			inv := inventory.New()
			inv.PageSize = 7
			inv.DropAfter = func() int { rngMu.Lock(); defer rngMu.Unlock(); return 3 + rng.IntN(15) }
			srv := httptest.NewServer(inv)
			defer srv.Close()
			// The service ends streams after a few events: reconnect
			// after 50 ms, not the 3 s a browser would wait.
			opts := httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", PollInterval: 20 * time.Millisecond, ReconnectDelay: 50 * time.Millisecond}
			switch mode {
			case "sse":
				opts.Format = httpsrc.FormatSSE
			case "ndjson":
				opts.Format = httpsrc.FormatNDJSON
			case "poll":
				opts.WatchURL = ""
			}
			src, err := httpsrc.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			inf := informer.New(src, informer.Options[*Item]{
				Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
				Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: 5 * time.Millisecond, Max: 50 * time.Millisecond}},
			})
			h := &seen{state: map[string]string{}, last: map[string]uint64{}}
			reg, _ := inf.AddHandler(informer.HandlerFuncs[*Item]{
				AddFunc:    func(it *Item, _ bool) { h.saw(it.Namespace+"/"+it.Name, it.ResourceVersion, false) },
				UpdateFunc: func(_, it *Item) { h.saw(it.Namespace+"/"+it.Name, it.ResourceVersion, false) },
				DeleteFunc: func(d informer.Deleted[*Item]) {
					h.saw(d.Object.Namespace+"/"+d.Object.Name, d.Object.ResourceVersion, true)
				},
			}, informer.HandlerOptions{})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- inf.Run(ctx) }()
			if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
				t.Fatal(err)
			}
			for i := range 400 {
				rngMu.Lock()
				n, op := rng.IntN(25), rng.IntN(10)
				rngMu.Unlock()
				name := fmt.Sprintf("item-%02d", n)
				switch {
				case op < 6:
					inv.Put(Item{ObjectMeta: inventoryMeta(name), Count: i})
				case op < 9:
					inv.Delete("shop", name)
				}
				if i%97 == 96 {
					inv.Compact()
				}
				if i%20 == 0 {
					time.Sleep(time.Millisecond) // let the streams and polls interleave
				}
			}
			want := inv.State()
			deadline := time.Now().Add(20 * time.Second)
			for !maps.Equal(h.snapshot(), want) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if got := h.snapshot(); !maps.Equal(got, want) {
				t.Errorf("handler state %d keys, service %d: %v vs %v", len(got), len(want), got, want)
			}
			h.mu.Lock()
			if len(h.reorders) > 0 {
				t.Errorf("states out of order: %v", h.reorders)
			}
			h.mu.Unlock()
			cancel()
			<-done
		})
	}
}

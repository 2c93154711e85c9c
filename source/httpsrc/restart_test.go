package httpsrc_test

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Read-your-writes after a service restarts its numeric versions at 0:
// once the informer has listed the new history, a wait for a new write's
// version returns only when the write is in the cache. (The applied
// version never moved back: it stayed at the old maximum, and the wait
// returned at once, before the write was cached, until the new counter
// passed the old one.)
func TestReadYourWritesAfterARestartAtZero(t *testing.T) {
	svc := newCounterService()
	for i := range 50 {
		svc.put("old-" + string(rune('a'+i%26)))
	}
	base := svc.serve(t)
	src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: base + "/items", WatchURL: base + "/events", NumericVersions: true})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New(src, informer.Options[*Item]{Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: 10 * time.Millisecond}}})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	go inf.Run(ctx)
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		t.Fatal(err)
	}
	if err := inf.WaitForResourceVersion(ctx, "50"); err != nil {
		t.Fatal(err)
	}
	svc.restart("fresh") // version 1
	// The open stream is at 50: the service answers the next one 410, and
	// the informer lists the new history, at version 1.
	for inf.AppliedResourceVersion() != "1" {
		if ctx.Err() != nil {
			t.Fatalf("the applied version is %q after the restarted service's list at 1 (the cache has fresh: %t): %s",
				inf.AppliedResourceVersion(), has(inf, "fresh"), inf.Health())
		}
		time.Sleep(5 * time.Millisecond)
	}
	svc.mu.Lock()
	svc.delay = 200 * time.Millisecond
	svc.mu.Unlock()
	v := svc.put("mine") // version 2, held back 200 ms on the stream
	if err := inf.WaitForResourceVersion(ctx, strconv.Itoa(v)); err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Lister().Get("mine"); !ok {
		t.Fatalf("WaitForResourceVersion(%d) returned (applied %q) before the write was in the cache", v, inf.AppliedResourceVersion())
	}
}

func has(inf *informer.Informer[*Item], name string) bool {
	_, ok := inf.Lister().Get(name)
	return ok
}

// A restart that resets the versions, after which the client resumes
// inside the new history: with Options.EpochHeader, the stream's new epoch
// expires the watch and the informer lists the new state; without it, the
// documented limit: the cache keeps the objects the restart lost.
func TestRestartInsideTheNewHistory(t *testing.T) {
	for _, tc := range []struct {
		name, header string
		wantLost     bool
	}{
		{"EpochHeader", "X-Epoch", false},
		{"no EpochHeader (the limit)", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newCounterService()
			svc.epoch = "e1"
			for _, n := range []string{"a", "b", "c"} {
				svc.put(n) // versions 1 to 3
			}
			base := svc.serve(t)
			src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: base + "/items", WatchURL: base + "/events",
				NumericVersions: true, EpochHeader: tc.header, ReconnectDelay: -1})
			if err != nil {
				t.Fatal(err)
			}
			inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			go inf.Run(ctx)
			if err := inf.WaitForResourceVersion(ctx, "3"); err != nil {
				t.Fatal(err)
			}
			if err := inf.WaitForResourceVersion(ctx, strconv.Itoa(svc.put("d"))); err != nil { // on the stream
				t.Fatal(err)
			}
			if n := svc.lists.Load(); n != 1 {
				t.Errorf("%d lists before the restart, want 1: the epoch of the list and of the stream are the same", n)
			}
			svc.restart("x", "y", "z", "w", "v") // versions 1 to 5: the client resumes from 4
			if err := inf.WaitForResourceVersion(ctx, "5"); err != nil {
				t.Fatal(err)
			}
			_, lost := inf.Lister().Get("a")
			if lost != tc.wantLost {
				t.Errorf("after the restart, the cache has %v; the service x, y, z, w, v", inf.Lister().Keys())
			}
		})
	}
}

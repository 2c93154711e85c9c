package httpsrc_test

import (
	"context"
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
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
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
	// the informer lists the new history.
	for {
		if _, ok := inf.Indexer().Get("fresh"); ok {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the informer did not list the restarted service: %s", inf.Health())
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
	if _, ok := inf.Indexer().Get("mine"); !ok {
		t.Fatalf("WaitForResourceVersion(%d) returned (applied %q) before the write was in the cache", v, inf.AppliedResourceVersion())
	}
}

package leaderelection_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/leaderelection"
)

// The callbacks report exactly what happened: an acquire, a renewal each
// RetryPeriod with its latency, failed renewals with their error, the
// lease taken by another (a transition), and leading on and off.
func TestMetricsCallbacks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []string
		note := func(format string, args ...any) {
			mu.Lock()
			got = append(got, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		s := &leaseServer{}
		c := newCandidate(t, s, "a", leaderelection.Options{Metrics: leaderelection.Metrics{
			Leading:    func(v bool) { note("leading %v", v) },
			Transition: func(h string) { note("holder %q", h) },
			Attempt: func(renewing bool, d time.Duration, err error) {
				note("attempt renewing=%v %s failed=%v", renewing, d, err != nil)
			},
		}})
		c.startFn(func(ctx context.Context) { <-ctx.Done() })
		time.Sleep(5 * time.Second) // renewals at 2 s and 4 s
		c.client.set(fail)
		time.Sleep(2 * time.Second) // a failed renewal at 6 s
		c.client.set(up)
		l := s.get()
		l.Spec.HolderIdentity = layoutPtr("b")
		s.set(l)
		time.Sleep(2 * time.Second) // the renewal at 8 s finds b
		synctest.Wait()
		c.cancel()
		<-c.done
		mu.Lock()
		defer mu.Unlock()
		want := []string{
			`holder "a"`, "attempt renewing=false 0s failed=false", "leading true",
			"attempt renewing=true 0s failed=false", "attempt renewing=true 0s failed=false",
			"attempt renewing=true 0s failed=true",
			`holder "b"`, "attempt renewing=true 0s failed=false", "leading false",
			"attempt renewing=false 0s failed=false", // campaigning again: b holds it
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("callbacks\n%q\nwant\n%q", got, want)
		}
	})
}

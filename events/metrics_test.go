package events_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer/events"
)

// counter is a Metrics that counts each callback, safe for concurrent
// use.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[what]++
}

func (c *counter) metrics() events.Metrics {
	return events.Metrics{
		Recorded:   func() { c.inc("recorded") },
		Aggregated: func() { c.inc("aggregated") },
		Dropped:    func(reason string) { c.inc("dropped " + reason) },
	}
}

func (c *counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.n)
}

// Each outcome of Eventf and Run calls its callback once, matching Stats:
// recorded, aggregated (repeats), and dropped as spam, invalid, for a
// full queue, or after failed writes.
func TestMetricsCountEachOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c counter
		s := newStore()
		rec, stop := running(t, s, events.Options{Metrics: c.metrics(), Burst: 3})
		for range 4 {
			rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "") // 1 recorded, 3 aggregated
		}
		for i := range 4 {
			rec.Eventf(cm("b"), nil, events.Normal, fmt.Sprintf("R%d", i), "Update", "") // 3 recorded, 1 spam
		}
		rec.Eventf(cm("c"), nil, "Odd", "R", "Update", "") // invalid
		synctest.Wait()
		s.set(fail)
		rec.Eventf(cm("d"), nil, events.Normal, "R", "Update", "") // failed after MaxAttempts
		synctest.Wait()
		if err := stop(); err == nil {
			t.Fatal("Run returned nil")
		}
		want := "map[aggregated:3 dropped failed:1 dropped invalid:1 dropped spam:1 recorded:4]"
		if got := c.String(); got != want {
			t.Errorf("callbacks %s, want %s (Stats %+v)", got, want, rec.Stats())
		}
	})
}

// A queue that is full drops, and says so through Dropped.
func TestMetricsQueueFull(t *testing.T) {
	var c counter
	rec, err := events.NewRecorder(newStore(), events.Options{ReportingController: "example.com/test", QueueSize: 2, Metrics: c.metrics(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // no Run: the queue fills
		rec.Eventf(cm(fmt.Sprint(i)), nil, events.Normal, "R", "Update", "")
	}
	if got, want := c.String(), "map[dropped queue_full:3]"; got != want {
		t.Errorf("callbacks %s, want %s", got, want)
	}
	if st := rec.Stats(); st.Dropped != 3 {
		t.Errorf("Stats.Dropped %d", st.Dropped)
	}
}

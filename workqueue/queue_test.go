package workqueue_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/workqueue"
)

// get takes a key that must be queued now.
func get(t *testing.T, q *workqueue.Queue[string]) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Get hands out a queued key even with an ended ctx
	k, err := q.Get(ctx)
	if err != nil {
		t.Fatalf("Get: %v, want a queued key", err)
	}
	return k
}

// drain takes every queued key, in order, marking each Done.
func drain(t *testing.T, q *workqueue.Queue[string]) []string {
	t.Helper()
	var got []string
	for q.Len() > 0 {
		k := get(t, q)
		got = append(got, k)
		q.Done(k)
	}
	return got
}

func TestFIFOAndCoalescing(t *testing.T) {
	tests := []struct {
		name string
		adds []string
		want []string
	}{
		{"fifo", []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"duplicates coalesce in first place", []string{"a", "b", "a", "c", "b"}, []string{"a", "b", "c"}},
		{"one key many times", []string{"x", "x", "x"}, []string{"x"}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := workqueue.New(workqueue.Options[string]{})
			for _, k := range tt.adds {
				q.Add(k)
			}
			if q.Len() != len(tt.want) {
				t.Fatalf("Len = %d, want %d", q.Len(), len(tt.want))
			}
			if got := drain(t, q); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAddWhileProcessingRequeuesOnceAfterDone(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("a")
	k := get(t, q)
	q.Add("a")
	q.Add("a")
	q.Add("b")
	if q.Len() != 1 {
		t.Fatalf("Len = %d while a is processed, want 1 (b only)", q.Len())
	}
	if k2 := get(t, q); k2 != "b" {
		t.Fatalf("got %q, want b: a must not be handed out while processed", k2)
	}
	q.Done("b")
	q.Done(k)
	if got := drain(t, q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after Done: %v, want [a] once", got)
	}
	q.Done("never handed out") // ignored
	if q.Len() != 0 {
		t.Fatalf("Len = %d", q.Len())
	}
}

func TestAtMostOneWorkerPerKey(t *testing.T) {
	q := workqueue.New(workqueue.Options[int]{RateLimiter: workqueue.ExponentialBackoff[int](time.Millisecond, time.Millisecond)})
	var busy [8]atomic.Int32
	var processed atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 20000 {
			q.Add(i % len(busy))
		}
	})
	errc := make(chan error, 1)
	go func() {
		errc <- q.Run(ctx, 8, func(_ context.Context, k int) error {
			if busy[k].Add(1) != 1 {
				t.Errorf("key %d processed by two workers at once", k)
			}
			processed.Add(1)
			busy[k].Add(-1)
			return nil
		})
	}()
	wg.Wait()
	// Drain: every key added after its last processing started is
	// processed again, then Run's workers see ErrShutDown.
	if err := q.ShutDownWithDrain(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run after the queue was shut down = %v, want nil", err)
	}
	cancel()
	if processed.Load() < int64(len(busy)) {
		t.Fatalf("processed %d", processed.Load())
	}
}

func TestGetWaitsForAddContextAndShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		got := make(chan string, 1)
		go func() {
			k, err := q.Get(t.Context())
			if err != nil {
				t.Errorf("Get: %v", err)
			}
			got <- k
		}()
		synctest.Wait()
		select {
		case k := <-got:
			t.Fatalf("Get returned %q from an empty queue", k)
		default:
		}
		q.Add("a")
		synctest.Wait() // event-driven: no time passes
		if k := <-got; k != "a" {
			t.Fatalf("got %q", k)
		}

		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { _, err := q.Get(ctx); errc <- err }()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("Get after cancel = %v", err)
		}

		go func() { _, err := q.Get(t.Context()); errc <- err }()
		synctest.Wait()
		q.ShutDown()
		if err := <-errc; !errors.Is(err, workqueue.ErrShutDown) {
			t.Fatalf("Get after ShutDown = %v", err)
		}
	})
}

func TestShutDownHandsOutQueuedThenStops(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("a")
	q.Add("b")
	q.AddAfter("later", time.Hour)
	q.ShutDown()
	q.Add("c")
	q.AddAfter("d", time.Millisecond)
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false")
	}
	if got := drain(t, q); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("after ShutDown: %v, want [a b]", got)
	}
	if _, err := q.Get(context.Background()); !errors.Is(err, workqueue.ErrShutDown) {
		t.Fatalf("Get = %v, want ErrShutDown", err)
	}
}

func TestShutDownWithDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		q.Add("a")
		k := get(t, q)
		q.Add("a") // to be processed again after Done
		drained := make(chan error, 1)
		go func() { drained <- q.ShutDownWithDrain(t.Context()) }()
		synctest.Wait()
		select {
		case err := <-drained:
			t.Fatalf("drained (%v) while a is processed", err)
		default:
		}
		q.Done(k)
		synctest.Wait()
		select {
		case err := <-drained:
			t.Fatalf("drained (%v) while a is queued again", err)
		default:
		}
		q.Done(get(t, q))
		if err := <-drained; err != nil {
			t.Fatalf("ShutDownWithDrain = %v", err)
		}

		q2 := workqueue.New(workqueue.Options[string]{})
		q2.Add("stuck")
		get(t, q2)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := q2.ShutDownWithDrain(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ShutDownWithDrain of a stuck queue = %v", err)
		}
	})
}

func TestAddAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		q.AddAfter("c", 3*time.Second)
		q.AddAfter("a", time.Second)
		q.AddAfter("b", 2*time.Second)
		q.AddAfter("a", 5*time.Second) // later: a keeps 1s
		q.AddAfter("c", 2*time.Second) // earlier: c moves to 2s, after b
		q.AddAfter("now", 0)
		if got := drain(t, q); !slices.Equal(got, []string{"now"}) {
			t.Fatalf("at 0: %v", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, q); !slices.Equal(got, []string{"a"}) {
			t.Fatalf("at 1s: %v", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, q); !slices.Equal(got, []string{"b", "c"}) {
			t.Fatalf("at 2s: %v", got)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if q.Len() != 0 {
			t.Fatalf("Len = %d: a key was queued twice", q.Len())
		}
		// A delayed key that is queued meanwhile coalesces when due.
		q.AddAfter("x", time.Second)
		q.Add("x")
		time.Sleep(time.Second)
		synctest.Wait()
		if got := drain(t, q); !slices.Equal(got, []string{"x"}) {
			t.Fatalf("x: %v", got)
		}
		// A Get waiting is woken by the timer.
		q.AddAfter("y", time.Minute)
		start := time.Now()
		k, err := q.Get(t.Context())
		if err != nil || k != "y" || time.Since(start) != time.Minute {
			t.Fatalf("Get = %q, %v after %v", k, err, time.Since(start))
		}
		q.Done(k)
		q.AddAfter("z", time.Hour)
		q.ShutDown() // stops the timer: the bubble ends with no goroutine
	})
}

func TestRateLimiters(t *testing.T) {
	exp := workqueue.ExponentialBackoff[string](5*time.Millisecond, 40*time.Millisecond)
	var got []time.Duration
	for range 6 {
		got = append(got, exp.When("a"))
	}
	want := []time.Duration{5, 10, 20, 40, 40, 40}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if !slices.Equal(got, want) {
		t.Fatalf("exponential: %v, want %v", got, want)
	}
	if n := exp.NumRequeues("a"); n != 6 {
		t.Fatalf("NumRequeues = %d", n)
	}
	if d := exp.When("b"); d != 5*time.Millisecond {
		t.Fatalf("b is independent: %v", d)
	}
	exp.Forget("a")
	if d, n := exp.When("a"), exp.NumRequeues("a"); d != 5*time.Millisecond || n != 1 {
		t.Fatalf("after Forget: %v, %d", d, n)
	}
	huge := workqueue.ExponentialBackoff[string](time.Second, 1000*time.Second)
	for range 2000 {
		if d := huge.When("k"); d < 0 || d > 1000*time.Second {
			t.Fatalf("overflow: %v", d)
		}
	}

	synctest.Test(t, func(t *testing.T) {
		b := workqueue.TokenBucket[string](10, 3)
		var got []time.Duration
		for range 5 {
			got = append(got, b.When("any"))
		}
		want := []time.Duration{0, 0, 0, 100 * time.Millisecond, 200 * time.Millisecond}
		if !slices.Equal(got, want) {
			t.Fatalf("bucket: %v, want %v", got, want)
		}
		time.Sleep(time.Second) // refills 10, capped at the burst of 3, less the 2 owed
		if d := b.When("any"); d != 0 {
			t.Fatalf("after refill: %v", d)
		}

		m := workqueue.MaxOf(workqueue.ExponentialBackoff[string](time.Millisecond, time.Second), workqueue.TokenBucket[string](1, 1))
		if d := m.When("k"); d != time.Millisecond {
			t.Fatalf("max of 1ms and a full bucket: %v", d)
		}
		if d := m.When("k"); d != time.Second {
			t.Fatalf("max of 2ms and an empty bucket: %v", d)
		}
		if n := m.NumRequeues("k"); n != 2 {
			t.Fatalf("NumRequeues = %d", n)
		}
		m.Forget("k")
		if n := m.NumRequeues("k"); n != 0 {
			t.Fatalf("NumRequeues after Forget = %d", n)
		}
	})
}

func TestDefaultRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := workqueue.DefaultRateLimiter[string]()
		if d := l.When("a"); d != workqueue.DefaultBaseDelay {
			t.Fatalf("first: %v", d)
		}
		if d := l.When("a"); d != 2*workqueue.DefaultBaseDelay {
			t.Fatalf("second: %v", d)
		}
		// The bucket: 100 tokens, 10 a second; 2 taken above.
		var last time.Duration
		for i := range 100 {
			last = l.When(string(rune('b' + i)))
		}
		if last != 200*time.Millisecond {
			t.Fatalf("the 102nd take waits %v, want 200ms (bucket of 100 at 10 qps)", last)
		}
	})
}

func TestAddRateLimitedForgetAndMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var adds, retries []string
		var latencies, works []time.Duration
		depth := -1
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.ExponentialBackoff[string](time.Second, time.Minute),
			Metrics: workqueue.Metrics[string]{
				Depth:        func(n int) { mu.Lock(); depth = n; mu.Unlock() },
				Added:        func(k string) { mu.Lock(); adds = append(adds, k); mu.Unlock() },
				Latency:      func(d time.Duration) { mu.Lock(); latencies = append(latencies, d); mu.Unlock() },
				WorkDuration: func(d time.Duration) { mu.Lock(); works = append(works, d); mu.Unlock() },
				Retry:        func(k string) { mu.Lock(); retries = append(retries, k); mu.Unlock() },
			},
		})
		q.AddRateLimited("a")
		q.AddRateLimited("a") // 2s later than now: a keeps 1s
		if q.NumRequeues("a") != 2 {
			t.Fatalf("NumRequeues = %d", q.NumRequeues("a"))
		}
		time.Sleep(time.Second)
		synctest.Wait()
		k := get(t, q)
		time.Sleep(3 * time.Second)
		if d, n := q.LongestRunning(); d != 3*time.Second || n != 1 {
			t.Fatalf("LongestRunning = %v, %d", d, n)
		}
		q.Done(k)
		q.Forget("a")
		if q.NumRequeues("a") != 0 {
			t.Fatalf("NumRequeues after Forget = %d", q.NumRequeues("a"))
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(adds, []string{"a"}) || !slices.Equal(retries, []string{"a", "a"}) {
			t.Fatalf("adds %v retries %v", adds, retries)
		}
		if !slices.Equal(latencies, []time.Duration{0}) || !slices.Equal(works, []time.Duration{3 * time.Second}) {
			t.Fatalf("latencies %v works %v", latencies, works)
		}
		if depth != 0 {
			t.Fatalf("depth = %d", depth)
		}
		q.ShutDown()
	})
}

func TestSteadyStateAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	q := workqueue.New(workqueue.Options[string]{})
	ctx := context.Background()
	keys := []string{"a", "b", "c", "d"}
	for _, k := range keys { // grow the map and the ring once
		q.Add(k)
	}
	drain(t, q)
	allocs := testing.AllocsPerRun(1000, func() {
		for _, k := range keys {
			q.Add(k)
		}
		for range keys {
			k, _ := q.Get(ctx)
			q.Done(k)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Add+Get+Done round", allocs)
	}
}

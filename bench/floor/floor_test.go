package floorbench

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/informer-go/informer/bench/workload"
	corev1 "k8s.io/api/core/v1"
)

type cm = *corev1.ConfigMap

// handler is what a floor handler is called with: the new state and the
// old one (nil for an add).
type handler func(old, new cm)

func counting(c *workload.Counter) handler { return func(_, _ cm) { c.Hit() } }

// cache is the floor's cache: a map by namespace/name under one mutex,
// to each object's position in a slice, so that a change to a known
// object replaces its entry and allocates nothing (an assignment
// m[string(b)] = o would allocate the key's string every time).
type cache struct {
	mu   sync.Mutex
	m    map[string]int
	objs []cm
}

func newCache(n int) *cache {
	return &cache{m: make(map[string]int, n), objs: make([]cm, 0, n)}
}

// key builds namespace/name in buf.
func key(buf []byte, o cm) []byte {
	buf = append(buf, o.Namespace...)
	buf = append(buf, '/')
	return append(buf, o.Name...)
}

// apply stores o and returns the state it replaced, if any.
func (c *cache) apply(o cm) (old cm) {
	var buf [128]byte
	k := key(buf[:0], o)
	c.mu.Lock()
	if i, ok := c.m[string(k)]; ok {
		old, c.objs[i] = c.objs[i], o
	} else {
		c.m[string(k)] = len(c.objs)
		c.objs = append(c.objs, o)
	}
	c.mu.Unlock()
	return old
}

// deliver applies o and calls every handler, in order, on the caller's
// goroutine.
func (c *cache) deliver(o cm, hs []handler) {
	old := c.apply(o)
	for _, h := range hs {
		h(old, o)
	}
}

func handlers(counters []*workload.Counter) []handler {
	hs := make([]handler, len(counters))
	for i, c := range counters {
		hs[i] = counting(c)
	}
	return hs
}

// run starts fn on its own goroutine (as an informer's Run) and returns a
// function that waits for it to return.
func run(fn func()) (wait func()) {
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	return func() { <-done }
}

func BenchmarkInitialSync(b *testing.B) {
	for _, n := range workload.InitialSyncSizes {
		items := workload.SharedObjects(n)
		for _, h := range workload.HandlerCounts {
			b.Run(fmt.Sprintf("N=%d/H=%d", n, h), func(b *testing.B) {
				workload.Measure(b, n, "obj", func(span *workload.Span) {
					counters := workload.Counters(h, n)
					hs := handlers(counters)
					span.Start()
					c := newCache(len(items)) // the list's size is known, as it is to ours
					wait := run(func() {
						for _, o := range items {
							c.deliver(o, hs)
						}
					})
					workload.WaitAll(counters)
					span.Stop()
					wait()
				})
			})
		}
	}
}

// steady fills a cache with items, seen by the handlers, and returns it.
func steady(items []cm, hs []handler) *cache {
	c := newCache(len(items))
	for _, o := range items {
		c.deliver(o, hs)
	}
	return c
}

func BenchmarkSteadyState(b *testing.B) {
	items := workload.SharedObjects(workload.SteadyObjects)
	events := workload.Modified(items, workload.SteadyEvents, workload.SteadyObjects+1)
	for _, h := range workload.HandlerCounts {
		b.Run(fmt.Sprintf("H=%d", h), func(b *testing.B) {
			workload.Measure(b, len(events), "event", func(span *workload.Span) {
				counters := workload.Counters(h, len(items)+len(events))
				hs := handlers(counters)
				c := steady(items, hs)
				gate := make(chan struct{})
				wait := run(func() {
					<-gate
					for _, o := range events {
						c.deliver(o, hs)
					}
				})
				span.Start()
				close(gate)
				workload.WaitAll(counters)
				span.Stop()
				wait()
			})
		})
	}
}

// queued is a handler on a goroutine of its own behind an unbounded
// queue: FanOut's floor, where a slow handler must not hold back the
// others.
type queued struct {
	h    handler
	mu   sync.Mutex
	q    [][2]cm // old, new
	wake chan struct{}
}

func (q *queued) push(old, new cm) {
	q.mu.Lock()
	q.q = append(q.q, [2]cm{old, new})
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queued) run(ctx context.Context) {
	for {
		q.mu.Lock()
		batch := q.q
		q.q = nil
		q.mu.Unlock()
		for _, n := range batch {
			q.h(n[0], n[1])
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return
		}
	}
}

func BenchmarkFanOut(b *testing.B) {
	items := workload.SharedObjects(workload.SteadyObjects)
	events := workload.Modified(items, workload.FanOutEvents, workload.SteadyObjects+1)
	workload.MeasureMillis(b, func(span *workload.Span) {
		counters := workload.Counters(workload.FanOutFast, len(items)+len(events))
		slow := &workload.Slow{}
		all := append(handlers(counters), func(_, _ cm) { slow.Call() })
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		qs := make([]handler, len(all))
		for i, h := range all {
			q := &queued{h: h, wake: make(chan struct{}, 1)}
			wg.Go(func() { q.run(ctx) })
			qs[i] = q.push
		}
		c := steady(items, qs)
		for _, cn := range counters {
			cn.WaitAtLeast(len(items))
		}
		gate := make(chan struct{})
		wait := run(func() {
			<-gate
			for _, o := range events {
				c.deliver(o, qs)
			}
		})
		span.Start()
		close(gate)
		workload.WaitAll(counters)
		span.Stop()
		slow.Release()
		wait()
		cancel()
		wg.Wait()
	})
}

// fifo is the floor of a DeltaFIFO: each key's pending objects in a map,
// the keys in a slice in the order they were first queued, one mutex.
type fifo struct {
	mu    sync.Mutex
	items map[string][]cm
	order []string
	head  int
}

func (f *fifo) add(o cm) {
	var buf [128]byte
	k := key(buf[:0], o)
	f.mu.Lock()
	if d, ok := f.items[string(k)]; ok {
		f.items[string(k)] = append(d, o)
	} else {
		s := string(k)
		f.items[s] = []cm{o}
		f.order = append(f.order, s)
	}
	f.mu.Unlock()
}

func (f *fifo) pop(fn func(key string, deltas []cm)) {
	f.mu.Lock()
	k := f.order[f.head]
	f.order[f.head] = ""
	f.head++
	if f.head == len(f.order) {
		f.order, f.head = f.order[:0], 0
	}
	d := f.items[k]
	delete(f.items, k)
	f.mu.Unlock()
	fn(k, d)
}

func BenchmarkFIFO(b *testing.B) {
	const n = workload.FIFOKeys
	objs := workload.SharedObjects(n)
	noop := func(string, []cm) {}
	b.Run("DeltaFIFO", func(b *testing.B) {
		f := &fifo{items: map[string][]cm{}}
		m := workload.StartMallocs()
		for b.Loop() {
			for _, o := range objs {
				f.add(o)
			}
			for range n {
				f.pop(noop)
			}
		}
		m.Report(b, n, "addpop")
		workload.ReportNsPer(b, n, "addpop")
	})
}

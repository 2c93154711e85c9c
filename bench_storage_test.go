package informer_test

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/informer-go/informer"
)

// Benchmarks of the storage layer: Indexer and DeltaFIFO. Objects are small
// ConfigMaps with a few labels, spread over benchNamespaces namespaces.
//
//	go test -run='^$' -bench='Indexer|LockedMap|DeltaFIFO' -benchmem -count=6 . | tee /tmp/bench-storage.txt
//	benchstat /tmp/bench-storage.txt

const (
	benchObjects    = 100_000
	benchNamespaces = 100
)

// benchCM returns object i of the benchmark set, at resourceVersion rv.
func benchCM(i, rv int) *cm {
	c := newCM("ns-"+strconv.Itoa(i%benchNamespaces), "cm-"+strconv.Itoa(i), strconv.Itoa(rv),
		"app", "app-"+strconv.Itoa(i%10), "tier", "backend", "release", "stable")
	c.Data = map[string]string{"config.yaml": "key: value\n", "n": strconv.Itoa(i)}
	return c
}

func benchObjs(n, rv int) []*cm {
	objs := make([]*cm, n)
	for i := range objs {
		objs[i] = benchCM(i, rv)
	}
	return objs
}

func benchKeys(objs []*cm) []string {
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Namespace + "/" + o.Name
	}
	return keys
}

func newBenchIndexer(b *testing.B, objs []*cm) *informer.Indexer[*cm] {
	ix := informer.NewIndexer(informer.IndexerOptions[*cm]{
		Indexers: map[string]informer.IndexFunc[*cm]{informer.NamespaceIndex: informer.IndexByNamespace[*cm]()},
	})
	if err := ix.Replace(objs); err != nil {
		b.Fatal(err)
	}
	return ix
}

// reportPerObject reports the time per object when each iteration handles
// perOp objects.
func reportPerObject(b *testing.B, perOp int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(perOp), "ns/object")
}

func BenchmarkIndexer(b *testing.B) {
	objs := benchObjs(benchObjects, 1)
	keys := benchKeys(objs)

	b.Run("Add", func(b *testing.B) {
		// Adds new keys to a 100k Indexer; the added objects are removed
		// again, outside the timer, whenever the pool runs out.
		extra := make([]*cm, benchObjects)
		for i := range extra {
			extra[i] = benchCM(benchObjects+i, 1)
		}
		extraKeys := benchKeys(extra)
		ix := newBenchIndexer(b, objs)
		i := 0
		for b.Loop() {
			if i == len(extra) {
				b.StopTimer()
				for _, k := range extraKeys {
					_, _, _ = ix.DeleteKey(k)
				}
				i = 0
				b.StartTimer()
			}
			if err := ix.Add(extra[i]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})

	b.Run("Update", func(b *testing.B) {
		// New versions of stored objects with the same namespace: the index
		// is untouched.
		ix := newBenchIndexer(b, objs)
		next := [2][]*cm{benchObjs(benchObjects, 2), benchObjs(benchObjects, 3)}
		i := 0
		for b.Loop() {
			if err := ix.Update(next[(i/benchObjects)%2][i%benchObjects]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})

	b.Run("Delete", func(b *testing.B) {
		ix := newBenchIndexer(b, objs)
		i := 0
		for b.Loop() {
			if i == len(objs) {
				b.StopTimer()
				if err := ix.Replace(objs); err != nil {
					b.Fatal(err)
				}
				i = 0
				b.StartTimer()
			}
			if err := ix.Delete(objs[i]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})

	b.Run("Get", func(b *testing.B) {
		ix := newBenchIndexer(b, objs)
		i := 0
		for b.Loop() {
			if _, ok := ix.Get(keys[i%len(keys)]); !ok {
				b.Fatal("missing")
			}
			i++
		}
	})

	b.Run("ByIndex-1000", func(b *testing.B) {
		ix := newBenchIndexer(b, objs)
		perNS := benchObjects / benchNamespaces
		for b.Loop() {
			seq, err := ix.ByIndexSeq(informer.NamespaceIndex, "ns-7")
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for range seq {
				n++
			}
			if n != perNS {
				b.Fatalf("ByIndexSeq yielded %d objects, want %d", n, perNS)
			}
		}
		reportPerObject(b, perNS)
	})

	b.Run("ByIndexSlice-1000", func(b *testing.B) {
		ix := newBenchIndexer(b, objs)
		perNS := benchObjects / benchNamespaces
		for b.Loop() {
			list, err := ix.ByIndex(informer.NamespaceIndex, "ns-7")
			if err != nil || len(list) != perNS {
				b.Fatalf("ByIndex: %d objects, %v", len(list), err)
			}
		}
		reportPerObject(b, perNS)
	})

	b.Run("List-100k", func(b *testing.B) {
		ix := newBenchIndexer(b, objs)
		b.Run("Values", func(b *testing.B) {
			for b.Loop() {
				n := 0
				for range ix.Values() {
					n++
				}
				if n != benchObjects {
					b.Fatalf("Values yielded %d", n)
				}
			}
			reportPerObject(b, benchObjects)
		})
		b.Run("List", func(b *testing.B) {
			for b.Loop() {
				if n := len(ix.List()); n != benchObjects {
					b.Fatalf("List returned %d", n)
				}
			}
			reportPerObject(b, benchObjects)
		})
	})

	b.Run("ParallelGet", func(b *testing.B) {
		for _, writers := range []int{0, 1} {
			b.Run("writers="+strconv.Itoa(writers), func(b *testing.B) {
				ix := newBenchIndexer(b, objs)
				stop := startWriters(writers, func(i int) {
					_ = ix.Update(objs[i%len(objs)])
				})
				defer stop()
				var next atomic.Uint64
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					i := int(next.Add(7919))
					for pb.Next() {
						if _, ok := ix.Get(keys[i%len(keys)]); !ok {
							b.Error("missing")
							return
						}
						i++
					}
				})
			})
		}
	})
}

// startWriters starts n goroutines calling write in a loop until the returned
// function is called.
func startWriters(n int, write func(i int)) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for i := w; !done.Load(); i++ {
				write(i)
			}
		})
	}
	return func() {
		done.Store(true)
		wg.Wait()
	}
}

// lockedMap is the baseline for Indexer.Get: a plain map under a RWMutex.
type lockedMap struct {
	mu sync.RWMutex
	m  map[string]*cm
}

func (l *lockedMap) get(key string) (*cm, bool) {
	l.mu.RLock()
	o, ok := l.m[key]
	l.mu.RUnlock()
	return o, ok
}

func BenchmarkLockedMap(b *testing.B) {
	objs := benchObjs(benchObjects, 1)
	keys := benchKeys(objs)
	lm := &lockedMap{m: make(map[string]*cm, len(objs))}
	for _, o := range objs {
		// Stored keys are other strings than the ones looked up, as in the
		// Indexer (and in real use): comparing them reads their bytes.
		lm.m[o.Namespace+"/"+o.Name] = o
	}
	b.Run("Get", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, ok := lm.get(keys[i%len(keys)]); !ok {
				b.Fatal("missing")
			}
			i++
		}
	})
	b.Run("ParallelGet", func(b *testing.B) {
		var next atomic.Uint64
		b.RunParallel(func(pb *testing.PB) {
			i := int(next.Add(7919))
			for pb.Next() {
				if _, ok := lm.get(keys[i%len(keys)]); !ok {
					b.Error("missing")
					return
				}
				i++
			}
		})
	})
}

func BenchmarkDeltaFIFO(b *testing.B) {
	const n = 10_000
	objs := benchObjs(n, 1)
	ctx := context.Background()
	noop := func(string, []informer.Delta[*cm]) error { return nil }
	noopBatch := func([]informer.KeyDeltas[*cm]) error { return nil }

	b.Run("AddPop-10k", func(b *testing.B) {
		b.Run("Pop", func(b *testing.B) {
			f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[*cm]{})
			m := startMallocs()
			for b.Loop() {
				for _, o := range objs {
					if err := f.Add(o); err != nil {
						b.Fatal(err)
					}
				}
				for range n {
					if err := f.Pop(ctx, noop); err != nil {
						b.Fatal(err)
					}
				}
			}
			m.report(b, n)
			reportPerObject(b, n)
		})
		b.Run("PopBatch", func(b *testing.B) {
			f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[*cm]{})
			buf := make([]informer.KeyDeltas[*cm], 0, 64)
			m := startMallocs()
			for b.Loop() {
				for _, o := range objs {
					if err := f.Add(o); err != nil {
						b.Fatal(err)
					}
				}
				for f.Len() > 0 {
					if err := f.PopBatch(ctx, 64, noopBatch, buf); err != nil {
						b.Fatal(err)
					}
				}
			}
			m.report(b, n)
			reportPerObject(b, n)
		})
	})

	b.Run("ProducerConsumer", func(b *testing.B) {
		// One producer goroutine adds n distinct keys while the benchmark
		// goroutine pops them.
		run := func(b *testing.B, pop func(f *informer.DeltaFIFO[*cm], got *int) error) {
			f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[*cm]{})
			m := startMallocs()
			for b.Loop() {
				done := make(chan struct{})
				go func() {
					defer close(done)
					for _, o := range objs {
						if err := f.Add(o); err != nil {
							panic(err)
						}
					}
				}()
				got := 0
				for got < n {
					if err := pop(f, &got); err != nil {
						b.Fatal(err)
					}
				}
				<-done
			}
			m.report(b, n)
			reportPerObject(b, n)
		}
		b.Run("Pop", func(b *testing.B) {
			run(b, func(f *informer.DeltaFIFO[*cm], got *int) error {
				return f.Pop(ctx, func(_ string, d []informer.Delta[*cm]) error {
					*got += len(d)
					return nil
				})
			})
		})
		b.Run("PopBatch", func(b *testing.B) {
			buf := make([]informer.KeyDeltas[*cm], 0, 64)
			run(b, func(f *informer.DeltaFIFO[*cm], got *int) error {
				return f.PopBatch(ctx, 64, func(batch []informer.KeyDeltas[*cm]) error {
					for _, kd := range batch {
						*got += len(kd.Deltas)
					}
					return nil
				}, buf)
			})
		})
	})
}

// mallocs measures heap allocations per object over a whole benchmark, for
// benchmarks whose iterations handle many objects.
type mallocs struct{ start uint64 }

func startMallocs() mallocs {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return mallocs{ms.Mallocs}
}

func (m mallocs) report(b *testing.B, perOp int) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Mallocs-m.start)/float64(b.N)/float64(perOp), "allocs/object")
}

// BenchmarkNamespaceIndex compares the two ways to index by namespace on
// an update that keeps the namespace: IndexerOptions.NamespaceIndex
// (from the key, never calling into the object) and an IndexByNamespace
// index function.
func BenchmarkNamespaceIndex(b *testing.B) {
	objs := benchObjs(benchObjects, 1)
	updated := benchObjs(benchObjects, 2)
	for _, tc := range []struct {
		name string
		opts informer.IndexerOptions[*cm]
	}{
		{"option", informer.IndexerOptions[*cm]{NamespaceIndex: true}},
		{"indexfunc", informer.IndexerOptions[*cm]{Indexers: map[string]informer.IndexFunc[*cm]{informer.NamespaceIndex: informer.IndexByNamespace[*cm]()}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ix := informer.NewIndexer(tc.opts)
			if err := ix.Replace(objs); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := ix.Update(updated[i%len(updated)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkNamespaceIndexFill adds objects one by one to an Indexer with
// the namespace index kept from keys, in the order of a Kubernetes list
// (sorted by namespace) and spread over the namespaces in turn.
func BenchmarkNamespaceIndexFill(b *testing.B) {
	objs := benchObjs(benchObjects, 1)
	sorted := slices.Clone(objs)
	slices.SortStableFunc(sorted, func(a, b *cm) int { return strings.Compare(a.Namespace, b.Namespace) })
	for _, tc := range []struct {
		name string
		objs []*cm
	}{{"sorted", sorted}, {"interleaved", objs}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ix := informer.NewIndexer(informer.IndexerOptions[*cm]{NamespaceIndex: true})
				for _, o := range tc.objs {
					if err := ix.Add(o); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tc.objs)), "ns/object")
		})
	}
}

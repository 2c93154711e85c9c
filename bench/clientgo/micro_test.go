package clientgobench

import (
	"testing"

	"github.com/informer-go/informer/bench/workload"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

func newIndexer(b *testing.B, objs []*corev1.ConfigMap) cache.Indexer {
	ix := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := ix.Replace(anys(objs), "1"); err != nil {
		b.Fatal(err)
	}
	return ix
}

func anys(objs []*corev1.ConfigMap) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

func keys(objs []*corev1.ConfigMap) []string {
	ks := make([]string, len(objs))
	for i, o := range objs {
		ks[i] = o.Namespace + "/" + o.Name
	}
	return ks
}

func BenchmarkIndexer(b *testing.B) {
	const n = workload.IndexerObjects
	objs := workload.SharedObjects(n)

	b.Run("Add", func(b *testing.B) {
		// New keys into a 100k Indexer; they are removed again, untimed,
		// whenever the pool runs out.
		extra := workload.Objects(2 * n)[n:]
		ix := newIndexer(b, objs)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == len(extra) {
				b.StopTimer()
				for _, o := range extra {
					if err := ix.Delete(o); err != nil {
						b.Fatal(err)
					}
				}
				i = 0
				b.StartTimer()
			}
			if err := ix.Add(extra[i]); err != nil {
				b.Fatal(err)
			}
			i++
		}
		workload.ReportNsPer(b, 1, "object")
	})

	b.Run("Update", func(b *testing.B) {
		// New states of stored objects, same namespace.
		next := [2][]*corev1.ConfigMap{workload.Modified(objs, n, n+1), workload.Modified(objs, n, 2*n+1)}
		ix := newIndexer(b, objs)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := ix.Update(next[(i/n)%2][i%n]); err != nil {
				b.Fatal(err)
			}
			i++
		}
		workload.ReportNsPer(b, 1, "object")
	})

	b.Run("Delete", func(b *testing.B) {
		ix := newIndexer(b, objs)
		all := anys(objs)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == n {
				b.StopTimer()
				if err := ix.Replace(all, "1"); err != nil {
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
		workload.ReportNsPer(b, 1, "object")
	})

	b.Run("Get", func(b *testing.B) {
		ix := newIndexer(b, objs)
		ks := keys(objs)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			o, ok, err := ix.GetByKey(ks[i%n])
			if err != nil || !ok {
				b.Fatal("missing")
			}
			_ = o.(*corev1.ConfigMap)
			i++
		}
		workload.ReportNsPer(b, 1, "object")
	})

	b.Run("ByIndex", func(b *testing.B) {
		ix := newIndexer(b, objs)
		const perNS = n / workload.Namespaces
		b.ReportAllocs()
		for b.Loop() {
			list, err := ix.ByIndex(cache.NamespaceIndex, workload.ByIndexNamespace)
			if err != nil {
				b.Fatal(err)
			}
			got := 0
			for _, o := range list {
				if o.(*corev1.ConfigMap) != nil {
					got++
				}
			}
			if got != perNS {
				b.Fatalf("ByIndex returned %d objects, want %d", got, perNS)
			}
		}
		workload.ReportNsPer(b, perNS, "object")
	})

	b.Run("List", func(b *testing.B) {
		ix := newIndexer(b, objs)
		b.ReportAllocs()
		for b.Loop() {
			if got := len(ix.List()); got != n {
				b.Fatalf("List returned %d", got)
			}
		}
		workload.ReportNsPer(b, n, "object")
	})
}

func BenchmarkFIFO(b *testing.B) {
	const n = workload.FIFOKeys
	objs := workload.SharedObjects(n)
	noop := func(any, bool) error { return nil }

	addPop := func(b *testing.B, f cache.Queue) {
		m := workload.StartMallocs()
		for b.Loop() {
			for _, o := range objs {
				if err := f.Add(o); err != nil {
					b.Fatal(err)
				}
			}
			for range n {
				if _, err := f.Pop(noop); err != nil {
					b.Fatal(err)
				}
			}
		}
		m.Report(b, n, "addpop")
		workload.ReportNsPer(b, n, "addpop")
	}

	b.Run("DeltaFIFO", func(b *testing.B) {
		known := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		addPop(b, cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{
			KeyFunction:           cache.MetaNamespaceKeyFunc,
			KnownObjects:          known,
			EmitDeltaTypeReplaced: true,
		}))
	})

	// RealFIFO as v0.37's informers configure it by default (feature gates
	// InOrderInformers, AtomicFIFO, UnlockWhileProcessingFIFO).
	b.Run("RealFIFO", func(b *testing.B) {
		addPop(b, cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
			KeyFunction:           cache.MetaNamespaceKeyFunc,
			AtomicEvents:          true,
			UnlockWhileProcessing: true,
			EmitDeltaTypeBookmark: true,
		}))
	})
}

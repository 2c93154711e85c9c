package informerbench

import (
	"context"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
)

func newIndexer(b *testing.B, objs []cm) *informer.Indexer[cm] {
	ix := informer.NewIndexer(informer.IndexerOptions[cm]{NamespaceIndex: true})
	if err := ix.Replace(objs); err != nil {
		b.Fatal(err)
	}
	return ix
}

func keys(objs []cm) []string {
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
		extraKeys := keys(extra)
		ix := newIndexer(b, objs)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == len(extra) {
				b.StopTimer()
				for _, k := range extraKeys {
					ix.DeleteKey(k)
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
		next := [2][]cm{workload.Modified(objs, n, n+1), workload.Modified(objs, n, 2*n+1)}
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
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == n {
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
		workload.ReportNsPer(b, 1, "object")
	})

	b.Run("Get", func(b *testing.B) {
		ix := newIndexer(b, objs)
		ks := keys(objs)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, ok := ix.Get(ks[i%n]); !ok {
				b.Fatal("missing")
			}
			i++
		}
		workload.ReportNsPer(b, 1, "object")
	})

	b.Run("ByIndex", func(b *testing.B) {
		ix := newIndexer(b, objs)
		const perNS = n / workload.Namespaces
		b.ReportAllocs()
		for b.Loop() {
			seq, err := ix.ByIndexSeq(informer.NamespaceIndex, workload.ByIndexNamespace)
			if err != nil {
				b.Fatal(err)
			}
			got := 0
			for o := range seq {
				if o != nil {
					got++
				}
			}
			if got != perNS {
				b.Fatalf("ByIndexSeq yielded %d objects, want %d", got, perNS)
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
	ctx := context.Background()
	noop := func(string, []informer.Delta[cm]) error { return nil }

	b.Run("DeltaFIFO", func(b *testing.B) {
		known := informer.NewIndexer(informer.IndexerOptions[cm]{NamespaceIndex: true})
		f := informer.NewDeltaFIFO(informer.DeltaFIFOOptions[cm]{KnownObjects: known})
		m := workload.StartMallocs()
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
		m.Report(b, n, "addpop")
		workload.ReportNsPer(b, n, "addpop")
	})
}

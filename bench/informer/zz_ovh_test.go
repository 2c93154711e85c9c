package informerbench

import (
	"runtime"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"k8s.io/client-go/tools/cache"
)

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestZZOverhead(t *testing.T) {
	const n = 100_000
	objs := workload.SharedObjects(n)
	measure := func(name string, build func() any) float64 {
		before := liveHeap()
		keep := build()
		after := liveHeap()
		runtime.KeepAlive(keep)
		per := float64(after-before) / n
		t.Logf("%-28s %6.1f B/object", name, per)
		return per
	}
	base := measure("map[string]T", func() any {
		m := map[string]cm{}
		for _, o := range objs {
			m[o.Namespace+"/"+o.Name] = o
		}
		return m
	})
	for _, tc := range []struct {
		name string
		fn   func() any
	}{
		{"informer Add", func() any {
			ix := informer.NewIndexer(informer.IndexerOptions[cm]{NamespaceIndex: true})
			for _, o := range objs {
				ix.Add(o)
			}
			return ix
		}},
		{"informer Replace", func() any {
			ix := informer.NewIndexer(informer.IndexerOptions[cm]{NamespaceIndex: true})
			ix.Replace(objs)
			return ix
		}},
		{"client-go Add", func() any {
			ix := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for _, o := range objs {
				ix.Add(o)
			}
			return ix
		}},
	} {
		per := measure(tc.name, tc.fn)
		t.Logf("%-28s %+6.1f B/object over the map", tc.name, per-base)
	}
}

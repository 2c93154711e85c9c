package memory_test

import (
	"fmt"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// BenchmarkWriteNext is one write read by one watcher: the steady state of
// an informer over a Source.
func BenchmarkWriteNext(b *testing.B) {
	src := memory.New[*obj](memory.Options{HistoryLimit: 1000})
	w, err := src.Watch(b.Context(), informer.WatchOptions{})
	must(b, err)
	defer w.Close()
	objs := make([]*obj, b.N)
	for i := range objs {
		objs[i] = newObj(fmt.Sprintf("ns/o%d", i%100))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		must(b, src.Upsert(objs[i]))
		if _, err := w.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListPaginated lists 10,000 objects in pages of 500.
func BenchmarkListPaginated(b *testing.B) {
	src := memory.New[*obj](memory.Options{})
	for i := range 10000 {
		must(b, src.Create(newObj(fmt.Sprintf("ns/o%05d", i))))
	}
	b.ReportAllocs()
	for b.Loop() {
		items, _, err := listAll(b.Context(), src, informer.ListOptions{Limit: 500}, nil)
		if err != nil || len(items) != 10000 {
			b.Fatal(len(items), err)
		}
	}
}

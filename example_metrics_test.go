package informer_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Metrics are callbacks: count what a metrics system would record (the
// adapters of metrics/prometheus and metrics/otel do it for you).
func ExampleMetrics() {
	src := memory.New[*Widget](memory.Options{})
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w1"}})
	var lists, items, adds atomic.Int64
	inf := informer.New(src, informer.Options[*Widget]{Metrics: informer.Metrics{
		List:      func(streaming bool, reason string) { lists.Add(1); fmt.Println("list:", reason) },
		ListItems: func(n int) { items.Add(int64(n)) },
		Event: func(t informer.EventType) {
			if t == informer.EventAdded {
				adds.Add(1)
			}
		},
	}})
	seen := make(chan struct{})
	reg, _ := inf.AddHandler(informer.HandlerFuncs[*Widget]{AddFunc: func(w *Widget, _ bool) {
		if w.Name == "w2" {
			close(seen)
		}
	}}, informer.HandlerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.Run(ctx)
	informer.WaitForCacheSync(ctx, inf, reg)
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w2"}})
	<-seen
	fmt.Println("lists:", lists.Load(), "listed objects:", items.Load(), "added events:", adds.Load(), "cached:", inf.Lister().Len())
	// Output:
	// list: initial
	// lists: 1 listed objects: 1 added events: 1 cached: 2
}

package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is a user type: embedding ObjectMeta gives it the Object methods.
type Widget struct {
	metav1.ObjectMeta
	Color string
}

func ExampleInformer() {
	src := memory.New[*Widget](memory.Options{})
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w1"}, Color: "red"})
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w2"}, Color: "blue"})

	inf := informer.New(src, informer.Options[*Widget]{Logger: slog.New(slog.DiscardHandler)})
	var mu sync.Mutex
	var seen []string
	changed := make(chan struct{})
	note := func(format string, args ...any) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	reg, _ := inf.AddHandler(informer.HandlerFuncs[*Widget]{
		AddFunc: func(w *Widget, initial bool) { note("add %s %s initial=%v", w.Name, w.Color, initial) },
		UpdateFunc: func(old, w *Widget) {
			note("update %s %s→%s", w.Name, old.Color, w.Color)
			close(changed)
		},
		DeleteFunc: func(d informer.Deleted[*Widget]) { note("delete %s", d.Object.Name) },
	}, informer.HandlerOptions{})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		panic(err)
	}

	// A change: the handler is told, and the Lister already shows it.
	src.Update(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w2"}, Color: "green"})
	<-changed
	w, _ := inf.Lister().Namespace("team-a").Get("w2")
	fmt.Println("lister:", w.Color)

	cancel()
	<-done // Run returns once every goroutine has stopped
	mu.Lock()
	sort.Strings(seen)
	mu.Unlock()
	for _, s := range seen {
		fmt.Println(s)
	}
	// Output:
	// lister: green
	// add w1 red initial=true
	// add w2 blue initial=true
	// update w2 blue→green
}

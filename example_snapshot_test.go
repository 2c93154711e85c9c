package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ExampleSnapshotOptions: a warm restart. The first run writes its cache
// to a file when it stops; the next starts from that file, watches from
// its version instead of listing, and its handler gets the saved objects
// as initial adds, then only what changed while the program was down.
func ExampleSnapshotOptions() {
	dir, _ := os.MkdirTemp("", "snapshot-example")
	defer os.RemoveAll(dir)
	opts := informer.Options[*Widget]{
		Logger:   slog.New(slog.DiscardHandler),
		Snapshot: informer.SnapshotOptions{Path: filepath.Join(dir, "widgets.snap")},
	}
	src := memory.New[*Widget](memory.Options{})
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w1"}, Color: "red"})
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w2"}, Color: "blue"})

	// The first run: sync, stop (which writes the file).
	ctx, cancel := context.WithCancel(context.Background())
	first := informer.New(src, opts)
	done := make(chan struct{})
	go func() { defer close(done); first.Run(ctx) }()
	first.WaitForSync(ctx)
	cancel()
	<-done

	// While down: w2 changes, w3 appears.
	src.Update(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w2"}, Color: "green"})
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w3"}, Color: "white"})
	lists := src.ListCalls()

	// The next run starts from the file.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	next := informer.New(src, opts)
	var mu sync.Mutex
	var initial, changes []string
	both := make(chan struct{}) // closed at the second change
	change := func(c string) {
		if changes = append(changes, c); len(changes) == 2 {
			close(both)
		}
	}
	reg, _ := next.AddHandler(informer.HandlerFuncs[*Widget]{
		AddFunc: func(w *Widget, isInitial bool) {
			mu.Lock()
			defer mu.Unlock()
			if isInitial && w.Name != "w3" {
				initial = append(initial, w.Name+" "+w.Color)
				return
			}
			change("add " + w.Name + " " + w.Color)
		},
		UpdateFunc: func(old, w *Widget) {
			mu.Lock()
			change("update " + w.Name + " " + old.Color + "→" + w.Color)
			mu.Unlock()
		},
	}, informer.HandlerOptions{})
	go next.Run(ctx)
	informer.WaitForCacheSync(ctx, next, reg)
	<-both
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(initial)
	fmt.Println("restored:", initial)
	fmt.Println("since then:", changes)
	fmt.Println("lists:", src.ListCalls()-lists)
	// Output:
	// restored: [w1 red w2 blue]
	// since then: [update w2 blue→green add w3 white]
	// lists: 0
}

package memory_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// Widget is a user's own object type: ObjectMeta gives it every method a
// Source needs.
type Widget struct {
	metav1.ObjectMeta
	Size int
}

func newWidget(name string, size int) *Widget {
	return &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Size: size}
}

func Example() {
	ctx := context.Background()
	src := memory.New[*Widget](memory.Options{})

	// Writes: each one takes the next resourceVersion.
	_ = src.Create(newWidget("a", 1)) // resourceVersion 1
	_ = src.Create(newWidget("b", 2)) // 2

	// A list, then a watch from the list's resourceVersion, as an informer
	// does.
	page, _ := src.List(ctx, informer.ListOptions{})
	for _, w := range page.Items {
		fmt.Printf("listed %s size %d at %s\n", w.Name, w.Size, w.ResourceVersion)
	}
	watcher, _ := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	defer watcher.Close()

	_ = src.Update(newWidget("a", 10)) // a fresh object for every write: 3
	_ = src.Delete("default/b")        // 4
	for range 2 {
		ev, _ := watcher.Next()
		fmt.Printf("%s %s size %d at %s\n", ev.Type, ev.Object.Name, ev.Object.Size, ev.ResourceVersion)
	}

	// Faults: compaction expires old resourceVersions, and a dropped watch
	// ends.
	src.Compact()
	_, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	fmt.Println("watch from", page.ResourceVersion, "expired:", errors.Is(err, informer.ErrExpired))
	src.DropWatches(nil)
	_, err = watcher.Next()
	fmt.Println("dropped watch:", err == io.EOF)

	// Output:
	// listed a size 1 at 1
	// listed b size 2 at 2
	// MODIFIED a size 10 at 3
	// DELETED b size 2 at 4
	// watch from 2 expired: true
	// dropped watch: true
}

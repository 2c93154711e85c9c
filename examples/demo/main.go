// Command demo runs an informer over an in-memory source that keeps
// changing, with faults injected along the way, and prints what the handler
// sees. It needs no cluster.
//
//	go run ./demo [-duration 3s] [-objects 20] [-quiet]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"sort"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Widget is a small user type: ObjectMeta gives it the Object methods.
type Widget struct {
	metav1.ObjectMeta
	Color string
}

func main() {
	duration := flag.Duration("duration", 3*time.Second, "how long to run")
	objects := flag.Int("objects", 20, "how many widgets to churn")
	quiet := flag.Bool("quiet", false, "print only the summary")
	flag.Parse()
	if err := run(*duration, *objects, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, objects int, quiet bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	churnCtx, stopChurn := context.WithTimeout(ctx, duration)
	defer stopChurn()

	src := memory.New[*Widget](memory.Options{MaxPageSize: 5})
	colors := []string{"red", "green", "blue"}
	newWidget := func(i int) *Widget {
		return &Widget{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: fmt.Sprintf("team-%d", i%3),
				Name:      fmt.Sprintf("widget-%02d", i),
				Labels:    map[string]string{"color": colors[rand.IntN(len(colors))]},
			},
		}
	}
	for i := range objects / 2 {
		if err := src.Create(newWidget(i)); err != nil {
			return err
		}
	}

	var errs atomic.Int64
	inf := informer.New(src, informer.Options[*Widget]{
		Indexers: map[string]informer.IndexFunc[*Widget]{"color": informer.IndexByLabel[*Widget]("color")},
		OnError:  func(error) { errs.Add(1) },
		Logger:   slog.New(slog.DiscardHandler),
		Reflector: informer.ReflectorOptions{
			Backoff: informer.Backoff{Initial: 50 * time.Millisecond, Max: 200 * time.Millisecond},
		},
	})
	say := func(format string, args ...any) {
		if !quiet {
			fmt.Printf(format+"\n", args...)
		}
	}
	var adds, updates, deletes, unknown atomic.Int64
	reg, err := inf.AddHandler(informer.HandlerFuncs[*Widget]{
		AddFunc: func(w *Widget, initial bool) {
			adds.Add(1)
			say("add     %-22s color=%-5s rv=%-4s initial=%v", w.Namespace+"/"+w.Name, w.Labels["color"], w.ResourceVersion, initial)
		},
		UpdateFunc: func(old, w *Widget) {
			updates.Add(1)
			note := ""
			if old.ResourceVersion == w.ResourceVersion {
				note = "(unchanged, seen again by a relist)"
			}
			say("update  %-22s color=%-5s rv=%s→%s %s", w.Namespace+"/"+w.Name, w.Labels["color"], old.ResourceVersion, w.ResourceVersion, note)
		},
		DeleteFunc: func(d informer.Deleted[*Widget]) {
			deletes.Add(1)
			note := ""
			if d.FinalStateUnknown {
				unknown.Add(1)
				note = "(vanished while the watch was down)"
			}
			say("delete  %-22s rv=%-4s %s", d.Object.Namespace+"/"+d.Object.Name, d.Object.ResourceVersion, note)
		},
	}, informer.HandlerOptions{Name: "printer"})
	if err != nil {
		return err
	}

	done := make(chan error, 1)
	go func() { done <- inf.Run(runCtx) }()
	if err := informer.WaitForCacheSync(churnCtx, inf, reg); err != nil {
		return fmt.Errorf("waiting for sync: %w", err)
	}
	say("--- synced: %d widgets cached at resourceVersion %s", inf.Lister().Len(), inf.LastSyncResourceVersion())

	// Churn, with a fault now and then.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for step := 0; ; step++ {
		select {
		case <-churnCtx.Done():
			// Let the informer catch up with the last changes (and a relist
			// after the last fault), then stop it.
			settle := time.NewTimer(2 * time.Second)
			defer settle.Stop()
			for inf.LastSyncResourceVersion() != src.ResourceVersion() {
				select {
				case <-settle.C:
					fmt.Println("--- the informer did not catch up within 2s")
				case <-tick.C:
					continue
				}
				break
			}
			cancel()
			err := <-done
			summary(inf, src, adds.Load(), updates.Load(), deletes.Load(), unknown.Load(), errs.Load())
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		case <-tick.C:
		}
		i := rand.IntN(objects)
		key := fmt.Sprintf("team-%d/widget-%02d", i%3, i)
		switch r := rand.IntN(20); {
		case r == 0:
			say("--- fault: the watch drops and history is compacted: the informer must relist")
			src.DropWatches(errors.New("connection reset"))
			src.Delete(key)
			src.Compact()
		case r == 1:
			say("--- fault: the watch ends cleanly: the informer resumes from its last resourceVersion")
			src.DropWatches(nil)
		case r < 6:
			src.Delete(key)
		default:
			src.Upsert(newWidget(i))
		}
	}
}

func summary(inf *informer.Informer[*Widget], src *memory.Source[*Widget], adds, updates, deletes, unknown, errs int64) {
	fmt.Printf("--- done: %d adds, %d updates, %d deletes (%d inferred by a relist), %d errors reported and recovered\n",
		adds, updates, deletes, unknown, errs)
	lister := inf.Lister()
	sel := labels.SelectorFromSet(labels.Set{"color": "red"})
	var reds []string
	for w := range lister.ListSeq(sel) {
		reds = append(reds, w.Namespace+"/"+w.Name)
	}
	sort.Strings(reds)
	fmt.Printf("red widgets (label selector): %v\n", reds)
	fmt.Printf("widgets in team-1 (namespace index): %d\n", len(lister.Namespace("team-1").List(nil)))
	blues, _ := inf.Lister().ByIndex("color", "blue")
	fmt.Printf("blue widgets (color index): %d\n", len(blues))
	match := inf.Lister().Len() == src.Len()
	for _, w := range src.Items() {
		c, ok := lister.Namespace(w.Namespace).Get(w.Name)
		match = match && ok && c.ResourceVersion == w.ResourceVersion
	}
	fmt.Printf("cache matches the source: %v (%d widgets)\n", match, src.Len())
}

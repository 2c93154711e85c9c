// Command controller is a controller written the way controllers are: an
// informer puts the keys of changed objects on a work queue, and workers
// reconcile each key against the cache, writing the result back to the
// source. Here the source is in memory (no cluster needed) and the objects
// are widgets whose spec asks for a color; the controller paints them and
// records the painted color in their status. Painting fails now and then,
// and such keys are retried with backoff.
//
//	go run ./controller [-duration 3s] [-widgets 50] [-workers 4] [-fail 0.2] [-quiet]
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
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	"github.com/informer-go/informer/workqueue"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget asks for a color in its spec; its status says what it has.
type Widget struct {
	metav1.ObjectMeta
	Spec   WidgetSpec
	Status WidgetStatus
}

// WidgetSpec is what the user wants.
type WidgetSpec struct{ Color string }

// WidgetStatus is what the controller did.
type WidgetStatus struct {
	Painted string
	Coats   int
}

// Options are the program's flags.
type Options struct {
	Duration time.Duration // how long users keep changing widgets
	Widgets  int
	Workers  int
	Fail     float64 // chance that a paint job fails
	Quiet    bool
}

func main() {
	var o Options
	flag.DurationVar(&o.Duration, "duration", 3*time.Second, "how long users keep changing widgets")
	flag.IntVar(&o.Widgets, "widgets", 50, "how many widgets")
	flag.IntVar(&o.Workers, "workers", 4, "reconcile workers")
	flag.Float64Var(&o.Fail, "fail", 0.2, "chance that painting fails (retried with backoff)")
	flag.BoolVar(&o.Quiet, "quiet", false, "print only the summary")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
	fmt.Printf("--- %d reconciles, %d paint jobs, %d failed and retried; converged: %v (%d widgets)\n",
		res.Reconciles, res.Painted, res.Failures, res.Converged, res.Widgets)
	if !res.Converged {
		os.Exit(1)
	}
}

// Result is what a run did.
type Result struct {
	Reconciles, Painted, Failures int64
	Widgets                       int
	Converged                     bool // every widget's status matches its spec
}

var colors = []string{"red", "green", "blue", "yellow"}

// Run runs the controller while users change widgets for o.Duration, then
// until every widget is painted as its spec asks (or ctx ends), and stops
// the informer and the workers.
func Run(ctx context.Context, o Options) (Result, error) {
	var res Result
	src := memory.New[*Widget](memory.Options{})
	for i := range o.Widgets {
		if err := src.Create(newWidget(i)); err != nil {
			return res, err
		}
	}
	say := func(format string, args ...any) {
		if !o.Quiet {
			fmt.Printf(format+"\n", args...)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger := slog.New(slog.DiscardHandler) // failures are counted instead
	inf := informer.New(src, informer.Options[*Widget]{Logger: logger})
	q := workqueue.New(workqueue.Options[string]{
		Name:        "widgets",
		Logger:      logger,
		RateLimiter: workqueue.ExponentialBackoff[string](5*time.Millisecond, 200*time.Millisecond),
	})
	// Only widgets whose status lags their spec need work.
	reg, err := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[*Widget]{
		Filter: func(w *Widget) bool { return w.Status.Painted != w.Spec.Color },
	})
	if err != nil {
		return res, err
	}
	informerDone := make(chan error, 1)
	go func() { informerDone <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		return res, err
	}
	say("--- synced %d widgets; reconciling with %d workers", inf.Lister().Len(), o.Workers)

	lister := inf.Lister()
	var reconciles, painted, failures atomic.Int64
	reconcile := func(ctx context.Context, key string) error {
		reconciles.Add(1)
		w, ok := lister.Get(key) // the cache, never the source, is read
		if !ok || w.Status.Painted == w.Spec.Color {
			return nil // deleted, or already done
		}
		if rand.Float64() < o.Fail {
			failures.Add(1)
			return fmt.Errorf("paint %s: the spray gun jammed", key)
		}
		// Cached objects are shared: write a copy.
		out := *w
		out.Status = WidgetStatus{Painted: w.Spec.Color, Coats: w.Status.Coats + 1}
		if err := src.Update(&out); err != nil {
			return err // changed meanwhile: retried from the newer state
		}
		painted.Add(1)
		say("painted %-10s %s", key, w.Spec.Color)
		return nil
	}
	workersDone := make(chan error, 1)
	go func() { workersDone <- q.Run(ctx, o.Workers, reconcile) }()

	// Users change their minds for a while.
	churn := time.NewTimer(o.Duration)
	defer churn.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
churning:
	for {
		select {
		case <-churn.C:
			break churning
		case <-ctx.Done():
			break churning
		case <-tick.C:
			key := fmt.Sprintf("default/widget-%03d", rand.IntN(o.Widgets))
			if w, ok := src.Get(key); ok {
				out := *w
				out.Spec.Color = colors[rand.IntN(len(colors))]
				src.Update(&out)
			}
		}
	}
	// Then the controller converges: wait until the cache has the
	// source's last write and every widget is painted.
	for !converged(src, lister) {
		select {
		case <-ctx.Done():
			return res, context.Cause(ctx)
		case <-tick.C:
		}
	}
	cancel()
	errW, errI := <-workersDone, <-informerDone
	res = Result{Reconciles: reconciles.Load(), Painted: painted.Load(), Failures: failures.Load(),
		Widgets: src.Len(), Converged: converged(src, lister)}
	if !errors.Is(errW, context.Canceled) || !errors.Is(errI, context.Canceled) {
		return res, errors.Join(errW, errI)
	}
	return res, nil
}

// converged reports whether the cache holds every widget of the source at
// its latest version, painted as asked.
func converged(src *memory.Source[*Widget], lister informer.Lister[*Widget]) bool {
	for _, w := range src.Items() {
		c, ok := lister.Get(w.Namespace + "/" + w.Name)
		if !ok || c.ResourceVersion != w.ResourceVersion || w.Status.Painted != w.Spec.Color {
			return false
		}
	}
	return true
}

func newWidget(i int) *Widget {
	return &Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("widget-%03d", i)},
		Spec:       WidgetSpec{Color: colors[i%len(colors)]},
	}
}

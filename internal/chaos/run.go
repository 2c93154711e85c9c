package chaos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/informer-go/informer"
)

// Run is one scenario run: an informer over Source, fed by Mutator, with
// handlers; the caller turns faults on and off through Faults.
type Run[T informer.Object] struct {
	Name   string
	Seed   uint64
	Source informer.Source[T]
	// Options for the informer (Logger defaults to a discarding one).
	Options informer.Options[T]
	Mutator *Mutator
	// Faults turns the world's faults on (true) or off (false).
	Faults func(on bool)
	// FaultCounts reports the faults injected so far.
	FaultCounts func() (int, string)
	// State is the world's state, key → resourceVersion, read once the
	// mutator has stopped.
	State func() map[string]int64
	// For is how long the mutator runs with faults on.
	For time.Duration
	// Handlers beyond the two plain ones: a slow one, one that panics now
	// and then, one added late and one removed half way (Churn).
	Slow       time.Duration
	PanicEvery int
	Churn      bool
	// FaultsDuringSync turns faults on before the informer starts, so
	// that the first list or streaming list meets them too.
	FaultsDuringSync bool
	// Settle bounds the wait for the cache and the handlers to catch up
	// after the last write; default 60s.
	Settle time.Duration
}

// Go runs the scenario and returns what the oracle found; err is for
// failures of the harness itself (the informer never synced).
func (r *Run[T]) Go(ctx context.Context) (*Result, error) {
	if r.Options.Logger == nil {
		r.Options.Logger = slog.New(slog.DiscardHandler)
	}
	if r.Settle == 0 {
		r.Settle = time.Minute
	}
	res := &Result{Scenario: r.Name, Seed: r.Seed}
	inf := informer.New(r.Source, r.Options)
	type reg struct {
		rec *Recorder[T]
		reg *informer.Registration[T]
	}
	var regs []reg
	add := func(rec *Recorder[T]) *informer.Registration[T] {
		g, err := inf.AddHandler(rec, informer.HandlerOptions{Name: rec.Name})
		if err != nil {
			panic(err)
		}
		regs = append(regs, reg{rec, g})
		return g
	}
	add(NewRecorder[T]("a"))
	add(NewRecorder[T]("b"))
	if r.Slow > 0 {
		s := NewRecorder[T]("slow")
		s.Slow = r.Slow
		add(s)
	}
	if r.PanicEvery > 0 {
		p := NewRecorder[T]("panicky")
		p.PanicEvery = r.PanicEvery
		add(p)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if r.FaultsDuringSync {
		r.Faults(true)
	}
	done := make(chan error, 1)
	go func() { done <- inf.Run(runCtx) }()
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	err := inf.WaitForSync(syncCtx)
	cancel()
	if err != nil {
		stop()
		<-done
		return nil, fmt.Errorf("informer never synced: %w", err)
	}

	rng := rand.New(rand.NewPCG(r.Seed, r.Seed+1))
	lag := NewLag(1 << 16)
	lagDone := make(chan struct{})
	go func() { defer close(lagDone); lag.Run(runCtx, inf.WaitForResourceVersion) }()
	mctx, mstop := context.WithTimeout(ctx, r.For)
	defer mstop()
	r.Faults(true)
	var wg sync.WaitGroup
	wg.Go(func() { r.Mutator.Run(mctx, rng, lag) })
	var removed *informer.Registration[T]
	if r.Churn {
		// A handler added while the world changes, and one removed then.
		wg.Go(func() {
			gone := NewRecorder[T]("removed")
			g, _ := inf.AddHandler(gone, informer.HandlerOptions{Name: gone.Name})
			removed = g
			select {
			case <-mctx.Done():
			case <-time.After(r.For / 3):
			}
			g.Remove()
		})
		select {
		case <-mctx.Done():
		case <-time.After(r.For / 2):
		}
		add(NewRecorder[T]("late"))
	}
	wg.Wait()
	r.Faults(false)
	lag.Close()
	res.Mutations = r.Mutator.Writes
	res.Faults, res.FaultKind = r.FaultCounts()

	// Settle: the lag waiter has seen every write applied; then the
	// handlers drain.
	select {
	case <-lagDone:
	case <-time.After(r.Settle):
		res.Examples = append(res.Examples, fmt.Sprintf("the cache had not applied the last write %s after it", r.Settle))
	}
	want := r.State()
	deadline := time.Now().Add(r.Settle)
	for _, g := range regs {
		// Pending does not count a call in progress: the handler's view
		// may still be one call behind when it says 0, so wait for the
		// view to match too (a handler that never catches up is reported
		// below, after the deadline).
		for (g.reg.Pending() > 0 || !Compare(want, g.rec.View()).Clean()) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	res.P50, res.P99, res.Max, res.Last = lag.Stats()

	cache := map[string]int64{}
	for k, o := range inf.Lister().All() {
		cache[k] = rvOf(o)
	}
	d := Compare(want, cache)
	res.Lost, res.Invented, res.Stale = d.Lost, d.Invented, d.Stale
	for _, e := range d.Examples {
		res.Examples = append(res.Examples, "cache: "+e)
	}
	for _, g := range regs {
		d := Compare(want, g.rec.View())
		res.Lost += d.Lost
		res.Invented += d.Invented
		res.Stale += d.Stale
		for _, e := range d.Examples {
			res.Examples = append(res.Examples, g.rec.Name+": "+e)
		}
		g.rec.mu.Lock()
		res.Reordered += g.rec.reordered
		res.Spurious += g.rec.spurious
		for _, b := range g.rec.bad {
			res.Examples = append(res.Examples, g.rec.Name+": "+b)
		}
		g.rec.mu.Unlock()
		if !g.reg.HasSynced() {
			res.Unsynced++
			res.Examples = append(res.Examples, g.rec.Name+": not synced")
		}
	}

	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		res.Examples = append(res.Examples, fmt.Sprintf("Run returned %v", err))
	}
	if removed != nil {
		select {
		case <-removed.Done():
		default:
			res.Unsynced++
			res.Examples = append(res.Examples, "removed handler: Done not closed")
		}
	}
	return res, nil
}

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
)

// DeltaFIFO tests: popping, closing, syncing, concurrency.

func TestDeltaFIFOPopBlocksUntilAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(nil)
		var got string
		errc := make(chan error, 1)
		go func() {
			errc <- f.Pop(context.Background(), func(key string, ds []informer.Delta[*cm]) error {
				got = fmtKeyDeltas(key, ds)
				return nil
			})
		}()
		synctest.Wait()
		select {
		case err := <-errc:
			t.Fatalf("Pop returned %v on an empty queue", err)
		default:
		}
		if err := f.Add(newCM("ns", "a", "1")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		select {
		case err := <-errc:
			if err != nil || got != "ns/a Added:1" {
				t.Fatalf("Pop = %q, %v", got, err)
			}
		default:
			t.Fatal("Pop still blocked after Add")
		}
	})
}

func TestDeltaFIFOPopContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(nil)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- f.Pop(ctx, func(string, []informer.Delta[*cm]) error { return nil }) }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Pop error = %v, want context.Canceled", err)
			}
		default:
			t.Fatal("Pop still blocked after cancel")
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(nil)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		err := f.Pop(ctx, func(string, []informer.Delta[*cm]) error { return nil })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Pop error = %v, want DeadlineExceeded", err)
		}
		if waited := time.Since(start); waited != time.Minute {
			t.Fatalf("Pop returned after %v, want 1m", waited)
		}
	})
	t.Run("already cancelled, item queued", func(t *testing.T) {
		// A queued key is handed out even if ctx is done: nothing to wait for.
		f := newFIFO(nil)
		if err := f.Add(newCM("ns", "a", "1")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		called := false
		err := f.Pop(ctx, func(string, []informer.Delta[*cm]) error { called = true; return nil })
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Pop error = %v", err)
		}
		if (err == nil) != called {
			t.Fatalf("Pop returned %v, callback called %v", err, called)
		}
	})
}

func TestDeltaFIFOPopReturnsCallbackError(t *testing.T) {
	f := newFIFO(nil)
	if err := f.Add(newCM("ns", "a", "1")); err != nil {
		t.Fatal(err)
	}
	errFn := errors.New("callback failed")
	if err := f.Pop(context.Background(), func(string, []informer.Delta[*cm]) error { return errFn }); !errors.Is(err, errFn) {
		t.Fatalf("Pop error = %v, want the callback's", err)
	}
	if f.Len() != 0 {
		t.Fatalf("Len() = %d: the key is consumed even if the callback fails", f.Len())
	}
}

func TestDeltaFIFOClose(t *testing.T) {
	f := newFIFO(newCMIndexer())
	if err := f.Add(newCM("ns", "a", "1")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := f.Add(newCM("ns", "b", "1")); !errors.Is(err, informer.ErrClosed) {
		t.Fatalf("Add after Close: %v, want ErrClosed", err)
	}
	if err := f.Replace(nil); !errors.Is(err, informer.ErrClosed) {
		t.Fatalf("Replace after Close: %v, want ErrClosed", err)
	}
	if err := f.Resync(); !errors.Is(err, informer.ErrClosed) {
		t.Fatalf("Resync after Close: %v, want ErrClosed", err)
	}
	// Queued keys are still handed out, then ErrClosed.
	if got := popOne(t, f); got != "ns/a Added:1" {
		t.Fatalf("popped %q", got)
	}
	for range 2 {
		if err := f.Pop(context.Background(), func(string, []informer.Delta[*cm]) error {
			t.Fatal("callback called on a closed, empty queue")
			return nil
		}); !errors.Is(err, informer.ErrClosed) {
			t.Fatalf("Pop after Close: %v, want ErrClosed", err)
		}
	}
	f.Close() // idempotent
}

func TestDeltaFIFOCloseWakesEveryConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(nil)
		const consumers = 3
		errs := make(chan error, consumers)
		for range consumers {
			go func() {
				errs <- f.Pop(context.Background(), func(string, []informer.Delta[*cm]) error { return nil })
			}()
		}
		buf := make([]informer.KeyDeltas[*cm], 0, 4)
		go func() {
			errs <- f.PopBatch(context.Background(), 4, func([]informer.KeyDeltas[*cm]) error { return nil }, buf)
		}()
		synctest.Wait()
		f.Close()
		synctest.Wait()
		for range consumers + 1 {
			select {
			case err := <-errs:
				if !errors.Is(err, informer.ErrClosed) {
					t.Fatalf("Pop after Close = %v, want ErrClosed", err)
				}
			default:
				t.Fatal("a consumer blocked in Pop was not woken by Close")
			}
		}
	})
}

func TestDeltaFIFOPopBatch(t *testing.T) {
	f := newFIFO(nil)
	var want []string
	for i := range 10 {
		o := newCM("ns", fmt.Sprint("k", i), "1")
		if err := f.Add(o); err != nil {
			t.Fatal(err)
		}
		want = append(want, "ns/"+o.Name)
	}
	var got []string
	for _, m := range []int{3, 0, -1, 1, 100} {
		wantN := min(max(m, 1), f.Len())
		if err := f.PopBatch(context.Background(), m, func(batch []informer.KeyDeltas[*cm]) error {
			if len(batch) != wantN {
				t.Fatalf("PopBatch(max %d) handed %d keys, want %d", m, len(batch), wantN)
			}
			for _, kd := range batch {
				if len(kd.Deltas) != 1 || kd.Deltas[0].Type != informer.DeltaAdded {
					t.Fatalf("deltas of %s: %v", kd.Key, kd.Deltas)
				}
				got = append(got, kd.Key)
			}
			return nil
		}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("PopBatch order %q, want %q", got, want)
	}
}

func TestDeltaFIFOHasSynced(t *testing.T) {
	t.Run("after the first replace is popped and processed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFIFO(nil)
			synced := make(chan struct{})
			go func() {
				<-f.Synced()
				close(synced)
			}()
			if err := f.Add(newCM("ns", "early", "1")); err != nil {
				t.Fatal(err)
			}
			if f.HasSynced() {
				t.Fatal("HasSynced before any Replace")
			}
			if err := f.Replace([]*cm{newCM("ns", "a", "1"), newCM("ns", "b", "1")}); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"ns/early", "ns/a", "ns/b"} {
				if f.HasSynced() {
					t.Fatalf("HasSynced before %s was popped", k)
				}
				if err := f.Pop(context.Background(), func(key string, _ []informer.Delta[*cm]) error {
					if key != k {
						t.Fatalf("popped %s, want %s", key, k)
					}
					synctest.Wait()
					if f.HasSynced() {
						t.Fatalf("HasSynced while the callback for %s runs", key)
					}
					select {
					case <-synced:
						t.Fatal("Synced() closed while a callback runs")
					default:
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			synctest.Wait()
			if !f.HasSynced() {
				t.Fatal("HasSynced false after the first list was processed")
			}
			select {
			case <-synced:
			default:
				t.Fatal("Synced() not closed")
			}
			// It stays true.
			if err := f.Replace([]*cm{newCM("ns", "c", "1")}); err != nil {
				t.Fatal(err)
			}
			if !f.HasSynced() {
				t.Fatal("HasSynced went back to false")
			}
		})
	})

	t.Run("empty first list", func(t *testing.T) {
		f := newFIFO(nil)
		if err := f.Replace(nil); err != nil {
			t.Fatal(err)
		}
		if !f.HasSynced() {
			t.Fatal("HasSynced false after an empty first list")
		}
	})

	t.Run("deletions inferred by the first list count", func(t *testing.T) {
		ix := newCMIndexer()
		mustAdd(t, ix, newCM("ns", "stale", "1"))
		f := newFIFO(ix)
		if err := f.Replace(nil); err != nil {
			t.Fatal(err)
		}
		if f.HasSynced() {
			t.Fatal("HasSynced before the inferred deletion was popped")
		}
		if got := popOne(t, f); got != "ns/stale Deleted:1?" {
			t.Fatalf("popped %q", got)
		}
		if !f.HasSynced() {
			t.Fatal("HasSynced false after draining")
		}
	})

	t.Run("keys added after the first list do not hold it up", func(t *testing.T) {
		f := newFIFO(nil)
		if err := f.Replace([]*cm{newCM("ns", "a", "1")}); err != nil {
			t.Fatal(err)
		}
		if err := f.Add(newCM("ns", "later", "1")); err != nil {
			t.Fatal(err)
		}
		popOne(t, f)
		if !f.HasSynced() {
			t.Fatal("HasSynced waits for a key added after the first list")
		}
	})

	t.Run("PopBatch", func(t *testing.T) {
		f := newFIFO(nil)
		if err := f.Replace([]*cm{newCM("ns", "a", "1"), newCM("ns", "b", "1"), newCM("ns", "c", "1")}); err != nil {
			t.Fatal(err)
		}
		for f.Len() > 0 {
			if err := f.PopBatch(context.Background(), 2, func(batch []informer.KeyDeltas[*cm]) error {
				if f.HasSynced() {
					t.Fatal("HasSynced inside the last batch's callback")
				}
				return nil
			}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if !f.HasSynced() {
			t.Fatal("HasSynced false after draining with PopBatch")
		}
	})
}

// TestDeltaFIFOEndReplaceWaitsForPop: a relist that runs while the consumer
// is applying key K to the cache must not miss K. The consumer pops K (a
// create); before it has stored K in the cache, a Replace without K starts.
// EndReplace must wait for the callback to return so it sees K in the cache
// and queues its deletion.
func TestDeltaFIFOEndReplaceWaitsForPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ix := newCMIndexer()
		mustAdd(t, ix, newCM("ns", "other", "1"))
		f := newFIFO(ix)
		if err := f.Add(newCM("ns", "k", "1")); err != nil {
			t.Fatal(err)
		}

		inCallback, release := make(chan struct{}), make(chan struct{})
		popErr := make(chan error, 1)
		go func() {
			popErr <- f.Pop(context.Background(), func(key string, ds []informer.Delta[*cm]) error {
				close(inCallback)
				<-release
				return applyDeltas(ix, ds)
			})
		}()
		<-inCallback
		if _, ok := ix.Get("ns/k"); ok {
			t.Fatal("K already in the cache")
		}

		replaced := make(chan error, 1)
		go func() { replaced <- f.Replace([]*cm{newCM("ns", "other", "2")}) }()
		synctest.Wait()
		select {
		case err := <-replaced:
			t.Fatalf("Replace returned (%v) while a Pop callback was in progress", err)
		default:
		}

		close(release)
		if err := <-popErr; err != nil {
			t.Fatal(err)
		}
		if err := <-replaced; err != nil {
			t.Fatal(err)
		}
		got := drain(t, f)
		slices.Sort(got)
		want := []string{"ns/k Deleted:1?", "ns/other Replaced:2"}
		if !slices.Equal(got, want) {
			t.Fatalf("after Replace: %q, want %q", got, want)
		}
	})
}

// TestDeltaFIFOResyncWaitsForPop: Resync also waits for a callback in
// progress, so a key being processed gets its Sync from the updated cache.
func TestDeltaFIFOResyncWaitsForPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ix := newCMIndexer()
		f := newFIFO(ix)
		if err := f.Add(newCM("ns", "k", "1")); err != nil {
			t.Fatal(err)
		}
		inCallback, release := make(chan struct{}), make(chan struct{})
		go func() {
			_ = f.Pop(context.Background(), func(key string, ds []informer.Delta[*cm]) error {
				close(inCallback)
				<-release
				return applyDeltas(ix, ds)
			})
		}()
		<-inCallback
		resynced := make(chan error, 1)
		go func() { resynced <- f.Resync() }()
		synctest.Wait()
		select {
		case <-resynced:
			t.Fatal("Resync returned while a Pop callback was in progress")
		default:
		}
		close(release)
		if err := <-resynced; err != nil {
			t.Fatal(err)
		}
		if got := drain(t, f); !slices.Equal(got, []string{"ns/k Sync:1"}) {
			t.Fatalf("after Resync: %q", got)
		}
	})
}

// TestDeltaFIFOConcurrentProducers: several producers and one consumer; per
// key the consumer sees versions in the order each producer added them.
func TestDeltaFIFOConcurrentProducers(t *testing.T) {
	f := newFIFO(nil)
	const producers, perProducer = 4, 500
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range perProducer {
				if err := f.Update(newCM("ns", fmt.Sprint("p", p, "-k", i%7), fmt.Sprint(i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	last := map[string]int{}
	total := 0
	for total < producers*perProducer {
		err := f.PopBatch(context.Background(), 8, func(batch []informer.KeyDeltas[*cm]) error {
			for _, kd := range batch {
				for _, d := range kd.Deltas {
					var v int
					fmt.Sscan(d.Object.ResourceVersion, &v)
					if prev, ok := last[kd.Key]; ok && v <= prev {
						t.Errorf("%s: version %d after %d", kd.Key, v, prev)
					}
					last[kd.Key] = v
					total++
				}
			}
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if f.Len() != 0 || total != producers*perProducer {
		t.Fatalf("consumed %d deltas, want %d; %d keys left", total, producers*perProducer, f.Len())
	}
}

func TestDeltaTypeString(t *testing.T) {
	for typ, want := range map[informer.DeltaType]string{
		informer.DeltaAdded:    "Added",
		informer.DeltaUpdated:  "Updated",
		informer.DeltaDeleted:  "Deleted",
		informer.DeltaReplaced: "Replaced",
		informer.DeltaSync:     "Sync",
		0:                      "DeltaType(0)",
		42:                     "DeltaType(42)",
	} {
		if got := typ.String(); got != want {
			t.Errorf("DeltaType(%d).String() = %q, want %q", typ, got, want)
		}
	}
}

// TestDeltaFIFOBacklogs drains large backlogs repeatedly, with keys that
// come back, so the queue's bookkeeping is reset and reused many times.
func TestDeltaFIFOBacklogs(t *testing.T) {
	f := newFIFO(nil)
	for round := range 4 {
		n := 1500 + round*400
		for i := range n {
			if err := f.Add(newCM("ns", fmt.Sprint("k", i), fmt.Sprint(round))); err != nil {
				t.Fatal(err)
			}
		}
		// Half the keys get a second delta.
		for i := 0; i < n; i += 2 {
			if err := f.Update(newCM("ns", fmt.Sprint("k", i), fmt.Sprint(round, "u"))); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			want := fmt.Sprintf("ns/k%d Added:%d", i, round)
			if i%2 == 0 {
				want += fmt.Sprintf(" Updated:%du", round)
			}
			if got := popOne(t, f); got != want {
				t.Fatalf("round %d: popped %q, want %q", round, got, want)
			}
		}
		if f.Len() != 0 {
			t.Fatalf("round %d: Len() = %d after draining", round, f.Len())
		}
	}
}

package workqueue_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	"github.com/informer-go/informer/workqueue"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type widget struct {
	metav1.ObjectMeta
	Owner string
}

func newWidget(name, owner string, labels map[string]string) *widget {
	return &widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: labels}, Owner: owner}
}

func queued(t *testing.T, q *workqueue.Queue[string]) []string {
	t.Helper()
	got := drain(t, q)
	slices.Sort(got)
	return got
}

func TestEnqueueAddsUpdatesDeletesAndTombstones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*widget](memory.Options{})
		for _, w := range []*widget{
			newWidget("a", "", map[string]string{"watch": "yes"}),
			newWidget("b", "", map[string]string{"watch": "yes"}),
			newWidget("ignored", "", nil),
		} {
			if err := src.Create(w); err != nil {
				t.Fatal(err)
			}
		}
		inf := informer.New(src, informer.Options[*widget]{
			Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: time.Second, Max: time.Second}},
			OnError:   func(error) {},
			Logger:    slog.New(slog.DiscardHandler),
		})
		q := workqueue.New(workqueue.Options[string]{})
		reg, err := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[*widget]{
			Filter: func(w *widget) bool { return w.Labels["watch"] == "yes" },
		})
		if err != nil {
			t.Fatal(err)
		}
		var tombstones atomic.Int32
		inf.AddHandler(informer.HandlerFuncs[*widget]{DeleteFunc: func(d informer.Deleted[*widget]) {
			if d.FinalStateUnknown {
				tombstones.Add(1)
			}
		}}, informer.HandlerOptions{})
		go inf.Run(t.Context())
		if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
			t.Fatal(err)
		}
		if got := queued(t, q); !slices.Equal(got, []string{"ns/a", "ns/b"}) {
			t.Fatalf("initial list: %v", got)
		}

		// An update of a watched object, and of one leaving the filter.
		if err := src.Update(newWidget("a", "", map[string]string{"watch": "yes", "v": "2"})); err != nil {
			t.Fatal(err)
		}
		if err := src.Update(newWidget("b", "", nil)); err != nil {
			t.Fatal(err)
		}
		if err := src.Update(newWidget("ignored", "", map[string]string{"v": "2"})); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := queued(t, q); !slices.Equal(got, []string{"ns/a", "ns/b"}) {
			t.Fatalf("updates: %v", got)
		}

		// A deletion while the watch is down arrives as a tombstone.
		src.FailWatches(1, errors.New("down"))
		src.DropWatches(nil)
		synctest.Wait()
		if err := src.Delete("ns/a"); err != nil {
			t.Fatal(err)
		}
		src.Compact()
		time.Sleep(time.Minute)
		synctest.Wait()
		if tombstones.Load() != 1 {
			t.Fatalf("%d tombstones: the test did not exercise a missed delete", tombstones.Load())
		}
		if got := queued(t, q); !slices.Equal(got, []string{"ns/a"}) {
			t.Fatalf("tombstone: %v", got)
		}
	})
}

func TestEnqueueMapsToOwnerKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*widget](memory.Options{})
		src.Create(newWidget("child-1", "owner-x", nil))
		src.Create(newWidget("child-2", "owner-x", nil))
		src.Create(newWidget("orphan", "", nil))
		inf := informer.New(src, informer.Options[*widget]{})
		q := workqueue.New(workqueue.Options[string]{})
		reg, err := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[*widget]{
			Key: func(w *widget) (string, bool) { return w.Namespace + "/" + w.Owner, w.Owner != "" },
		})
		if err != nil {
			t.Fatal(err)
		}
		go inf.Run(t.Context())
		if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
			t.Fatal(err)
		}
		if got := queued(t, q); !slices.Equal(got, []string{"ns/owner-x"}) {
			t.Fatalf("owners: %v, want one coalesced ns/owner-x", got)
		}
		// An owner change enqueues the old owner and the new one.
		src.Update(newWidget("child-1", "owner-y", nil))
		synctest.Wait()
		if got := queued(t, q); !slices.Equal(got, []string{"ns/owner-x", "ns/owner-y"}) {
			t.Fatalf("owner change: %v", got)
		}
		reg.Remove()
		src.Update(newWidget("child-2", "owner-z", nil))
		synctest.Wait()
		if q.Len() != 0 {
			t.Fatalf("enqueued after Remove: %d", q.Len())
		}
	})
}

// TestEnqueueNamesHandlerAfterQueue: Enqueue's handler takes the queue's
// name when EnqueueOptions.Handler.Name is empty, so the informer's
// handler metrics name the queue; an explicit name is kept.
func TestEnqueueNamesHandlerAfterQueue(t *testing.T) {
	for _, tc := range []struct{ queue, handler, want string }{
		{"widgets", "", "widgets"},
		{"widgets", "mine", "mine"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*widget](memory.Options{})
				for i := range 2 * informer.HandlerSample {
					if err := src.Create(newWidget(fmt.Sprint("w", i), "", nil)); err != nil {
						t.Fatal(err)
					}
				}
				var mu sync.Mutex
				names := map[string]bool{}
				inf := informer.New(src, informer.Options[*widget]{Logger: slog.New(slog.DiscardHandler), Metrics: informer.Metrics{
					HandlerLatency: func(h string, _ time.Duration) { mu.Lock(); names[h] = true; mu.Unlock() },
				}})
				q := workqueue.New(workqueue.Options[string]{Name: tc.queue})
				reg, err := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[*widget]{Handler: informer.HandlerOptions{Name: tc.handler}})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go inf.Run(ctx)
				if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				mu.Lock()
				defer mu.Unlock()
				if len(names) != 1 || !names[tc.want] {
					t.Fatalf("handler names in HandlerLatency: %v, want only %q", names, tc.want)
				}
			})
		})
	}
}

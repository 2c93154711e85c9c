package informer_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/informer-go/informer"
)

// hiddenKnown hides an *Indexer behind the KnownObjects interface: the
// queue then keeps no cached keys and marks nothing in it.
type hiddenKnown struct{ ix *informer.Indexer[*cm] }

func (h hiddenKnown) Get(key string) (*cm, bool)           { return h.ix.Get(key) }
func (h hiddenKnown) All() iter.Seq2[string, *cm]          { return h.ix.All() }
func (h hiddenKnown) apply(ds []informer.Delta[*cm]) error { return applyDeltas(h.ix, ds) }

// A relist that lists a key while its deltas are in a Pop callback queues
// the key again, whatever the queue's known objects: none, an *Indexer,
// or one behind the interface (no marks). The key in flight is still in
// the queue's key table, and the relist must not take it for a cached
// key of an Indexer.
func TestDeltaFIFORelistListsKeyInFlight(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known func() (informer.KnownObjects[*cm], func([]informer.Delta[*cm]) error)
	}{
		{"no known objects", func() (informer.KnownObjects[*cm], func([]informer.Delta[*cm]) error) {
			return nil, func([]informer.Delta[*cm]) error { return nil }
		}},
		{"an Indexer", func() (informer.KnownObjects[*cm], func([]informer.Delta[*cm]) error) {
			ix := newCMIndexer()
			return ix, func(ds []informer.Delta[*cm]) error { return applyDeltas(ix, ds) }
		}},
		{"an Indexer behind the interface", func() (informer.KnownObjects[*cm], func([]informer.Delta[*cm]) error) {
			h := hiddenKnown{newCMIndexer()}
			return h, h.apply
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			known, apply := tc.known()
			f := newFIFO(known)
			if err := f.Add(newCM("ns", "a", "1")); err != nil {
				t.Fatal(err)
			}
			entered, release := make(chan struct{}), make(chan struct{})
			popped := make(chan string, 1)
			go func() {
				var got string
				err := f.Pop(context.Background(), func(key string, ds []informer.Delta[*cm]) error {
					got = fmtKeyDeltas(key, ds)
					close(entered)
					<-release
					return apply(ds)
				})
				if err != nil {
					got = err.Error()
				}
				popped <- got
			}()
			<-entered
			// ns/a is in flight: the relist lists it, and ns/b.
			f.BeginReplace()
			err := f.ReplaceItems([]*cm{newCM("ns", "a", "2"), newCM("ns", "b", "3")})
			close(release)
			if err != nil {
				t.Fatalf("ReplaceItems: %v", err)
			}
			if got := <-popped; got != "ns/a Added:1" {
				t.Fatalf("in flight: %s", got)
			}
			if err := f.EndReplace(); err != nil {
				t.Fatalf("EndReplace: %v", err)
			}
			got := drain(t, f)
			want := []string{"ns/a Replaced:2", "ns/b Replaced:3"}
			if !slices.Equal(got, want) {
				t.Fatalf("after the relist popped %q, want %q", got, want)
			}
		})
	}
}

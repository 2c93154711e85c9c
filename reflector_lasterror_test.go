package informer_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

var errNotFound = errors.New("the resource is not found on the server")

// failingSource fails its lists while fail is set, as a Source of a
// resource that does not exist (yet) does.
type failingSource struct {
	*memory.Source[*item]
	fail atomic.Bool
}

func (s *failingSource) List(ctx context.Context, opts informer.ListOptions) (informer.Page[*item], error) {
	if s.fail.Load() {
		return informer.Page[*item]{}, errNotFound
	}
	return s.Source.List(ctx, opts)
}

// A wait that times out says why the informer has not synced: the
// context's error joined with the last source error; once the source
// answers, LastError is nil and the waits succeed.
func TestWaitForSyncReturnsLastError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &failingSource{Source: memory.New[*item](memory.Options{})}
		src.fail.Store(true)
		inf := informer.New[*item](src, quiet[*item](t, nil))
		reg, err := inf.AddHandler(informer.HandlerFuncs[*item]{}, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if inf.LastError() != nil {
			t.Fatal("LastError before Run")
		}
		runInformer(t, inf)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		for name, wait := range map[string]func() error{
			"Informer.WaitForSync":     func() error { return inf.WaitForSync(ctx) },
			"Registration.WaitForSync": func() error { return reg.WaitForSync(ctx) },
			"WaitForCacheSync":         func() error { return informer.WaitForCacheSync(ctx, inf, reg) },
		} {
			err := wait()
			var se *informer.SourceError
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errNotFound) || !errors.As(err, &se) {
				t.Errorf("%s: %v", name, err)
			}
			if !strings.Contains(err.Error(), "not found on the server") {
				t.Errorf("%s: %q", name, err)
			}
		}
		if !errors.Is(inf.LastError(), errNotFound) {
			t.Fatalf("LastError %v", inf.LastError())
		}
		src.fail.Store(false)
		ctx2, cancel2 := context.WithTimeout(t.Context(), time.Minute)
		defer cancel2()
		if err := informer.WaitForCacheSync(ctx2, inf, reg); err != nil {
			t.Fatal(err)
		}
		if err := inf.LastError(); err != nil {
			t.Fatalf("LastError after sync: %v", err)
		}
	})
}

// Once WaitForSync returns, the errors of the lists before the one that
// synced are gone from LastError: the reflector forgets them before the
// sink ends the list's replacement (after which the cache may be synced),
// not after. (It forgot them after, so a program that read LastError as
// soon as the sync was in could find the error of a list that had failed
// before: kube-apiserver's TestIntegrationRBACGrantedLater failed so in
// CI, with the 403 of the streaming list before the grant.)
func TestLastErrorClearedBySync(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "list"
		if streaming {
			name = "streaming list"
		}
		t.Run(name, func(t *testing.T) {
			const rounds = 2000
			stale := 0
			for range rounds {
				synctest.Test(t, func(t *testing.T) {
					src := memory.New[*item](memory.Options{WatchList: streaming})
					src.Create(newItem("ns", "a", "v1"))
					if streaming {
						src.FailWatches(1, errNotFound)
					} else {
						src.FailLists(1, errNotFound)
					}
					opts := quiet[*item](t, nil)
					if streaming {
						opts.Reflector.WatchList = informer.WatchListOn
					}
					inf := informer.New[*item](src, opts)
					runInformer(t, inf)
					if err := waitSynced(t, inf); err != nil {
						t.Fatal(err)
					}
					if inf.LastError() != nil {
						stale++
					}
				})
			}
			if stale > 0 {
				t.Errorf("LastError still held an earlier list's error after WaitForSync in %d of %d rounds", stale, rounds)
			}
		})
	}
}

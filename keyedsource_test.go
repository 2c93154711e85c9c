package informer_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// keyedSource is a memory.Source that keys its objects itself
// (informer.KeyedSource).
type keyedSource struct{ *memory.Source[*item] }

func (keyedSource) KeyFunc() informer.KeyFunc[*item] { return keyedKey }

func keyedKey(o *item) (string, error) { return "k-" + o.Name, nil }

// An informer keys its cache by its Source's key function when the
// Source has one and Options.KeyFunc is nil (or the same function);
// another Options.KeyFunc is an error: Run returns ErrKeyFuncConflict at
// once, and starts nothing (a poll-mode cache keyed otherwise than the
// Source compares its lists was wrong, healthy, with one warning).
func TestKeyedSourceKeysTheCache(t *testing.T) {
	cases := []struct {
		name string
		key  informer.KeyFunc[*item]
		want string
	}{
		{"the Source's", nil, "k-a"},
		{"the same function", keyedKey, "k-a"},
		{"another", func(o *item) (string, error) { return "i-" + o.Name, nil }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := memory.New[*item](memory.Options{})
				mem.Create(newItem("ns", "a", "v1"))
				inf := informer.New(keyedSource{mem}, informer.Options[*item]{KeyFunc: tc.key, Logger: slog.New(slog.DiscardHandler)})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.want == "" {
					rctx, rcancel := context.WithTimeout(ctx, time.Minute) // Run must not start
					defer rcancel()
					if err := inf.Run(rctx); !errors.Is(err, informer.ErrKeyFuncConflict) {
						t.Fatalf("Run: %v, want ErrKeyFuncConflict", err)
					}
					if err := inf.WaitForSync(ctx); !errors.Is(err, informer.ErrStopped) {
						t.Errorf("WaitForSync: %v, want ErrStopped", err)
					}
					return
				}
				go inf.Run(ctx)
				if err := inf.WaitForSync(ctx); err != nil {
					t.Fatal(err)
				}
				if _, ok := inf.Lister().Get(tc.want); !ok {
					t.Errorf("no %q in the cache; keys %v", tc.want, inf.Lister().Keys())
				}
				cancel()
				synctest.Wait()
			})
		})
	}
}

package typed_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/typed"
)

// TestFactoryHealth: the factory reports the health of each informer, by
// name: one that syncs and watches is healthy; one the server forbids is
// not, backs off, and says why.
func TestFactoryHealth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"})
		api.forbidden["secret"] = true
		f := newFakeFactory(t, api, quietOpts())
		defer f.Shutdown()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "a"})
		mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: "secret"})
		if hs := f.Health(); len(hs) != 2 || hs[0].State != informer.StateStarting || hs[0].Healthy() {
			t.Errorf("before Start: %+v", hs)
		}
		f.Start(ctx)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		hs := f.Health()
		if len(hs) != 2 || hs[0].Informer != "gadgets.example.com/v1 in a" || hs[1].Informer != "gadgets.example.com/v1 in secret" {
			t.Fatalf("health of %+v, want a and secret, by name", hs)
		}
		if a := hs[0]; !a.Healthy() || !a.Synced || a.State != informer.StateWatching || a.LastError != nil {
			t.Errorf("a: %v, want healthy and watching", a.Health)
		}
		s := hs[1]
		if s.Healthy() || s.Synced || s.State != informer.StateBackingOff || s.ConsecutiveFailures < 3 || s.LastError == nil || !strings.Contains(s.LastError.Error(), "403") {
			t.Errorf("secret: %v, want unhealthy, backing off after the 403s", s.Health)
		}
		cancel()
	})
}

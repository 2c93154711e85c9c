package informer

import (
	"errors"
	"testing"
)

// TestRemovedListenerNeverSyncs: the informer marks its listeners synced
// when the first list has been processed, and may do so before it has
// dropped a listener removed before Run (its first batch can come before
// it handles the removal). Such a listener must not report synced: its
// WaitForSync returns ErrStopped. (TestRegistrationRemove/before_Run hit
// this about once in 50 runs.)
func TestRemovedListenerNeverSyncs(t *testing.T) {
	l := newListener[*bobj](HandlerFuncs[*bobj]{}, HandlerOptions{}, func(error) {})
	reg := &Registration[*bobj]{l: l}
	reg.Remove()
	l.markSynced()
	if reg.HasSynced() {
		t.Fatal("a listener removed before it synced reports synced")
	}
	if err := reg.WaitForSync(t.Context()); !errors.Is(err, ErrStopped) {
		t.Fatalf("WaitForSync = %v, want ErrStopped", err)
	}
}

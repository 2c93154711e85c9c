package informer_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
)

// TestSnapshotFileFailureLeavesNothing: a snapshot write that fails (here:
// nothing to write yet) leaves neither the file nor a temporary one.
func TestSnapshotFileFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	inf := informer.New(threeItems(), quiet[*item](t, nil))
	if _, err := inf.WriteSnapshotFile(t.Context(), dir+"/items.snap"); !errors.Is(err, informer.ErrNoSnapshot) {
		t.Errorf("WriteSnapshotFile before anything synced: %v, want %v", err, informer.ErrNoSnapshot)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("a failed write left %d files (%s...)", len(left), left[0].Name())
	}
}

// TestRestoreConfirmedWhileEventsKeepComing: a restored watch whose events
// keep coming, closer together than the quiet time that confirms it, is
// confirmed a second (productiveAfter) after it opened all the same.
func TestRestoreConfirmedWhileEventsKeepComing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := threeItems()
		snap := snapshotAfter(t, src)
		inf, _, _ := restored(t, src, snap, informer.Options[*item]{})
		ctx, cancel := context.WithCancel(t.Context())
		updating := make(chan struct{})
		defer func() { cancel(); <-updating }()
		go func() {
			defer close(updating)
			for i := 0; ctx.Err() == nil; i++ {
				src.Update(newItem("ns", "a", "v"+strconv.Itoa(i)))
				time.Sleep(20 * time.Millisecond)
			}
		}()
		start := time.Now()
		runInformer(t, inf)
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		if err := inf.WaitForSync(wctx); err != nil {
			t.Fatalf("not synced after %v of events 20 ms apart: %v", time.Since(start), err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("synced after %v, want about a second", took)
		}
	})
}

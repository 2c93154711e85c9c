package informer_test

import (
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// TestActivityAfterSync: a completed list, and the confirmation of a
// restored version, show that the source is alive and the cache current:
// Health().LastActivity is set by them, so the lag (SinceActivity, the
// metrics' informer_lag_seconds) counts from there, and does not read 0
// ("never") on a quiet resource until its first event or bookmark.
func TestActivityAfterSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "items.snap")
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		for _, it := range []*item{newItem("ns", "a", "1"), newItem("ns", "b", "2")} {
			if err := src.Create(it); err != nil {
				t.Fatal(err)
			}
		}
		opts := informer.Options[*item]{Logger: discardLogger(), Snapshot: informer.SnapshotOptions{Path: path}}
		for _, run := range []string{"listed", "restored"} {
			inf := informer.New(src, opts)
			stop := runInformer(t, inf)
			if err := inf.WaitForSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			synced := time.Now()
			time.Sleep(10 * time.Second)
			synctest.Wait()
			h := inf.Health()
			if h.LastActivity.IsZero() || h.LastActivity.After(synced) || h.SinceActivity < 10*time.Second {
				t.Errorf("%s: LastActivity %v, SinceActivity %v 10s after the sync at %v: want the sync's time", run, h.LastActivity, h.SinceActivity, synced)
			}
			if n := src.ListCalls(); run == "restored" && n != 1 {
				t.Errorf("%d lists after the restart, want the first one only", n)
			}
			stop()
		}
	})
}

// TestHealthStringBeforeRun: a Health whose state has no start time (an
// informer not yet running, or a restored one served before Run's first
// state) says so without a duration since the zero time.
func TestHealthStringBeforeRun(t *testing.T) {
	// In a bubble, so that no time passes between Since and String (on a
	// loaded machine a millisecond could, and the test failed once).
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			h    informer.Health
			want string
		}{
			{informer.Health{}, `synced=false state="starting"`},
			{informer.Health{Synced: true, State: informer.StateWatching, Since: time.Now()}, `synced=true state="watching" for 0s`},
		} {
			if got := tc.h.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		}
	})
}

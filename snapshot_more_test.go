package informer_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
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

// listRecorder is a memory.Source that records the options of its lists.
type listRecorder struct {
	*memory.Source[*item]
	mu   sync.Mutex
	opts []informer.ListOptions
}

func (s *listRecorder) List(ctx context.Context, o informer.ListOptions) (informer.Page[*item], error) {
	s.mu.Lock()
	s.opts = append(s.opts, o)
	s.mu.Unlock()
	return s.Source.List(ctx, o)
}

// TestRestoreRelistNotInitial: the relist after an expired restore is not
// a first list (ListOptions.Initial, which lets source/kube answer it in
// one response): the restored cache is kept beside it, as in any relist.
func TestRestoreRelistNotInitial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := threeItems()
		snap := snapshotAfter(t, mem)
		whileDown(mem)
		mem.Compact()
		src := &listRecorder{Source: mem}
		inf := informer.New[*item](src, quiet[*item](t, nil))
		if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
			t.Fatal(err)
		}
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		src.mu.Lock()
		defer src.mu.Unlock()
		if len(src.opts) == 0 {
			t.Fatal("no list after an expired restore")
		}
		for i, o := range src.opts {
			if o.Initial {
				t.Errorf("list %d after a restore: %+v, want not Initial", i, o)
			}
		}
	})
}

// gatedPages is a memory.Source whose lists wait, before any page after
// the first, until gate is closed.
type gatedPages struct {
	*memory.Source[*item]
	gate chan struct{} // nil: no wait
}

func (s *gatedPages) List(ctx context.Context, o informer.ListOptions) (informer.Page[*item], error) {
	if o.Continue != "" && s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return informer.Page[*item]{}, ctx.Err()
		}
	}
	return s.Source.List(ctx, o)
}

// TestSnapshotNotDuringRelist: while a paged relist is half applied (its
// first page in the cache, the next not yet listed) the cache is at no
// version: WriteSnapshot waits for the relist's end instead of writing
// new objects under the old version.
func TestSnapshotNotDuringRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{MaxPageSize: 1})
		for _, n := range []string{"a", "b", "c"} {
			mem.Create(newItem("ns", n, "v1"))
		}
		src := &gatedPages{Source: mem}
		inf := informer.New[*item](src, quiet[*item](t, nil))
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		old := inf.LastSyncResourceVersion()
		src.gate = make(chan struct{})
		mem.StallWatches()
		mem.Update(newItem("ns", "a", "v2")) // on the relist's first page
		mem.Compact()
		mem.ResumeWatches()
		synctest.Wait() // the relist's first page is in, the second waits
		if o, _ := inf.Lister().Get("ns/a"); o == nil || o.Data != "v2" {
			t.Fatalf("ns/a is %+v, want the relist's first page in the cache", o)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		var buf bytes.Buffer
		info, err := inf.WriteSnapshot(ctx, &buf)
		if err == nil {
			t.Errorf("a snapshot at %s (the version before the relist: %s) with ns/a of the relist's first page", info.ResourceVersion, old)
		}
		close(src.gate)
		info, err = inf.WriteSnapshot(t.Context(), &buf)
		if err != nil || info.ResourceVersion != mem.ResourceVersion() {
			t.Errorf("after the relist: %+v, %v; want a snapshot at %s", info, err, mem.ResourceVersion())
		}
	})
}

// TestSnapshotAtEndHoldsTheQueue: what the queue still holds when Run's
// loop stops (here: an update queued while the loop was held up in an
// index function, then Run cancelled) is applied before the snapshot
// written at the end, which is then at the source's version and holds it.
func TestSnapshotAtEndHoldsTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := t.TempDir() + "/items.snap"
		src := threeItems()
		block := make(chan struct{})
		o := quiet[*item](t, nil)
		o.Snapshot.Path = path
		o.Indexers = map[string]informer.IndexFunc[*item]{"data": func(it *item, dst []string) ([]string, error) {
			if it.Data == "block" {
				<-block
			}
			return append(dst, it.Data), nil
		}}
		inf := informer.New[*item](src, o)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); inf.Run(ctx) }()
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		src.Update(newItem("ns", "a", "block"))
		synctest.Wait() // the loop is in the index function
		src.Update(newItem("ns", "b", "v2"))
		synctest.Wait() // queued
		cancel()
		close(block)
		<-done
		inf2 := informer.New[*item](src, quiet[*item](t, nil))
		info, err := inf2.RestoreFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.ResourceVersion != src.ResourceVersion() || !mapsEqual(cacheState(inf2), sourceState(src)) {
			t.Errorf("snapshot at %s holding %v; want the source's %s, %v", info.ResourceVersion, cacheState(inf2), src.ResourceVersion(), sourceState(src))
		}
	})
}

package informer_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// snapshotAfter runs an informer over src until it synced, writes its
// snapshot, and stops it.
func snapshotAfter(t *testing.T, src *memory.Source[*item]) []byte {
	t.Helper()
	inf := informer.New(src, quiet[*item](t, nil))
	stop := runInformer(t, inf)
	if err := waitSynced(t, inf); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	info, err := inf.WriteSnapshot(t.Context(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if info.ResourceVersion != src.ResourceVersion() || info.Objects != src.Len() || info.Bytes != int64(buf.Len()) {
		t.Fatalf("snapshot %+v; source at %s with %d objects", info, src.ResourceVersion(), src.Len())
	}
	stop()
	return buf.Bytes()
}

// threeItems returns a source holding ns/a, ns/b, ns/c.
func threeItems() *memory.Source[*item] {
	src := memory.New[*item](memory.Options{})
	for _, n := range []string{"a", "b", "c"} {
		src.Create(newItem("ns", n, "v1"))
	}
	return src
}

// whileDown changes src as if while the program was down: a updated, b
// deleted, d created; c stays as it was.
func whileDown(src *memory.Source[*item]) {
	src.Update(newItem("ns", "a", "v2"))
	src.Delete("ns/b")
	src.Create(newItem("ns", "d", "v1"))
}

// restored returns an informer restored from snap over src, with a
// recorder, and its errors.
func restored(t *testing.T, src *memory.Source[*item], snap []byte, opts informer.Options[*item]) (*informer.Informer[*item], *recorder, *errList) {
	t.Helper()
	errs := &errList{}
	o := quiet[*item](t, errs)
	o.ServeRestored, o.Snapshot = opts.ServeRestored, opts.Snapshot
	inf := informer.New(src, o)
	if snap != nil {
		if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
			t.Fatalf("Restore: %v", err)
		}
	}
	h := &recorder{}
	if _, err := inf.AddHandler(h, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	return inf, h, errs
}

// changesAfterInitial returns the calls after the initial adds of the
// restored objects, as strings, and checks the initial adds are those.
func changesAfterInitial(t *testing.T, recs []rec, restoredKeys ...string) []string {
	t.Helper()
	var keys []string
	i := 0
	for ; i < len(recs) && i < len(restoredKeys); i++ {
		if recs[i].Kind != "add" || !recs[i].Initial {
			break
		}
		keys = append(keys, recs[i].Key)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, restoredKeys) {
		t.Fatalf("initial adds of %v, want the restored %v (calls %v)", keys, restoredKeys, recs)
	}
	var out []string
	for _, r := range recs[i:] {
		s := r.Kind + " " + r.Key + " " + r.Data
		if r.Unknown {
			s += " unknown"
		}
		out = append(out, s)
	}
	return out
}

// TestRestoreWithinHistory: a snapshot inside the source's history means no
// list at all; handlers get the restored objects as initial adds, then
// exactly the changes made while the program was down.
func TestRestoreWithinHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := threeItems()
		snap := snapshotAfter(t, src)
		whileDown(src)
		lists := src.ListCalls()
		inf, h, _ := restored(t, src, snap, informer.Options[*item]{})
		runInformer(t, inf)
		synctest.Wait()
		if inf.HasSynced() {
			t.Fatal("synced before the source confirmed the restored version")
		}
		if hl := inf.Health(); !hl.Unconfirmed || hl.Healthy() {
			t.Errorf("health before confirmation: %v", hl)
		}
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		if n := src.ListCalls() - lists; n != 0 {
			t.Errorf("%d lists after a restore within the history, want 0", n)
		}
		if hl := inf.Health(); hl.Unconfirmed || !hl.Healthy() {
			t.Errorf("health after confirmation: %v", hl)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		got := changesAfterInitial(t, h.all(), "ns/a", "ns/b", "ns/c")
		want := []string{"update ns/a v2", "delete ns/b v1", "add ns/d v1"}
		if !slices.Equal(got, want) {
			t.Errorf("changes %q, want %q", got, want)
		}
		if !mapsEqual(cacheState(inf), sourceState(src)) || !mapsEqual(h.state(), sourceState(src)) {
			t.Errorf("cache %v, handler %v, source %v", cacheState(inf), h.state(), sourceState(src))
		}
		if err := inf.WaitForResourceVersion(t.Context(), src.ResourceVersion()); err != nil {
			t.Error(err)
		}
	})
}

// TestRestoreExpired: a snapshot older than the source's history costs one
// list, which tells handlers only what changed since the snapshot.
func TestRestoreExpired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := threeItems()
		snap := snapshotAfter(t, src)
		whileDown(src)
		src.Compact()
		lists := src.ListCalls()
		inf, h, errs := restored(t, src, snap, informer.Options[*item]{})
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		if hl := inf.Health(); hl.Unconfirmed || !hl.Healthy() {
			t.Errorf("health once synced by the relist: %v, want confirmed", hl)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if n := src.ListCalls() - lists; n != 1 {
			t.Errorf("%d lists after an expired restore, want 1", n)
		}
		got := changesAfterInitial(t, h.all(), "ns/a", "ns/b", "ns/c")
		slices.Sort(got)
		want := []string{"add ns/d v1", "delete ns/b v1 unknown", "update ns/a v2"}
		if !slices.Equal(got, want) {
			t.Errorf("changes %q, want %q (nothing for the unchanged ns/c)", got, want)
		}
		if !mapsEqual(cacheState(inf), sourceState(src)) || !mapsEqual(h.state(), sourceState(src)) {
			t.Errorf("cache %v, handler %v, source %v", cacheState(inf), h.state(), sourceState(src))
		}
		if !slices.ContainsFunc(errs.all(), func(err error) bool {
			return errors.Is(err, informer.ErrSnapshotExpired) && errors.Is(err, informer.ErrExpired)
		}) {
			t.Errorf("no ErrSnapshotExpired reported: %v", errs.all())
		}
	})
}

// TestRestoreAfterServerLostHistory: the source restarted without its
// history and is at an older version than the snapshot (a watch from it is
// refused, but not as expired): after three refusals, one list.
func TestRestoreAfterServerLostHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		old := threeItems()
		old.Update(newItem("ns", "c", "v2")) // the snapshot is at 4
		snap := snapshotAfter(t, old)
		src := memory.New[*item](memory.Options{})
		src.Create(newItem("ns", "a", "v3"))
		src.Create(newItem("ns", "c", "v2")) // at 2
		inf, h, _ := restored(t, src, snap, informer.Options[*item]{})
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if n := src.ListCalls(); n != 1 {
			t.Errorf("%d lists, want 1", n)
		}
		if !mapsEqual(cacheState(inf), sourceState(src)) || !mapsEqual(h.state(), sourceState(src)) {
			t.Errorf("cache %v, handler %v, source %v", cacheState(inf), h.state(), sourceState(src))
		}
	})
}

// TestRestoreServeRestored: with ServeRestored the restored cache is synced
// at once, and Health says it is not confirmed yet, until it is.
func TestRestoreServeRestored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := threeItems()
		snap := snapshotAfter(t, src)
		inf, _, _ := restored(t, src, snap, informer.Options[*item]{ServeRestored: true})
		start := time.Now()
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		hl := inf.Health()
		if !hl.Synced || !hl.Unconfirmed || !hl.UnconfirmedSince.Equal(start) || hl.Healthy() || !strings.Contains(hl.String(), "restored_unconfirmed") {
			t.Errorf("health at once: %+v (%v)", hl, hl)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if hl := inf.Health(); hl.Unconfirmed || !hl.Healthy() {
			t.Errorf("health after a second: %v", hl)
		}
	})
}

// TestRestoreBadSnapshots: every bad snapshot is its sentinel, leaves the
// cache empty, and the informer starts cold.
func TestRestoreBadSnapshots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := threeItems()
		good := snapshotAfter(t, src)
		other := memory.New[*widget2](memory.Options{})
		cases := []struct {
			name string
			in   []byte
			err  error
		}{
			{"truncated", good[:len(good)/2], informer.ErrSnapshotTruncated},
			{"corrupt", func() []byte { b := bytes.Clone(good); b[len(b)-10] ^= 1; return b }(), informer.ErrSnapshotCorrupt},
			{"newer format", func() []byte { b := bytes.Clone(good); b[8] = 9; return b }(), informer.ErrSnapshotNewerFormat},
			{"another type", snapshotOfOther(t, other), informer.ErrSnapshotMismatch},
			{"a key twice", handSnapshot(t, "3", []*item{newItem("ns", "a", "v1"), newItem("ns", "a", "v2")}), informer.ErrSnapshotCorrupt},
			{"no resourceVersion", handSnapshot(t, "", []*item{newItem("ns", "a", "v1")}), informer.ErrSnapshotCorrupt},
		}
		for _, c := range cases {
			inf := informer.New(src, quiet[*item](t, nil))
			if _, err := inf.Restore(bytes.NewReader(c.in)); !errors.Is(err, c.err) {
				t.Errorf("%s: %v, want %v", c.name, err, c.err)
			}
			if inf.Lister().Len() != 0 {
				t.Errorf("%s: %d objects in the cache", c.name, inf.Lister().Len())
			}
			lists := src.ListCalls()
			stop := runInformer(t, inf)
			if err := waitSynced(t, inf); err != nil {
				t.Fatal(err)
			}
			if n := src.ListCalls() - lists; n != 1 || inf.Health().Unconfirmed {
				t.Errorf("%s: %d lists, want a cold start", c.name, n)
			}
			stop()
		}
	})
}

// TestRestoreAfterRun: Restore once Run started fails with ErrNoSnapshot
// and leaves the running cache alone.
func TestRestoreAfterRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := threeItems()
		snap := handSnapshot(t, "1", []*item{newItem("ns", "x", "v1")})
		inf := informer.New(src, quiet[*item](t, nil))
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		if _, err := inf.Restore(bytes.NewReader(snap)); !errors.Is(err, informer.ErrNoSnapshot) {
			t.Errorf("Restore after Run: %v, want %v", err, informer.ErrNoSnapshot)
		}
		synctest.Wait()
		if !mapsEqual(cacheState(inf), sourceState(src)) {
			t.Errorf("cache %v after a Restore while running, want the source's %v", cacheState(inf), sourceState(src))
		}
	})
}

// TestRestoreTransforms: restored objects pass through Options.Transform,
// as listed ones do; one it refuses is left out and reported.
func TestRestoreTransforms(t *testing.T) {
	snap := handSnapshot(t, "3", []*item{newItem("ns", "a", "v1"), newItem("ns", "b", "v1")})
	errs := &errList{}
	o := quiet[*item](t, errs)
	o.Transform = func(it *item) (*item, error) {
		if it.Name == "b" {
			return nil, errors.New("refused")
		}
		c := *it
		c.Data = "transformed " + c.Data
		return &c, nil
	}
	inf := informer.New(threeItems(), o)
	if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
		t.Fatal(err)
	}
	if got, want := cacheState(inf), map[string]string{"ns/a": "transformed v1"}; !mapsEqual(got, want) {
		t.Errorf("restored cache %v, want %v", got, want)
	}
	if len(errs.all()) != 1 {
		t.Errorf("reported %v, want the refused object", errs.all())
	}
}

// widget2 is another type, for a snapshot of something else.
type widget2 struct{ item }

func snapshotOfOther(t *testing.T, src *memory.Source[*widget2]) []byte {
	w := &widget2{item: *newItem("ns", "w", "v1")}
	src.Create(w)
	inf := informer.New(src, quiet[*widget2](t, nil))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go inf.Run(ctx)
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := inf.WriteSnapshot(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSnapshotFileAtShutdown: with Options.Snapshot the informer writes its
// file when Run ends, and the next one starts from it without a list.
func TestSnapshotFileAtShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := t.TempDir() + "/items.snap"
		src := threeItems()
		inf, _, errs := restored(t, src, nil, informer.Options[*item]{Snapshot: informer.SnapshotOptions{Path: path}})
		stop := runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		if e := errs.all(); len(e) != 0 {
			t.Errorf("a missing snapshot file reported %v: it is a cold start", e)
		}
		src.Update(newItem("ns", "a", "v2"))
		if err := inf.WaitForResourceVersion(t.Context(), src.ResourceVersion()); err != nil {
			t.Fatal(err)
		}
		stop()
		whileDown(src)
		lists := src.ListCalls()
		inf2, h, _ := restored(t, src, nil, informer.Options[*item]{Snapshot: informer.SnapshotOptions{Path: path}})
		runInformer(t, inf2)
		if err := waitSynced(t, inf2); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if n := src.ListCalls() - lists; n != 0 {
			t.Errorf("%d lists, want 0", n)
		}
		got := changesAfterInitial(t, h.all(), "ns/a", "ns/b", "ns/c")
		want := []string{"update ns/a v2", "delete ns/b v1", "add ns/d v1"}
		if !slices.Equal(got, want) {
			t.Errorf("changes %q, want %q", got, want)
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// waitSynced waits for inf's sync for at most a minute (of the bubble's
// time, in synctest): a restore that never syncs fails instead of hanging.
func waitSynced(t *testing.T, inf *informer.Informer[*item]) error {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	return inf.WaitForSync(ctx)
}

// TestSnapshotFileEvery: with Options.Snapshot.Every the file is written
// while Run runs, each time at the version the cache is then at.
func TestSnapshotFileEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := t.TempDir() + "/items.snap"
		src := threeItems()
		inf, _, _ := restored(t, src, nil, informer.Options[*item]{Snapshot: informer.SnapshotOptions{Path: path, Every: time.Minute}})
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		versionOf := func() string {
			f, err := os.Open(path)
			if err != nil {
				return "none: " + err.Error()
			}
			defer f.Close()
			probe := informer.New(src, quiet[*item](t, nil))
			info, err := probe.Restore(f)
			if err != nil {
				return "bad: " + err.Error()
			}
			return info.ResourceVersion
		}
		time.Sleep(61 * time.Second)
		synctest.Wait()
		if v := versionOf(); v != "3" {
			t.Errorf("after a minute, the file is at %s, want 3", v)
		}
		src.Update(newItem("ns", "a", "v2"))
		time.Sleep(time.Minute)
		synctest.Wait()
		if v := versionOf(); v != "4" {
			t.Errorf("after the next minute, the file is at %s, want 4", v)
		}
	})
}

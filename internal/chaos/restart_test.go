package chaos

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Warm restarts (issue 29): an informer writes a snapshot while the world
// changes under faults, stops; the world goes on changing while the
// program is down; a new informer restores the snapshot and must end with
// the world's state, having told its handlers exactly the changes since
// the snapshot: nothing lost, invented, stale, reordered or spurious, and
// no call for an object that did not change.

// restartAge is how old the snapshot is at the restart, as the source
// sees it.
type restartAge int

const (
	ageInHistory   restartAge = iota // the source still has every change since
	ageJustExpired                   // compacted one write past it
	ageFarTooOld                     // compacted to the present
	ageLostHistory                   // the source restored from a backup older than the snapshot: its versions after the backup name other states
)

var ageNames = [...]string{"inside the history", "just expired", "far too old", "server lost its history"}

// state is an object's identity at one write: its version and value
// (unique per write, so that a source that lost its history and reuses
// versions still tells states apart).
type wstate struct{ rv, value int64 }

func widgetState(w *Widget) wstate { return wstate{rvOf(w), w.Spec.Value} }

// changeLog is a handler that records what it is told after the restored
// objects' initial adds.
type changeLog struct {
	mu       sync.Mutex
	restored map[string]wstate // what the snapshot holds
	initial  map[string]wstate
	changes  map[string][]string
}

func (c *changeLog) OnAdd(w *Widget, initial bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := keyOf(w)
	if _, seen := c.initial[k]; initial && !seen && c.restored[k] == widgetState(w) {
		c.initial[k] = widgetState(w)
		return
	}
	c.note(keyOf(w), fmt.Sprintf("add %d", w.Spec.Value))
}

func (c *changeLog) OnUpdate(_, w *Widget) {
	c.mu.Lock()
	c.note(keyOf(w), fmt.Sprintf("update %d", w.Spec.Value))
	c.mu.Unlock()
}
func (c *changeLog) OnDelete(d informer.Deleted[*Widget]) {
	c.mu.Lock()
	c.note(keyOf(d.Object), "delete")
	c.mu.Unlock()
}

// note records a change.
func (c *changeLog) note(key, s string) {
	if c.changes == nil {
		c.changes = map[string][]string{}
	}
	c.changes[key] = append(c.changes[key], s)
}

func memState(mem *memory.Source[*Widget]) map[string]wstate {
	m := map[string]wstate{}
	for _, w := range mem.Items() {
		m[keyOf(w)] = widgetState(w)
	}
	return m
}

func TestChaosRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos: not in -short")
	}
	for age := range ageNames {
		for _, seed := range seeds(t) {
			t.Run(fmt.Sprintf("%s/seed=%d", ageNames[age], seed), func(t *testing.T) {
				runRestart(t, restartAge(age), seed)
			})
		}
	}
}

// restartWorld is a memory source with a mutator over it.
type restartWorld struct {
	mem *memory.Source[*Widget]
	m   *Mutator
	rng *rand.Rand

	mu     sync.Mutex
	writes []worldWrite // every write that succeeded, in order
}

type worldWrite struct {
	typ, ns, n string
	value      int64
}

func newRestartWorld(seed uint64) *restartWorld {
	w := &restartWorld{mem: memory.New[*Widget](memory.Options{}), rng: rand.New(rand.NewPCG(seed, 29))}
	w.m = &Mutator{Objects: 400, Every: time.Millisecond, Write: w.write, Live: w.live}
	for i := range 300 {
		w.write("ADDED", fmt.Sprint("ns-", i%4), fmt.Sprint("seed-", i), -int64(i)-1, "")
	}
	return w
}

func (w *restartWorld) write(typ, ns, n string, value int64, pad string) int64 {
	var err error
	switch typ {
	case "DELETED":
		err = w.mem.Delete(ns + "/" + n)
	default:
		o := &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n}, Spec: WidgetSpec{Value: value, Pad: pad}}
		if typ == "ADDED" {
			err = w.mem.Create(o)
		} else {
			err = w.mem.Update(o)
		}
	}
	if err != nil {
		return 0
	}
	w.mu.Lock()
	w.writes = append(w.writes, worldWrite{typ, ns, n, value})
	w.mu.Unlock()
	rv, _ := strconv.ParseInt(w.mem.ResourceVersion(), 10, 64)
	return rv
}

// restoreBackup replaces the source with one that went through the
// first n writes only, as a server restored from a backup, and then
// through the same writes as the lost ones up to (not including) version
// upTo but with other values: the same keys at the same versions in other
// states, which only the objects themselves tell apart.
func (w *restartWorld) restoreBackup(n, upTo int) {
	w.mu.Lock()
	log := slices.Clone(w.writes[:upTo])
	w.writes = nil
	w.mu.Unlock()
	w.mem = memory.New[*Widget](memory.Options{})
	for i, e := range log {
		if i >= n {
			e.value += 1_000_000
		}
		w.write(e.typ, e.ns, e.n, e.value, "")
	}
}

func (w *restartWorld) live() []string {
	var keys []string
	for _, o := range w.mem.Items() {
		keys = append(keys, keyOf(o))
	}
	return keys
}

// churn runs the mutator for d, with drops and stalls of the watches.
func (w *restartWorld) churn(ctx context.Context, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	frng := rand.New(rand.NewPCG(w.rng.Uint64(), 1))
	var wg sync.WaitGroup
	wg.Go(func() { w.m.Run(ctx, w.rng, nil) })
	for ctx.Err() == nil {
		time.Sleep(time.Duration(20+frng.IntN(60)) * time.Millisecond)
		if frng.IntN(2) == 0 {
			w.mem.DropWatches(errCut)
		} else {
			w.mem.StallWatches()
			time.Sleep(time.Duration(frng.IntN(50)) * time.Millisecond)
			w.mem.ResumeWatches()
		}
	}
	wg.Wait()
	w.mem.ResumeWatches()
}

func runRestart(t *testing.T, age restartAge, seed uint64) {
	ctx := t.Context()
	world := newRestartWorld(seed)
	opts := informer.Options[*Widget]{Logger: testLogger(), Reflector: informer.ReflectorOptions{WatchList: informer.WatchListOff, PageSize: 25, MinWatchTimeout: time.Second}}

	// The first life: churn under faults, a snapshot taken while the
	// world changes, more churn, stop.
	first := informer.New(world.mem, opts)
	fctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- first.Run(fctx) }()
	if err := first.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	var info informer.SnapshotInfo
	var snapErr error
	var wg sync.WaitGroup
	backup := 0
	wg.Go(func() {
		time.Sleep(churn(t) / 4)
		world.mu.Lock()
		backup = len(world.writes)
		world.mu.Unlock()
		time.Sleep(churn(t) / 4)
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		info, snapErr = first.WriteSnapshot(wctx, &snap)
	})
	world.churn(ctx, churn(t))
	wg.Wait()
	stop()
	<-done
	if snapErr != nil {
		t.Fatalf("snapshot while churning: %v", snapErr)
	}
	restoredState := snapshotState(t, world.mem, snap.Bytes())

	// Down: the world changes, and the snapshot ages.
	if age == ageLostHistory {
		// No churn after it: a server that lost its history and then
		// went past the snapshot's version would serve another history
		// from it, which no client can tell (see Informer.Restore).
		rv, _ := strconv.Atoi(info.ResourceVersion)
		world.restoreBackup(backup, rv-1)
	} else {
		world.churn(ctx, churn(t)/2)
	}
	src := world.mem
	switch age {
	case ageJustExpired:
		next, _ := strconv.ParseUint(info.ResourceVersion, 10, 64)
		if err := src.CompactTo(strconv.FormatUint(next+1, 10)); err != nil {
			t.Fatal(err)
		}
	case ageFarTooOld:
		src.Compact()
	}
	want := memState(src)
	src.FailWatches(2, errCut) // the restored watch fails twice first, which must not give up on the snapshot
	lists := src.ListCalls()

	// The second life, from the snapshot.
	second := informer.New(src, opts)
	if _, err := second.Restore(bytes.NewReader(snap.Bytes())); err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder[*Widget]("a")
	log := &changeLog{restored: restoredState, initial: map[string]wstate{}}
	regA, _ := second.AddHandler(rec, informer.HandlerOptions{Name: "a"})
	regLog, _ := second.AddHandler(log, informer.HandlerOptions{Name: "log"})
	sctx, stop2 := context.WithCancel(ctx)
	done2 := make(chan error, 1)
	go func() { done2 <- second.Run(sctx) }()
	defer func() { stop2(); <-done2 }()
	if err := informer.WaitForCacheSync(ctx, second, regA, regLog); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := second.WaitForResourceVersion(wctx, src.ResourceVersion()); err != nil {
		t.Fatal(err)
	}
	for (regA.Pending() > 0 || regLog.Pending() > 0) && wctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // a call in progress

	checkRestart(t, age, restoredState, want, second, rec, log, src.ListCalls()-lists)
}

// snapshotState reads a snapshot's objects back, through a throwaway
// informer's Restore.
func snapshotState(t *testing.T, src *memory.Source[*Widget], snap []byte) map[string]wstate {
	inf := informer.New(src, informer.Options[*Widget]{Logger: testLogger()})
	if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
		t.Fatal(err)
	}
	m := map[string]wstate{}
	for k, w := range inf.Lister().All() {
		m[k] = widgetState(w)
	}
	return m
}

func checkRestart(t *testing.T, age restartAge, restored, want map[string]wstate, inf *informer.Informer[*Widget], rec *Recorder[*Widget], log *changeLog, lists int) {
	t.Helper()
	wantRV := map[string]int64{}
	for k, s := range want {
		wantRV[k] = s.rv
	}
	cache := map[string]int64{}
	for k, o := range inf.Lister().All() {
		cache[k] = rvOf(o)
	}
	res := &Result{Scenario: "restart, " + ageNames[age]}
	for _, d := range []Diff{Compare(wantRV, cache), Compare(wantRV, rec.View())} {
		res.Lost += d.Lost
		res.Invented += d.Invented
		res.Stale += d.Stale
		res.Examples = append(res.Examples, d.Examples...)
	}
	rec.mu.Lock()
	res.Reordered, res.Spurious = rec.reordered, rec.spurious
	if age == ageLostHistory {
		// The source's versions went back: by version, some relisted
		// states are "older" than the restored ones, and some are other
		// states at the same version (an update the Recorder takes for
		// spurious). Each key's single call, for a real change only, is
		// checked below instead.
		res.Reordered, res.Spurious = 0, 0
	} else {
		res.Examples = append(res.Examples, rec.bad...)
	}
	rec.mu.Unlock()
	report(t, res)
	checkChanges(t, age, restored, want, log)
	switch {
	case age == ageInHistory && lists != 0:
		t.Errorf("%d lists after a restart inside the history, want 0", lists)
	case age != ageInHistory && lists < 1:
		t.Errorf("no list after a restart from a snapshot the source no longer serves")
	}
	t.Logf("%s: %d restored, %d list pages", ageNames[age], len(restored), lists)
}

// checkChanges checks that handlers were told exactly the changes since
// the snapshot: the restored objects as initial adds, then a call for
// every key that changed (one, after a relist) and none for the others.
func checkChanges(t *testing.T, age restartAge, restored, want map[string]wstate, log *changeLog) {
	t.Helper()
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.initial) != len(restored) {
		t.Errorf("%d initial adds, want the %d restored objects", len(log.initial), len(restored))
	}
	changed := 0
	for k, was := range restored {
		if now, ok := want[k]; !ok || now != was {
			changed++
		}
	}
	for k := range want {
		if _, ok := restored[k]; !ok {
			changed++
		}
	}
	told := 0
	for k, calls := range log.changes {
		was, had := restored[k]
		now, has := want[k]
		if had && has && was == now {
			t.Errorf("%s did not change since the snapshot, but handlers were told %v", k, calls)
		}
		told++
		if age != ageInHistory && len(calls) != 1 {
			t.Errorf("%s: told %v after a relist, want one call", k, calls)
		}
	}
	// A relist tells the net change of each key; a watch also tells keys
	// created and deleted again while the program was down.
	if told != changed && (age != ageInHistory || told < changed) {
		t.Errorf("handlers told of %d keys' changes, %d changed since the snapshot", told, changed)
	}
	t.Logf("%d keys changed since the snapshot, handlers told of %d", changed, told)
}

package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// memoryFaults injects source/memory's faults at random while on.
type memoryFaults struct {
	mem *memory.Source[*Widget]
	rng *rand.Rand

	mu     sync.Mutex
	on     bool
	counts map[string]int
}

var errCut = errors.New("chaos: connection reset by peer")

func (f *memoryFaults) set(on bool) {
	f.mu.Lock()
	f.on = on
	f.mu.Unlock()
	if !on {
		f.mem.ResumeWatches()
		f.mem.FailLists(0, nil)
		f.mem.FailWatches(0, nil)
	}
}

func (f *memoryFaults) total() (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	var b strings.Builder
	for _, k := range []string{"drop", "compact", "fail-lists", "fail-watches", "expire-continue", "stall", "bookmark"} {
		if f.counts[k] > 0 {
			n += f.counts[k]
			fmt.Fprintf(&b, "%s=%d ", k, f.counts[k])
		}
	}
	return n, strings.TrimSpace(b.String())
}

// run injects a fault about every 70ms until ctx ends.
func (f *memoryFaults) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(40*time.Millisecond + time.Duration(f.rng.IntN(60))*time.Millisecond):
		}
		f.mu.Lock()
		if !f.on {
			f.mu.Unlock()
			continue
		}
		kind := []string{"drop", "drop", "compact", "fail-lists", "fail-watches", "expire-continue", "stall", "bookmark"}[f.rng.IntN(8)]
		f.counts[kind]++
		f.mu.Unlock()
		switch kind {
		case "drop":
			f.mem.DropWatches(errCut)
		case "compact":
			f.mem.Compact()
		case "fail-lists":
			f.mem.FailLists(1+f.rng.IntN(3), errCut)
		case "fail-watches":
			f.mem.FailWatches(1+f.rng.IntN(3), errCut)
			f.mem.DropWatches(errCut)
		case "expire-continue":
			f.mem.ExpireContinueTokens()
		case "stall":
			f.mem.StallWatches()
			time.AfterFunc(time.Duration(f.rng.IntN(100))*time.Millisecond, f.mem.ResumeWatches)
		case "bookmark":
			f.mem.Bookmark()
		}
	}
}

// TestChaosMemory runs the informer over source/memory with its faults,
// handlers added and removed mid-run, a slow handler and one that panics
// now and then, with lists and with streaming lists.
func TestChaosMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos: not in -short")
	}
	for _, watchList := range []bool{false, true} {
		for _, seed := range seeds(t) {
			name := "memory, paged lists"
			if watchList {
				name = "memory, streaming lists"
			}
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				runMemory(t, name, seed, watchList, churn(t), -1)
			})
		}
	}
}

// TestChaosMemorySharded runs the memory scenario through a shard.Filter
// of one third of the key hashes (which third follows the seed): the
// member's cache and handlers hold exactly the objects of its shard,
// under the same faults.
func TestChaosMemorySharded(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos: not in -short")
	}
	for _, seed := range seeds(t) {
		name := "memory, sharded 1/3, streaming lists"
		t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
			runMemory(t, name, seed, true, churn(t), int(seed%3))
		})
	}
}

// runMemory runs the memory scenario; part ≥ 0 makes it a member owning
// the part-th third of the key hashes.
func runMemory(t *testing.T, name string, seed uint64, watchList bool, d time.Duration, part int) {
	mem := memory.New[*Widget](memory.Options{WatchList: watchList})
	var src informer.Source[*Widget] = mem
	var filter *shard.Filter[*Widget]
	inShard := func(string) bool { return true }
	if part >= 0 {
		set := shard.NewSet(shard.Split(3, part))
		filter = shard.NewFilter[*Widget](mem, set, shard.FilterOptions[*Widget]{})
		src = filter
		inShard = func(key string) bool { return set.Contains(shard.Hash(key)) }
	}
	write := func(typ, ns, n string, value int64, pad string) int64 {
		var err error
		switch typ {
		case "DELETED":
			err = mem.Delete(ns + "/" + n)
		default:
			w := &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n}, Spec: WidgetSpec{Value: value, Pad: pad}}
			if typ == "ADDED" {
				err = mem.Create(w)
			} else {
				err = mem.Update(w)
			}
		}
		if err != nil {
			return 0
		}
		rv, _ := strconv.ParseInt(mem.ResourceVersion(), 10, 64)
		return rv
	}
	live := func() []string {
		var keys []string
		for _, w := range mem.Items() {
			keys = append(keys, w.Namespace+"/"+w.Name)
		}
		return keys
	}
	for i := range 300 {
		write("ADDED", fmt.Sprint("ns-", i%4), fmt.Sprint("seed-", i), 0, "")
	}
	faults := &memoryFaults{mem: mem, rng: rand.New(rand.NewPCG(seed, 7)), counts: map[string]int{}}
	mode := informer.WatchListOff
	if watchList {
		mode = informer.WatchListOn
	}
	run := &Run[*Widget]{
		Name: name, Seed: seed, Source: src,
		Options: informer.Options[*Widget]{
			Logger:    testLogger(),
			Reflector: informer.ReflectorOptions{WatchList: mode, PageSize: 25, MinWatchTimeout: time.Second},
		},
		Mutator:     &Mutator{Objects: 400, Every: time.Millisecond, Write: write, Live: live},
		Faults:      faults.set,
		FaultCounts: faults.total,
		State: func() map[string]int64 {
			st := map[string]int64{}
			for _, w := range mem.Items() {
				if k := w.Namespace + "/" + w.Name; inShard(k) {
					st[k] = rvOf(w)
				}
			}
			return st
		},
		For:              d,
		Slow:             200 * time.Microsecond,
		PanicEvery:       97,
		Churn:            true,
		FaultsDuringSync: true,
	}
	fctx, fstop := context.WithCancel(t.Context())
	go faults.run(fctx)
	res, err := run.Go(t.Context())
	fstop()
	if err != nil {
		t.Fatal(err)
	}
	if left := Leftover(5 * time.Second); len(left) > 0 {
		res.Goroutines = len(left)
		res.Examples = append(res.Examples, "left: "+firstLine(left[0]))
	}
	report(t, res)
	if res.Faults == 0 {
		t.Error("no fault injected")
	}
	if filter != nil {
		seen, dropped := filter.Counts()
		t.Logf("shard filter: %d objects read, %d outside the shard dropped", seen, dropped)
		if dropped == 0 || dropped == seen {
			t.Errorf("shard filter: %d read, %d dropped: it filtered nothing, or everything", seen, dropped)
		}
	}
}

package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// seeds returns the seeds to run: CHAOS_SEEDS (comma-separated) or 1.
func seeds(t *testing.T) []uint64 {
	s := os.Getenv("CHAOS_SEEDS")
	if s == "" {
		return []uint64{1}
	}
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			t.Fatalf("CHAOS_SEEDS: %v", err)
		}
		out = append(out, n)
	}
	return out
}

// churn is how long each scenario's mutator runs: CHAOS_DURATION, or 3s.
func churn(t *testing.T) time.Duration {
	if s := os.Getenv("CHAOS_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("CHAOS_DURATION: %v", err)
		}
		return d
	}
	return 3 * time.Second
}

// scenarios are the fault mixes run over the fake API server.
var scenarios = []struct {
	name   string
	faults Faults
}{
	{"reset every ~200 events", Faults{ResetEvery: 200, Bookmarks: 200 * time.Millisecond}},
	{"clean drops", Faults{DropEvery: 100, Bookmarks: 200 * time.Millisecond}},
	{"500 bursts", Faults{BurstEvery: 700 * time.Millisecond, BurstFor: 150 * time.Millisecond}},
	{"429 bursts with Retry-After", Faults{BurstEvery: 1500 * time.Millisecond, BurstFor: 150 * time.Millisecond, Burst429: true}},
	// Bursts while the informer lists in pages: a cut watch cannot resume
	// (the history keeps 5 versions, compacted every ~100ms), so every
	// burst is followed by a paged relist, which the next burst may hit.
	{"500 bursts during paged lists", Faults{BurstEvery: 700 * time.Millisecond, BurstFor: 150 * time.Millisecond, CompactEvery: 100 * time.Millisecond, KeepHistory: 5}},
	{"429 bursts during paged lists", Faults{BurstEvery: 1500 * time.Millisecond, BurstFor: 150 * time.Millisecond, Burst429: true, CompactEvery: 100 * time.Millisecond, KeepHistory: 5}},
	{"compaction and paging", Faults{CompactEvery: 300 * time.Millisecond, KeepHistory: 20, CompactBeforeContinueRate: 0.3, ResetEvery: 300}},
	{"hostile payloads", Faults{GarbageRate: 0.01, HTMLRate: 0.05, TruncateRate: 0.2, ResetEvery: 400}},
	{"stalls", Faults{StallRate: 0.002, StallFor: 300 * time.Millisecond, Bookmarks: 100 * time.Millisecond}},
	{"streaming lists cut, compaction while down", Faults{WatchList: true, InitialDropRate: 0.5, ResetEvery: 300, CompactOnCut: true}},
	{"paged lists cut, compaction while down", Faults{DropEvery: 300, ResetEvery: 300, CompactOnCut: true, TruncateRate: 0.05, CompactBeforeContinueRate: 0.2}},
	{"everything", Faults{WatchList: true, InitialDropRate: 0.2, DropEvery: 300, ResetEvery: 300, GarbageRate: 0.005,
		HTMLRate: 0.02, TruncateRate: 0.1, StallRate: 0.001, StallFor: 200 * time.Millisecond,
		BurstEvery: 2 * time.Second, BurstFor: 100 * time.Millisecond, CompactEvery: 400 * time.Millisecond,
		KeepHistory: 30, CompactBeforeContinueRate: 0.2, Bookmarks: 150 * time.Millisecond, CompactOnCut: true}},
}

// TestChaos runs every scenario over source/kube against the fault
// injecting server, for each seed, and checks the oracle's findings. The
// report's rows are logged (go test -v) and appended to CHAOS_REPORT.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos: not in -short")
	}
	var lasts []time.Duration
	for _, sc := range scenarios {
		faults, ran := 0, false
		for _, seed := range seeds(t) {
			t.Run(fmt.Sprintf("%s/seed=%d", sc.name, seed), func(t *testing.T) {
				ran = true
				res := runKube(t, sc.name, seed, sc.faults, churn(t))
				lasts = append(lasts, res.Last)
				faults += res.Faults
			})
		}
		if ran && faults == 0 {
			t.Errorf("%s: no fault injected over all seeds: the scenario tested nothing", sc.name)
		}
	}
	if len(lasts) > 0 {
		slices.Sort(lasts)
		t.Logf("median over scenarios and seeds of the time from the last change to the cache applying it: %v", lasts[len(lasts)/2])
	}
}

// runKube runs one scenario over source/kube and fails t if the oracle
// finds anything.
func runKube(t *testing.T, name string, seed uint64, f Faults, d time.Duration) *Result {
	srv := NewServer(seed, f)
	defer srv.Close()
	seeded := 300
	if strings.Contains(name, "paged lists") {
		seeded = chaosSeedObjects(3000)
	}
	for i := range seeded {
		srv.Write("ADDED", fmt.Sprint("ns-", i%4), fmt.Sprint("seed-", i), 0, strings.Repeat("p", 256))
	}
	src, err := kubesrc.New[*Widget](&kube.Config{Host: srv.URL()},
		kube.Resource{Group: Group, Version: Version, Resource: Resource, Kind: Kind},
		kubesrc.Options{PageSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	run := &Run[*Widget]{
		Name: name, Seed: seed, Source: src,
		Options: informer.Options[*Widget]{
			Logger:    testLogger(),
			Reflector: informer.ReflectorOptions{MinWatchTimeout: 2 * time.Second},
		},
		Mutator: &Mutator{Objects: 400, Every: time.Millisecond, Pad: 256, Write: srv.Write, Live: srv.Keys},
		Faults:  srv.SetFaults,
		FaultCounts: func() (int, string) {
			c := srv.Counts()
			return c.Total(), c.String()
		},
		State:      srv.State,
		For:        d,
		Slow:       20 * time.Microsecond,
		PanicEvery: 997,
		Churn:      true,
		// The first sync meets the faults too.
		FaultsDuringSync: true,
	}
	ctx := t.Context()
	fctx, fstop := contextWithCancel(ctx)
	go srv.Run(fctx)
	res, err := run.Go(ctx)
	fstop()
	if err != nil {
		t.Fatal(err)
	}
	src.Close()
	srv.Close()
	if left := Leftover(5 * time.Second); len(left) > 0 {
		res.Goroutines = len(left)
		res.Examples = append(res.Examples, "left: "+firstLine(left[0]))
	}
	report(t, res)
	return res
}

// chaosSeedObjects is CHAOS_OBJECTS, or def.
func chaosSeedObjects(def int) int {
	if n, err := strconv.Atoi(os.Getenv("CHAOS_OBJECTS")); err == nil {
		return n
	}
	return def
}

func firstLine(stack string) string {
	lines := strings.Split(stack, "\n")
	if len(lines) > 2 {
		return lines[0] + " " + strings.TrimSpace(lines[1])
	}
	return lines[0]
}

// report logs res's row, appends it to CHAOS_REPORT and fails t if the
// oracle found anything.
func report(t *testing.T, res *Result) {
	t.Helper()
	t.Log("\n" + Header + res.Row())
	if err := Append(res); err != nil {
		t.Error(err)
	}
	if res.Failed() {
		t.Errorf("oracle: %s\n%s", res.Row(), strings.Join(res.Examples, "\n"))
	} else if len(res.Examples) > 0 {
		t.Errorf("harness: %s", strings.Join(res.Examples, "\n"))
	}
}

func contextWithCancel(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

// testLogger discards, unless CHAOS_LOG is set: then it logs at Debug
// to stderr.
func testLogger() *slog.Logger {
	if os.Getenv("CHAOS_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestChaosSoak runs the "everything" scenario for CHAOS_SOAK (e.g. 30m;
// off unless set), sampling the heap and the goroutines every 10s: the
// oracle must find nothing, and neither may grow without bound (the live
// heap of the last quarter within 1.5× that of the second, the goroutine
// count within 20 of its median).
func TestChaosSoak(t *testing.T) {
	s := os.Getenv("CHAOS_SOAK")
	if s == "" {
		t.Skip("set CHAOS_SOAK=30m to soak")
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("CHAOS_SOAK: %v", err)
	}
	f := scenarios[len(scenarios)-1].faults
	type sample struct {
		heap       uint64
		goroutines int
	}
	var (
		mu      sync.Mutex
		samples []sample
	)
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Second):
			}
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			mu.Lock()
			samples = append(samples, sample{m.HeapAlloc, runtime.NumGoroutine()})
			t.Logf("soak: %s heap %.1f MiB, %d goroutines", time.Duration(len(samples))*10*time.Second, float64(m.HeapAlloc)/(1<<20), runtime.NumGoroutine())
			mu.Unlock()
		}
	}()
	runKube(t, "soak: everything", seeds(t)[0], f, d)
	stop()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	n := len(samples)
	if n < 8 {
		return
	}
	avg := func(ss []sample) float64 {
		var sum float64
		for _, s := range ss {
			sum += float64(s.heap)
		}
		return sum / float64(len(ss))
	}
	if second, last := avg(samples[n/4:n/2]), avg(samples[3*n/4:]); last > 1.5*second {
		t.Errorf("live heap grew from %.1f MiB to %.1f MiB over the soak", second/(1<<20), last/(1<<20))
	}
	gs := make([]int, n)
	for i, s := range samples {
		gs[i] = s.goroutines
	}
	slices.Sort(gs)
	for _, s := range samples {
		if s.goroutines > gs[n/2]+20 {
			t.Errorf("%d goroutines in a sample, median %d", s.goroutines, gs[n/2])
			break
		}
	}
}

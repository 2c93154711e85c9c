package interop

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// figures are what one scenario measured.
type figures struct {
	stack, scenario   string
	failed            bool
	total             time.Duration
	mutations         int
	drops, restarts   int
	lastWrite         time.Duration   // from the churn's last write to WaitForResourceVersion's return
	writes            []time.Duration // the same for each single write after it
	calls             int             // handler calls
	errors, badEvents int
	warnings          int // log records at WARN and above
	firstErrors       []string
}

func (f figures) line() string {
	status := "ok"
	if f.failed {
		status = "FAIL"
	}
	var med, worst time.Duration
	if len(f.writes) > 0 {
		w := slices.Clone(f.writes)
		slices.Sort(w)
		med, worst = w[len(w)/2], w[len(w)-1]
	}
	return fmt.Sprintf("%-8s %-22s %-4s %6.2fs  %4d writes %d drops %d restarts  last write→WaitForResourceVersion %7s  single writes (n=%d) median %7s max %7s  %4d handler calls  %3d errors (%d bad events)  %3d WARN records",
		f.stack, f.scenario, status, f.total.Seconds(), f.mutations, f.drops, f.restarts,
		round(f.lastWrite), len(f.writes), round(med), round(worst), f.calls, f.errors, f.badEvents, f.warnings)
}

func round(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }

func (f figures) log(t *testing.T) {
	t.Log(f.line())
	for _, e := range f.firstErrors {
		t.Logf("  reported: %s", e)
	}
}

// report collects every scenario's figures; TestMain writes them to
// $INTEROP_REPORT.
var report collector

type collector struct {
	mu    sync.Mutex
	lines []string
}

func (c *collector) add(f figures) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, f.line())
}

func TestMain(m *testing.M) {
	began := time.Now()
	code := m.Run()
	if path := os.Getenv("INTEROP_REPORT"); path != "" && len(report.lines) > 0 {
		text := fmt.Sprintf("interop suite, %s, %.1fs in all:\n%s\n", time.Now().UTC().Format(time.RFC3339), time.Since(began).Seconds(), strings.Join(report.lines, "\n"))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "INTEROP_REPORT:", err)
			code = 1
		}
	}
	os.Exit(code)
}

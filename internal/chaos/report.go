package chaos

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Result is what one scenario run found. Every count but Faults and
// Mutations must be zero.
type Result struct {
	Scenario  string
	Seed      uint64
	Faults    int
	FaultKind string
	Mutations int
	// The cache against the server, then every handler's view against the
	// server (summed).
	Lost, Invented, Stale int
	// Over all handlers: states older than one already told, and updates
	// that changed nothing.
	Reordered, Spurious int
	Unsynced            int // registrations not synced at the end
	Goroutines          int // goroutines left after the informer stopped
	// How long after a write the cache had applied it: median, 99th
	// percentile, maximum, and for the last write.
	P50, P99, Max, Last time.Duration
	Examples            []string
}

// Failed reports whether the oracle found anything wrong.
func (r *Result) Failed() bool {
	return r.Lost+r.Invented+r.Stale+r.Reordered+r.Spurious+r.Unsynced+r.Goroutines > 0
}

// Header is the report table's header.
const Header = "| scenario | seed | faults | mutations | lost | invented | stale | reordered | spurious | unsynced | goroutines | lag p50 | lag p99 | lag max | last change applied after |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"

// Row is r as a row of the report table.
func (r *Result) Row() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("| %s | %d | %d (%s) | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n",
		r.Scenario, r.Seed, r.Faults, r.FaultKind, r.Mutations, r.Lost, r.Invented, r.Stale, r.Reordered,
		r.Spurious, r.Unsynced, r.Goroutines, ms(r.P50), ms(r.P99), ms(r.Max), ms(r.Last))
}

var reportMu sync.Mutex

// Append adds r's row to the file named by CHAOS_REPORT, if set, writing
// the header first when the file is new.
func Append(r *Result) error {
	path := os.Getenv("CHAOS_REPORT")
	if path == "" {
		return nil
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	_, err := os.Stat(path)
	f, ferr := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if ferr != nil {
		return ferr
	}
	defer f.Close()
	var b strings.Builder
	if err != nil {
		b.WriteString(Header)
	}
	b.WriteString(r.Row())
	_, err = f.WriteString(b.String())
	return err
}

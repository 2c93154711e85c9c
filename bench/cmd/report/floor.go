package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The floor: bench/floor/measure.sh runs the in-memory workloads on the
// floor (bench/floor), this library and client-go, and writes
// bench/floor/RESULTS.md with floorReport; run.sh copies it into the
// results as floor.md, and the report renders it as a section.

// floorMetrics are the units of the floor table, in order.
var floorMetrics = []string{
	"ns/obj", "cpu-ns/obj", "allocs/obj",
	"ns/event", "cpu-ns/event", "allocs/event",
	"ms",
	"ns/addpop", "allocs/addpop",
}

// floorPays says, per workload, what ours does that the floor does not:
// what the difference from the floor pays for.
var floorPays = map[string]string{
	"InitialSync": "per object, of ~1,010 instructions (callgrind, bench/cmd/hotpath, 1 handler; ~850 for a list in namespace order, as kube-apiserver sends it): on the reflector's goroutine (~360), the list queued in bulk pages, made ready without the queue's lock and read without waiting for the cache or the handlers (a page of 4,096 objects or more made by two goroutines, a half each, while the consumer waits for it; the objects' names read 64 at a time, so that their cache misses overlap; each key cut from a shared 4 KB block: one allocation per ~150 keys, and hashed there for the Indexer); on the consumer's (~510), take and done (~55), the Indexer's first-list loops (the page's entries, made on the reflector's side as the Indexer's own, taken as its slots; each key looked up for duplicates and inserted with one probe of the key table, in a loop of its own so that the table's cache misses overlap; ~180), the namespace index (its bucket told by the key's prefix for a sorted list, else found in a small cache by a cheap hash, not a map lookup; an append: ~270); the notification and the handler's goroutine and unbounded queue (a slow handler stalls nothing; notes handed over in runs, panic recovery per batch: ~70 and the wake-ups); sync tracking per handler. The floor allocates each key, does one map insert and a direct call",
	"SteadyState": "three goroutines, not one; of ~1,050 instructions per event (callgrind, 1 handler; ~40 of them the benchmark's source): the reflector (~600, the pipeline's slowest stage: the elapsed time is its time): reading the event and checking its version against the stream's (an event out of order ends the watch and relists instead of moving a key backwards; Health's activity stamp: ~150), publishing the version (WaitForResourceVersion, LastSyncResourceVersion: ~45), the key, hashed before the queue's lock (~110), the DeltaFIFO (one probe of the key table, which keeps the cached keys, and the key's own entry queued again: ~300; a backlog holds each key once with its deltas in order, no allocation per event, a relist can tell what vanished); the process loop (~250): done and take under one lock, 16 keys per hold, the lock tried rather than slept on (woken by the reflector's Unlock, a sleeping loop waits on the reflector's processor for tens of microseconds: ~150), the Indexer and the note together (~60: the old object for OnUpdate, position hint checked), the wake-ups; the listener (~80): runs of notes called in place, panic recovery per batch, the call. The floor calls handlers on the reading goroutine, so a slow handler would stall the reader and every other handler",
	"FanOut":      "the floor has a goroutine and queue per handler here too (the least that keeps the fast handlers going): the difference is the DeltaFIFO and process loop between reading and the handlers' queues, and the Indexer",
	"FIFO":        "ours keeps a key's deltas in place (the first without an allocation), keeps the keys the consumer stored in its key table (their strings shared: no allocation for a known key), counts the keys of the first list for HasSynced and keeps what a relist needs to infer deletions; the floor is a map of slices and a slice of keys",
}

// floorReport is bench/floor/RESULTS.md: measured, the line saying when and
// how, then the table.
func floorReport(floor, ours, cg samples, measured string) string {
	var b strings.Builder
	b.WriteString("# The floor: the in-memory workloads against the least a correct cache can do\n\n")
	b.WriteString("Written by `bench/floor/measure.sh` (bench/cmd/report -floor); raw outputs in RESULTS.md.d/.\n\n")
	b.WriteString(measured + "\n\n")
	b.WriteString(floorTable(floor, ours, cg))
	return b.String()
}

// floorTable has a row per workload and metric: the three sides' medians,
// ours ÷ the floor, ours ÷ client-go, and what the difference pays for
// (on the first row of each workload).
func floorTable(floor, ours, cg samples) string {
	var b strings.Builder
	b.WriteString("| benchmark | metric | floor | informer | client-go | informer ÷ floor | informer ÷ client-go | the difference from the floor pays for |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	said := map[string]bool{}
	for _, name := range order(floor) {
		for _, u := range floorMetrics {
			f, o, c := floor[name][u], ours[name][u], cg[name][u]
			if len(f) == 0 || len(o) == 0 {
				continue
			}
			wl, _, _ := strings.Cut(name, "/")
			pays := ""
			if !said[wl] {
				pays, said[wl] = floorPays[wl], true
			}
			cgv, vsCG := "—", "—"
			if len(c) > 0 {
				cgv, vsCG = num(median(c)), times(median(o), median(c))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, u, num(median(f)), num(median(o)), cgv,
				times(median(o), median(f)), vsCG, pays)
		}
	}
	return b.String()
}

// times is a ratio as "2.50×", or what stands for it when a side is 0.
func times(a, b float64) string {
	switch {
	case a == 0 && b == 0:
		return "= (both 0)"
	case b == 0 || b < 1e-3 && a > 1e3*b:
		return "— (÷ ≈0)" // a count of nearly none, as a floor's allocations
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// writeFloor writes the floor report from the raw outputs in dir.
func writeFloor(dir, measured string) {
	floor, err := parseFile(filepath.Join(dir, "floor.txt"))
	check(err)
	ours, err := parseFile(filepath.Join(dir, "informer.txt"))
	check(err)
	cg, err := parseFile(filepath.Join(dir, "client-go.txt"))
	check(err)
	fmt.Print(floorReport(floor, ours, cg, measured))
}

// floorHeading opens the floor's section of BENCHMARKS.md.
const floorHeading = "\n## The floor: ours against the least a correct cache can do\n\n"

// floorSection is the section of BENCHMARKS.md made from floor.md.
func floorSection(results string) string {
	return floorHeading +
		"`bench/floor` runs the in-memory workloads (InitialSync, SteadyState, FanOut, FIFO) with a plain `map[string]` by namespace/name under one mutex and a direct call of each handler by the goroutine that reads the events, after the map holds the new state (per-key order and cache-before-handler hold, as in an informer); in FanOut each handler gets a goroutine and an unbounded queue, the least that keeps a slow handler from holding back the others. " +
		"`bench/floor/measure.sh` runs the three sides interleaved (run by `bench/run.sh`, kept in `bench/floor/RESULTS.md` and copied here). " +
		"*cpu-ns*: the CPU time of the whole process (every goroutine and the GC) per object or event, the steadier figure on a shared machine. The last column says what each workload's difference buys.\n\n" +
		tableLines(results)
}

// hotpathHeading opens the section of the hot path's instruction counts.
const hotpathHeading = "\n## The hot path: instructions per event, commit against commit\n\n"

// hotpathSection is the section of BENCHMARKS.md made from hotpath.md
// (bench/cmd/hotpath/RESULTS.md): its text after its title, as measured.
func hotpathSection(results string) string {
	_, body, _ := strings.Cut(results, "\n\n")
	return hotpathHeading + strings.TrimSpace(body) + "\n"
}

// spliceSections replaces the floor's, the hot path's and the warm
// restarts' sections of the report at path (or adds them at the end) with
// the ones made from floor.md, hotpath.md and warmstart*.md in results,
// leaving every other section as it is: for a run of those alone.
func spliceSections(path, results string) {
	doc, err := os.ReadFile(path)
	check(err)
	s := string(doc)
	for _, sec := range []struct {
		file, heading string
		render        func(string) string
	}{{"floor.md", floorHeading, floorSection}, {"hotpath.md", hotpathHeading, hotpathSection}} {
		res, err := os.ReadFile(filepath.Join(results, sec.file))
		if err != nil {
			continue
		}
		s = splice(s, sec.heading, sec.render(string(res)))
	}
	if sec := warmSections(results); sec != "" {
		s = splice(s, warmHeading, sec)
	}
	check(os.WriteFile(path, []byte(s), 0o644))
}

// splice replaces the section of doc that starts with heading, up to the
// next section of the same level, with sec, or appends sec.
func splice(doc, heading, sec string) string {
	i := strings.Index(doc, heading)
	if i < 0 {
		return strings.TrimRight(doc, "\n") + "\n" + sec
	}
	end := len(doc)
	if j := strings.Index(doc[i+len(heading):], "\n## "); j >= 0 {
		end = i + len(heading) + j
	}
	return doc[:i] + sec + doc[end:]
}

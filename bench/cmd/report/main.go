// Command report writes BENCHMARKS.md from the results of bench/run.sh: the
// raw benchmark outputs of both implementations, benchstat's comparison, and
// a description of the machine. Every number in the file comes from those
// results; none is written by hand.
//
//	go run ./cmd/report -results results -out ../BENCHMARKS.md
//
// It also prints the summary of ratios to standard output.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func main() {
	results := flag.String("results", "results", "directory with client-go.txt, informer.txt, benchstat.txt and env.txt")
	out := flag.String("out", "", "file to write the report to (default: standard output only)")
	floorDir := flag.String("floor", "", "write bench/floor/RESULTS.md to standard output from the raw outputs in this directory (floor.txt, informer.txt, client-go.txt), and nothing else")
	measured := flag.String("measured", "", "with -floor: the line saying when and how the floor run was measured")
	splice := flag.Bool("splice", false, "replace only the floor's, the hot path's and the warm restarts' sections of -out with ones made from floor.md, hotpath.md and warmstart*.md in -results")
	flag.Parse()
	if *floorDir != "" {
		writeFloor(*floorDir, *measured)
		return
	}
	if *splice {
		spliceSections(*out, *results)
		return
	}

	cg, err := parseFile(filepath.Join(*results, "client-go.txt"))
	check(err)
	ours, err := parseFile(filepath.Join(*results, "informer.txt"))
	check(err)
	env, err := parseEnv(filepath.Join(*results, "env.txt"))
	check(err)
	stat, err := os.ReadFile(filepath.Join(*results, "benchstat.txt"))
	if err != nil {
		stat = []byte("(benchstat was not run: " + err.Error() + ")\n")
	}
	loads := readLoads(filepath.Join(*results, "load.txt"))
	floor, err := parseFile(filepath.Join(*results, "footprint-map.txt"))
	if err != nil {
		floor = samples{} // no Footprint run
	}

	rows := ratios(cg, ours)
	summary := summaryTable(rows)
	fmt.Print(summary)
	fp := footprintTable(cg, ours, floor)
	fmt.Print(fp)

	if *out == "" {
		return
	}
	var b strings.Builder
	writeReport(&b, env, loads, summary, fp, string(stat))
	b.WriteString(extraSections(*results, cg, ours))
	check(os.WriteFile(*out, []byte(b.String()), 0o644))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// samples holds, per benchmark name (without the -GOMAXPROCS suffix) and
// unit, every value measured.
type samples map[string]map[string][]float64

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parseFile reads Go benchmark output.
func parseFile(path string) (samples, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f)
}

func parse(r io.Reader) (samples, error) {
	s := samples{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue
		}
		name := procsSuffix.ReplaceAllString(strings.TrimPrefix(fields[0], "Benchmark"), "")
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad value %q", fields[0], fields[i])
			}
			if s[name] == nil {
				s[name] = map[string][]float64{}
			}
			s[name][fields[i+1]] = append(s[name][fields[i+1]], v)
		}
	}
	return s, sc.Err()
}

func median(vs []float64) float64 {
	v := slices.Clone(vs)
	sort.Float64s(v)
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// metrics are the units compared, in order; all are lower-is-better.
// Throughputs (objs/s, events/s) are the inverse of ns/obj and ns/event
// and left out; so is ns/op where a per-object time exists.
var metrics = []string{
	"ns/obj", "allocs/obj", "B/obj",
	"ns/event", "allocs/event", "B/event",
	"ms",
	"ns/object", "allocs/op", "B/op",
	"ns/addpop", "allocs/addpop", "B/addpop",
	"sync-ms", "allocs/pod", "B/pod", "B-held/pod", "peak-MiB", "peak/held",
	"ns/call",
}

type pair struct{ ours, cg, label string }

// extraPairs compare benchmarks that exist under different names.
var extraPairs = []pair{
	{"BlockedHandler/bounded", "BlockedHandler/unbounded", "BlockedHandler: ours bounded vs client-go unbounded"},
	{"FIFO/DeltaFIFO", "FIFO/RealFIFO", "FIFO: ours DeltaFIFO vs client-go RealFIFO"},
}

type row struct {
	label, unit string
	cg, ours    float64
	n1, n2      int
}

func ratios(cg, ours samples) []row {
	var pairs []pair
	for _, name := range order(cg, ours) {
		if cg[name] != nil && ours[name] != nil {
			pairs = append(pairs, pair{name, name, name})
		}
	}
	for _, p := range extraPairs {
		if cg[p.cg] != nil && ours[p.ours] != nil {
			pairs = append(pairs, p)
		}
	}
	var rows []row
	for _, p := range pairs {
		for _, u := range metrics {
			a, b := cg[p.cg][u], ours[p.ours][u]
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			rows = append(rows, row{label: p.label, unit: u, cg: median(a), ours: median(b), n1: len(a), n2: len(b)})
		}
	}
	return rows
}

// order lists benchmark names in a stable, readable order: by workload as
// the report describes them, then by name.
func order(ss ...samples) []string {
	rank := map[string]int{"InitialSync": 0, "SteadyState": 1, "FanOut": 2, "BlockedHandler": 3, "Indexer": 4, "FIFO": 5, "Workqueue": 6, "HTTPPods": 7, "HTTPSource": 8, "Footprint": 9}
	seen := map[string]bool{}
	var names []string
	for _, s := range ss {
		for n := range s {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	top := func(n string) int {
		t, _, _ := strings.Cut(n, "/")
		if r, ok := rank[t]; ok {
			return r
		}
		return len(rank)
	}
	sub := map[string]int{"Add": 0, "Update": 1, "Delete": 2, "Get": 3, "ByIndex": 4, "List": 5}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if top(a) != top(b) {
			return top(a) < top(b)
		}
		_, sa, _ := strings.Cut(a, "/")
		_, sb, _ := strings.Cut(b, "/")
		ra, oka := sub[sa]
		rb, okb := sub[sb]
		if oka && okb {
			return ra < rb
		}
		return natLess(a, b)
	})
	return names
}

// natLess compares strings with their digit runs as numbers, so that
// N=10000 sorts before N=100000 and H=1 before H=10.
func natLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			x, _ := strconv.Atoi(a[:da])
			y, _ := strconv.Atoi(b[:db])
			if x != y {
				return x < y
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func summaryTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| benchmark | metric | client-go | informer | informer ÷ client-go |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.label, r.unit, num(r.cg), num(r.ours), ratio(r.ours, r.cg))
	}
	return b.String()
}

func ratio(ours, cg float64) string {
	switch {
	case ours == 0 && cg == 0:
		return "= (both 0)"
	case cg == 0:
		return "— (client-go 0)"
	case ours == 0:
		return "0× (none)"
	}
	r := ours / cg
	s := fmt.Sprintf("%.2f×", r)
	switch {
	case r >= 0.95 && r <= 1.05:
		s += " (≈)"
	case r < 1:
		s += fmt.Sprintf(" (%.1f× less)", 1/r)
	default:
		s += " **(more)**"
	}
	return s
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 1e6:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// footprintTable compares the live heap per pod held by each informer in
// Footprint with the floor, a plain map of the decoded pods (samples from
// footprint-map.txt). Empty when Footprint did not run.
func footprintTable(cg, ours, floor samples) string {
	var names []string
	for n := range floor {
		if strings.HasPrefix(n, "Footprint") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("| benchmark | holder | B-held/pod | held MiB | ÷ the map (floor) | samples |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, n := range names {
		f := median(floor[n]["B-held/pod"])
		for _, h := range []struct {
			name string
			s    samples
		}{{"map[string]*corev1.Pod (floor)", floor}, {"client-go informer", cg}, {"informer (ours)", ours}} {
			v := h.s[n]["B-held/pod"]
			if len(v) == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f× | %d |\n", n, h.name, num(median(v)), num(median(h.s[n]["held-MiB"])), median(v)/f, len(v))
		}
	}
	return b.String()
}

// env is the machine description written by run.sh, "key: value" a line,
// in order.
type env struct {
	keys []string
	m    map[string]string
}

func parseEnv(path string) (env, error) {
	e := env{m: map[string]string{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return e, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, dup := e.m[k]; !dup {
			e.keys = append(e.keys, k)
		}
		e.m[k] = v
	}
	return e, nil
}

// readLoads reads the 1-minute load averages sampled during the run, one
// /proc/loadavg line each.
func readLoads(path string) []float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var ls []float64
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			ls = append(ls, v)
		}
	}
	return ls
}

func writeReport(b *strings.Builder, e env, loads []float64, summary, footprint, stat string) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("# Benchmarks: informer vs client-go tools/cache\n\n")
	p("<!-- Generated by bench/run.sh (bench/cmd/report) from bench/results/; do not edit by hand. -->\n\n")
	p("Side-by-side benchmarks of this library and client-go's `tools/cache` on identical in-memory workloads, ")
	p("from the separate module in [`bench/`](bench/): the same benchmark names in `bench/informer` and `bench/clientgo`, ")
	p("workloads built by `bench/workload`. Run `bench/run.sh` to measure again and regenerate this file; ")
	p("`bench/run.sh -quick` only checks that every benchmark still runs.\n\n")

	p("## Machine and versions\n\n| | |\n| --- | --- |\n")
	for _, k := range e.keys {
		p("| %s | %s |\n", k, e.m[k])
	}
	var mean, max float64
	for _, l := range loads {
		mean += l / float64(len(loads))
		max = math.Max(max, l)
	}
	if len(loads) > 0 {
		p("| load average during the run (1 min, %d samples) | mean %.2f, max %.2f |\n", len(loads), mean, max)
	}
	p("\n")
	start, err := strconv.ParseFloat(firstField(e.m["load average at start (1, 5, 15 min)"]), 64)
	if err != nil {
		start = math.NaN()
	}
	// The benchmarks alone keep the 1-minute load average near 1-2.
	switch {
	case start > 2.5 || mean > 3.5:
		p("**The machine was shared and busy during this run**: its 1-minute load average was %.2f before the benchmarks started ", start)
		p("and %.2f on average (at most %.2f) while they ran, on %s cores, where the benchmarks alone account for about 1 to 2. ", mean, max, e.m["cores"])
		p("Other work competed for the CPU: absolute times are inflated and noisy (see the wide ± of the time figures in the benchstat tables), ")
		p("while allocation and heap figures are hardly affected. ")
		p("Both implementations ran interleaved, round by round, so both saw the same conditions; the medians and ratios are more trustworthy than any single figure.\n\n")
	case start > 0.5 || mean > 2.5:
		p("**The machine was shared**: its 1-minute load average was %.2f before the benchmarks started and %.2f on average while they ran, ", start, mean)
		p("so other work may have competed for the CPU. Both implementations ran interleaved, round by round, so both saw the same conditions.\n\n")
	default:
		p("The benchmarks themselves keep one to two cores busy, which the load average during the run includes.\n\n")
	}
	p("## Workloads\n\n")
	p("Objects are `*corev1.ConfigMap` with three labels and one data key, spread over 100 namespaces; both caches have a namespace index ")
	p("(client-go: `cache.NamespaceIndex` with `MetaNamespaceIndexFunc`; ours: `IndexerOptions.NamespaceIndex`). ")
	p("Handlers are atomic counters. Everything a workload needs is built before its timed section starts. ")
	p("Allocation figures of the end-to-end workloads count every goroutine (`runtime.MemStats` deltas around the timed section).\n\n")
	p("| benchmark | what one op is | reported |\n| --- | --- | --- |\n")
	p("| `InitialSync/N=…/H=…` | a fresh informer with H handlers lists N prebuilt objects (client-go: `NewSharedIndexInformer` over a `ListWatch` whose list returns a prebuilt `*corev1.ConfigMapList` and whose watch blocks; ours: `informer.New` over a `Source` whose `List` returns the prebuilt slice and whose watch blocks); timed from `Run` until every handler has seen every object | per object: ns/obj, allocs/obj, B/obj, objs/s |\n")
	p("| `SteadyState/H=…` | 10,000 objects cached and seen by H handlers, then 100,000 prebuilt MODIFIED events (increasing resourceVersions, round-robin over the keys) on the open watch; timed from the first event until every handler has seen all | per event: ns/event, allocs/event, B/event, events/s |\n")
	p("| `FanOut` | as SteadyState with 20,000 events, 9 counting handlers and 1 handler that sleeps 1 ms per event; timed until the 9 fast handlers have seen every event (a slow handler must not hold back the others) | ms |\n")
	p("| `BlockedHandler/unbounded` | 1,000 objects cached, one handler blocked in its first call and never returning, then 1,000,000 MODIFIED events over the 1,000 keys; live heap (after two `runtime.GC`) after the events, when a second, counting handler has seen them all, minus before, per event; sec/op is the time to take in the events | B/event held by the queue; ours also `pending` notifications |\n")
	p("| `BlockedHandler/bounded` | ours only: the same with `HandlerOptions{CoalesceAbove: 1000}` | B/event, pending |\n")
	p("| `Indexer/Add`, `Update`, `Delete`, `Get` | one operation on an Indexer of 100,000 objects (Add: new keys; Update: a new state with the same namespace; Delete: stored keys, refilled untimed) | ns/object, allocs/op, B/op |\n")
	p("| `Indexer/ByIndex` | the 1,000 objects of one namespace (client-go: `ByIndex`, then type-asserting each; ours: iterating `ByIndexSeq`) | ns/object (per object listed) |\n")
	p("| `Indexer/List` | a list of all 100,000 objects | ns/object |\n")
	p("| `FIFO/DeltaFIFO` | 10,000 distinct keys added, then popped one at a time (client-go: `DeltaFIFO` with `KnownObjects`; ours: `DeltaFIFO` with `KnownObjects`) | per add+pop: ns/addpop, allocs/addpop, B/addpop |\n")
	p("| `FIFO/RealFIFO` | client-go only: the same on `RealFIFO` as v0.37 informers configure it by default (`AtomicEvents`, `UnlockWhileProcessing`) | as above |\n")
	p("| `Workqueue/AddGetDone/workers=1` | one key added, taken and marked done on one goroutine (keys cycle over 1,024); client-go: `NewTypedRateLimitingQueue` with `DefaultTypedControllerRateLimiter`, ours: `workqueue.New` (the same default limiter) | ns/op, allocs/op, B/op |\n")
	p("| `Workqueue/AddGetDone/workers=8` | one `Add` from the benchmark goroutine while 8 workers `Get` and `Done`; the timed section ends when `ShutDownWithDrain` has drained the queue | ns/op per Add, allocs/op, B/op |\n")
	p("| `Workqueue/AddAfter/pending=100000` | one `AddAfter` (half new keys, half an earlier due time for a waiting key) with 100,000 keys already waiting an hour or more | ns/op, allocs/op, B/op |\n")
	p("| `Workqueue/InformerToWorker/SteadyState` | the SteadyState workload (10,000 objects, 100,000 MODIFIED events) through an informer whose handler enqueues each object's key (ours: `workqueue.Enqueue`) to 2 workers that read the object from the cache and call `Done`; timed from the first event until every event was enqueued and the queue drained (duplicates coalesce, as in a controller) | per event: ns/event, allocs/event, B/event, events/s |\n")
	p("| `HTTPSource/sse`, `HTTPSource/ndjson` | ours only (client-go has no such source): `source/httpsrc` over `internal/inventory` on loopback, 1,000 items synced; one op is 10,000 updates written to the service and streamed until `WaitForResourceVersion` sees the last applied; the service's encoding is in the time | events/s, ns/event, allocs/op, B/op |\n")
	p("| `HTTPPods/json`, `HTTPPods/json-watchlist`, `HTTPPods/protobuf` | over HTTP, each side with its own Kubernetes client: a loopback `httptest` server (`workload.PodServer`) serves realistic pods (`workload.PodJSON`, 5.2 KiB of JSON, 2.6 KiB in protobuf: two containers with probes, env, resources and mounts; configMap, emptyDir and projected volumes; status with four conditions and two container statuses; managed fields) as a list in the pages each client asks for (`limit`/`continue`, resourceVersion; client-go: 500, ours: growing from 500 to 2,000, `kube.Options.PageSize` at its default) and a watch. ")
	p("Per op, a fresh server and informer with one update handler: timed, the sync of 20,000 pods (from `Run`/`Start` until the cache holds the list), then 50,000 MODIFIED events (increasing resourceVersions, round-robin over the pods) on the open watch until the handler has seen them all. ")
	p("Modes: `json`, JSON list then JSON watch, the server refusing streaming lists; `json-watchlist`, the server serving streaming lists (a watch with `sendInitialEvents=true`: an ADDED event per pod, then the bookmark marking the end of the initial events), which both sides use; `protobuf`, as `json` in `application/vnd.kubernetes.protobuf` (the list in its `runtime.Unknown` envelope, the watch in length-prefixed frames). ")
	p("client-go: `kubernetes.NewForConfig` + `informers.NewSharedInformerFactory(...).Core().V1().Pods()`; ours: `informer.New` over `kube.New[*corev1.Pod]` | ")
	p("sync: sync-ms, pods/s, allocs/pod and B/pod (every goroutine, the server's included, which are the same for both), B-held/pod (live heap after two GCs after the sync, minus before, per pod), peak-MiB (the largest `HeapAlloc`, sampled every ms during the sync, minus the live heap before) and peak/held (that peak ÷ the heap held after the sync); ")
	p("watch: ns/event, events/s, allocs/event, B/event; watchlists-refused and watchlists-served (streaming lists tried and refused, or served, per op), protobuf-requests (requests answered in protobuf, per op) |\n")
	p("| `Client/{Create,Update,Apply,Get}/callers=…` | one call of a typed client for `*corev1.ConfigMap` in JSON, by 1, 8 or 64 goroutines at once (b.N calls shared among them), against a loopback server (`workload.ClientServer`) that reads the body and answers every call with the same 1 KiB ConfigMap (managed fields included) and a new resourceVersion; no client-side rate limit on either side. client-go: the clientset's `CoreV1().ConfigMaps(ns)` (`Apply` with an apply configuration); ours: `kube.NewClient[*corev1.ConfigMap]` (`Apply` with the object). Allocations count every goroutine, the server's too (the same for both) | ns/call (wall time ÷ calls), allocs/op, B/op |\n")
	p("| `Footprint/N=100000` | `bench/cmd/footprint`, one process per measurement: 100,000 of the same pods held by (a) a plain `map[string]*corev1.Pod` by namespace/name, decoded from the same JSON with `encoding/json` (the floor), (b) our informer and (c) client-go's informer, both synced from the loopback server as in HTTPPods; live heap after two GCs while holding them, minus before | B-held/pod, held-MiB, its ratio to the floor (table below); sec/op is the time to decode or sync |\n\n")

	p("How the two sides are made equal, and where they cannot be:\n\n")
	p("- client-go runs with its default feature gates of v0.37: its informer uses `RealFIFO` with atomic events, unlocks while processing, and processes in batches. ")
	p("Its `WatchListClient` gate (streaming lists) is on by default; the benchmark `ListWatch` declares that it does not support WatchList semantics (`IsWatchListSemanticsUnSupported`), so the reflector lists, as ours does.\n")
	p("- A client-go watch is a `watch.Interface`: events arrive on an unbuffered channel from a goroutine of the watch, as from client-go's stream watcher. ")
	p("Ours is pulled with `Watcher.Next`, no goroutine or channel per event. That difference is part of each design and is measured.\n")
	p("- client-go's reflector makes a shallow copy of every item of the list (`meta.ExtractListWithAlloc`, so that its cache does not pin the list); that cost is client-go's and is measured.\n")
	p("- BlockedHandler: client-go takes the watch's resourceVersion from each event's object, so each event has its own object carrying an increasing resourceVersion: ")
	p("1,000,000 shallow copies (sharing label and data maps) built before the heap is first measured and kept alive to the end, so they are in both measurements and the difference is the queue's. ")
	p("Ours shares the 1,000 cached objects and sets `informer.Event.ResourceVersion`.\n")
	p("- client-go's listener keeps a trace per notification when more than 1,024 are pending (`utiltrace` in `processorListener.run`); it is part of its cost when handlers fall behind, and why its allocations per object in InitialSync are higher with one handler (which falls further behind) than with ten.\n")
	p("- HTTPPods and Footprint (over HTTP): client-go v0.37 runs with its default feature gates, so `WatchListClient` is on and its reflector first tries a streaming list in every mode. ")
	p("In the `json` and `protobuf` modes (and Footprint) the server refuses it with 422 Invalid, as kube-apiserver does with its WatchList feature off, and client-go falls back to LIST then WATCH (watchlists-refused = 1 in its results); ")
	p("ours, which streams by default over `kube.Source`, is set to `WatchListOn` in the `json-watchlist` mode and `WatchListOff` in the others, where it lists at once (watchlists-refused = 0). In the `json-watchlist` mode both sides sync from the streaming list (watchlists-served = 1). ")
	p("Each side sets its content type explicitly: client-go's `rest.Config` `ContentType` (the clientset's default for built-in types is protobuf), ours `kube.Options.ContentType` (and, for protobuf, the codec `kube.Options.Protobuf: kube.Protobuf[*corev1.Pod]()` it needs); client-go's QPS 50 / burst 100 are the defaults of our `kube.Options`, instead of client-go's 5 / 10, which would throttle the 40 pages of the list. ")
	p("Both decode into `*corev1.Pod`, both keep managed fields, neither has a transform; both caches have a namespace index. ")
	p("The server writes each pod from the JSON template (in protobuf, it re-encodes a decoded template with the pod's name, uid and resourceVersion) as it serves it and holds none, so its heap stays out of the measurements; its allocations (a few per pod) are in both sides' allocs/pod. ")
	p("The 1 ms heap sampling (`runtime.ReadMemStats`) slows both sides' syncs alike. HTTPPods runs once per round (benchtime 1x); Footprint in the first three rounds only, its figures being deterministic.\n")
	p("- Samples: each round runs every benchmark once for client-go and once for ours, alternating which goes first; the rounds repeat (count in the table above), so both sides see the same machine conditions.\n\n")

	p("## Summary: ratios vs client-go\n\n")
	p("Medians of all samples. Every metric is lower-is-better: a ratio below 1 means this library needs less (time, allocations, bytes) than client-go. ")
	p("See the benchstat tables below for the spread and significance of each figure.\n\n")
	p("%s\n", summary)
	if footprint != "" {
		p("## Footprint: live heap per pod vs a plain map\n\n")
		p("Medians; the ratio is each holder's B-held/pod ÷ the map's (the floor: the decoded pods and their keys, nothing else). One process per measurement.\n\n")
		p("%s\n", footprint)
	}

	p("## benchstat\n\n")
	p("`benchstat client-go=results/client-go.txt informer=results/informer.txt` (with `-ignore pkg`, as the two sides are different packages): median ± the 95%% confidence interval, and the change from client-go. ")
	p("Units are scaled by benchstat (for example ns/obj is shown as sec/obj).\n\n")
	p("```\n%s```\n", stat)
}

func firstField(s string) string {
	f := strings.Fields(strings.ReplaceAll(s, ",", " "))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The sections of BENCHMARKS.md after the benchstat tables, each written
// from its own results: a section whose results are missing is left out,
// never written from memory.

// extraSections returns the sections that follow the benchstat tables,
// from the files run.sh put into results: deps.md (bench/deps/RESULTS.md),
// the Client benchmarks of client-go.txt and informer.txt, realserver.md
// (bench/realserver/RESULTS.md), warmstart.md, warmstart-<N>.md and
// warmstart-notes.md (bench/warmstart: see warmSections), scale.md (bench/scale/RESULTS.md) and
// every scale-<N>.md (bench/scale/RESULTS-<N>.md: other sizes of the scale
// benchmark, such as half a million pods, run on their own), shard.md
// (bench/shard/RESULTS.md) and sharing.md (bench/sharing/RESULTS.md).
func extraSections(results string, cg, ours samples) string {
	var b strings.Builder
	if deps, err := os.ReadFile(filepath.Join(results, "deps.md")); err == nil {
		b.WriteString(depsSection(string(deps)))
	}
	b.WriteString(clientSection(cg, ours))
	if fl, err := os.ReadFile(filepath.Join(results, "floor.md")); err == nil {
		b.WriteString(floorSection(string(fl)))
	}
	if hp, err := os.ReadFile(filepath.Join(results, "hotpath.md")); err == nil {
		b.WriteString(hotpathSection(string(hp)))
	}
	if rs, err := os.ReadFile(filepath.Join(results, "realserver.md")); err == nil {
		b.WriteString(realServerSection(string(rs)))
	}
	b.WriteString(warmSections(results))
	if scale, err := os.ReadFile(filepath.Join(results, "scale.md")); err == nil {
		b.WriteString(scaleSection(string(scale)))
	}
	more, _ := filepath.Glob(filepath.Join(results, "scale-*.md"))
	sort.Strings(more)
	for _, f := range more {
		if data, err := os.ReadFile(f); err == nil {
			b.WriteString(scaleMoreSection(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "scale-"), ".md"), string(data)))
		}
	}
	if sh, err := os.ReadFile(filepath.Join(results, "shard.md")); err == nil {
		b.WriteString(shardSection(string(sh)))
	}
	if sg, err := os.ReadFile(filepath.Join(results, "sharing.md")); err == nil {
		b.WriteString(sharingSection(string(sg)))
	}
	return b.String()
}

// sharingSection is bench/sharing/RESULTS.md (measured by hand: footprint,
// callgrind and HTTPPods runs, see its text), whole.
func sharingSection(results string) string {
	return "\n## Structural sharing's guard against written values (issue 34)\n\n" +
		"What it costs to check every shared value before handing it out again (`kubesrc.SharingOn`'s doc says what the guard does): held memory per pod, CPU per decoded object where most values are found in the table, and the HTTP benchmark. Copied from `bench/sharing/RESULTS.md` by `bench/run.sh`.\n\n" +
		strings.TrimSpace(results) + "\n"
}

// shardSection is bench/shard/RESULTS.md (bench/cmd/shard), whole.
func shardSection(results string) string {
	return "\n## Sharding over replicas: memory, sync, bytes, rebalance\n\n" +
		"`bench/cmd/shard` (run on its own; `bench/run.sh` copies its last `bench/shard/RESULTS.md`): N members of equal hash ranges (`kubesrc.Options.Shard`, package source/kube) over one collection of a real kube-apiserver, with its `ShardedListAndWatch` gate on (the server filters) and off (every member receives everything and filters on the client). " +
		"*Heap held by one member*: member 0 alone in the process, live heap after two GCs minus before (it includes the informer's fixed cost, which is why small shards stay above 1/N). *Sync*: all N members started at once. *Bytes*: response bytes read from the connection, gzip as sent. Then `shard/ring` members: how long a join, a graceful leave and a kill (its Lease left to expire) take until the live members cover the hash space again, synced.\n\n" +
		strings.TrimSpace(results) + "\n"
}

// tableLines returns the "Measured ..." line (followed by a blank line),
// the Markdown table rows and any "Skipped ..." line of a results file.
func tableLines(results string) string {
	var b strings.Builder
	for _, line := range strings.Split(results, "\n") {
		switch {
		case strings.HasPrefix(line, "Measured "), strings.HasPrefix(line, "Skipped "):
			b.WriteString(line + "\n\n")
		case strings.HasPrefix(line, "|"):
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// scaleSection is the table of bench/scale/measure.sh (copied into the
// results by run.sh), with its measurement line.
func scaleSection(results string) string {
	return scaleIntro + tableLines(results)
}

// scaleMoreSection is another size of the scale benchmark (n pods).
func scaleMoreSection(n, results string) string {
	return fmt.Sprintf("\n### Scale at %s pods\n\n", n) +
		"The same measurements at this size, by `SCALE_PODS=" + n + " OUT=$PWD/scale/RESULTS-" + n + ".md scale/measure.sh` (or `BENCH_SCALE_PODS=" + n + " bench/run.sh`), kept in `bench/scale/RESULTS-" + n + ".md` and copied here by every run.\n\n" +
		tableLines(results)
}

// scaleIntro opens the scale section of BENCHMARKS.md.
const scaleIntro = "\n## Scale: memory held, sync, peak RSS, relist peak\n\n" +
	"`bench/scale/measure.sh` (run by `bench/run.sh`: 50,000 pods in a full run, 1,000 with `-quick`; other sizes, such as `BENCH_SCALE_PODS=500000`, go to a section of their own below), one process per row (`bench/cmd/footprint`). " +
	"First the one-template footprint (pods of `workload.PodJSON` differing only in name, uid and resourceVersion), then the scale workload (`workload.ScalePods`): N pods from N/100 Deployments of 1 to 500 replicas (most small, mean 100) in 300 namespaces, each template with its own names, labels, images, env, owner and template hash, each pod with its own name, uid, resourceVersion, creation and start times, condition transition times, pod IP, host IP and node; served by the loopback `PodServer` as a JSON list (in the pages each client asks for: client-go 500, ours growing from 500 to 2,000), a streaming list (json-watchlist) or protobuf. " +
	"*B held/pod*: live heap after two GCs holding the synced cache, minus before, per pod (the server holds no pods; its templates are allocated before the first measurement); *÷ map*: over a plain `map[string]*corev1.Pod` decoded with encoding/json from the same JSON; *÷ client-go*: over client-go's informer in the same workload and mode; *sync*: from start to synced (for the map: decoding); *peak RSS*: the process's VmHWM, server included; *relist peak ÷ steady*: the largest `/gc/heap/live:bytes` (runtime/metrics; GC cycles run back to back, so that every moment of the relist is seen) while the client relists after its watch is answered 410 Gone, over the live heap before (*marked*), and the same without what each cycle marked only because it was allocated while the cycle ran, garbage or not (*held*: the heap reachable when each cycle began, estimated as the live heap minus the bytes allocated during the cycle; with cycles back to back, marked also counts what the decoders and the in-process server threw away meanwhile). " +
	"*informer* is this library with `kube.Options.Sharing` at its default (on: structural sharing of identical subtrees at decode time), *sharing off* with `SharingOff`.\n\n"

// depsSection is the dependency-weight table of bench/deps/RESULTS.md (as
// copied into the results by run.sh), with its measurement line.
func depsSection(results string) string {
	return "\n## Dependency weight\n\n" +
		"A minimal program (watch pods from kubeconfig, print adds, list via the lister) written with this library, with client-go, and as a floor with only k8s.io/api + apimachinery + net/http; and a whole controller, [`examples/mirror`](examples/mirror/) (informers of two namespaces, a work queue, typed writes, leader election on a Lease, events), beside the same controller written with client-go (`mirror-clientgo`) and with controller-runtime (`mirror-ctrlruntime`). Each is its own module under [`bench/deps/`](bench/deps/) (but `mirror`, in the examples module), measured by `bench/deps/measure.sh` (details, commands and the start check against a real kube-apiserver in `bench/deps/RESULTS.md`).\n\n" +
		tableLines(results)
}

// realServerSection is the table of bench/realserver/measure.sh.
func realServerSection(results string) string {
	return "\n## Against a real kube-apiserver\n\n" +
		"`bench/realserver/measure.sh` (run by `bench/run.sh`; 500 objects and one round with `-quick`): a real kube-apiserver and etcd from `shared/kube-apiserver` beside the repository (the versions in its line below), on the same machine as the clients, holding OBJECTS ConfigMaps of about 1.5 KiB (eight data keys, three labels, an annotation; managed fields as the server writes them) in one namespace. " +
		"Each run is a process of its own (`bench/cmd/realserver`) that syncs a ConfigMap informer of that namespace and reports the time from start until synced, the live heap held per object after two GCs, and the list requests it sent (list pages and streaming lists, not watches). The rounds alternate which client goes first. " +
		"Both clients run at their defaults (client-go: a `SharedInformerFactory` over a clientset, QPS 5, burst 10; ours: `informer.New` over `kube.New[*corev1.ConfigMap]`) except for what each row measures: the encoding asked for (`rest.Config.ContentType`; `kube.Options.ContentType` and `Protobuf`) and, in *list* mode, streaming lists turned off on both sides (client-go's `WatchListClient` feature gate, `KUBE_FEATURE_WatchListClient=false`; our `ReflectorOptions.WatchList: WatchListOff`), as against a server without them. " +
		"In list mode client-go asks for `resourceVersion=0` (the server's watch cache, in one response whatever the limit; possibly stale), ours for a consistent list (no resourceVersion) in pages growing from 500 to 2,000; the extra rows of ours are the old default (pages of 500), client-go's choice (`ReflectorOptions.ListResourceVersion: \"0\"`) and the consistent list in one response (`kube.Options.PageSize: -1`, which holds the whole list before the cache takes it; see `kube.Options.PageSize` for the trade-offs). " +
		"Without `shared/kube-apiserver` the benchmark is skipped and says so here.\n\n" +
		tableLines(results)
}

// clientSection compares the Client benchmarks (kube.Client against the
// client-go clientset): medians of allocs/op, B/op and ns/call per call
// and number of callers. Empty when they did not run.
func clientSection(cg, ours samples) string {
	var names []string
	for n := range ours {
		if strings.HasPrefix(n, "Client/") && cg[n] != nil {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	calls := map[string]int{"Create": 0, "Update": 1, "Apply": 2, "Get": 3}
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.Split(names[i], "/"), strings.Split(names[j], "/")
		if len(a) > 1 && len(b) > 1 && a[1] != b[1] {
			return calls[a[1]] < calls[b[1]]
		}
		return natLess(names[i], names[j])
	})
	var b strings.Builder
	b.WriteString("\n## Typed client: kube.Client vs the client-go clientset\n\n")
	b.WriteString("`BenchmarkClient` (bench/informer and bench/clientgo, workload `workload.Client`; in the tables above too): one call of a typed client for `*corev1.ConfigMap` in JSON, by 1, 8 or 64 goroutines at once, against one loopback server (`workload.ClientServer`) that reads each body and answers with the same 1 KiB ConfigMap (managed fields included) and a new resourceVersion; no client-side rate limit on either side. client-go: `kubernetes.NewForConfig(...).CoreV1().ConfigMaps(ns)` (`Apply` with an apply configuration); ours: `kube.NewClient[*corev1.ConfigMap]` (`Apply` with the object). Allocations count every goroutine, the server's included (the same for both sides). ")
	b.WriteString("Medians of the rounds of this run; the wall times (µs per call) are the most sensitive to the machine's load.\n\n")
	b.WriteString("| call | client-go allocs/op | ours | ÷ | client-go B/op | ours | ÷ | client-go µs/call | ours | ÷ |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, n := range names {
		b.WriteString("| " + strings.TrimPrefix(n, "Client/"))
		for _, u := range []string{"allocs/op", "B/op", "ns/call"} {
			c, o := median(cg[n][u]), median(ours[n][u])
			if u == "ns/call" {
				c, o = c/1000, o/1000
			}
			r := "—"
			if c > 0 {
				r = fmt.Sprintf("%.2f×", o/c)
			}
			fmt.Fprintf(&b, " | %s | %s | %s", num(c), num(o), r)
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

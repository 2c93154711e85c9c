package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// warmSections is the warm-restart section (issue 29): the table of
// bench/warmstart/measure.sh (warmstart.md, copied from
// bench/warmstart/RESULTS.md by run.sh), the tables of other sizes
// (warmstart-<N>.md, from RESULTS-<N>.md, measured on their own), then
// the notes measured by hand (warmstart-notes.md, from NOTES.md: the real
// kube-apiserver's restart and what the tables show). Empty when none of
// them is there.
func warmSections(results string) string {
	var b strings.Builder
	if t, err := os.ReadFile(filepath.Join(results, "warmstart.md")); err == nil {
		b.WriteString(tableLines(string(t)) + "\n")
	}
	more, _ := filepath.Glob(filepath.Join(results, "warmstart-[0-9]*.md"))
	sort.Slice(more, func(i, j int) bool { return natLess(more[i], more[j]) })
	for _, f := range more {
		if t, err := os.ReadFile(f); err == nil {
			n := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "warmstart-"), ".md")
			b.WriteString("### Warm restarts at " + n + " pods\n\n" +
				"Measured at this size on its own, by `WARM_PODS=" + n + " OUT=$PWD/warmstart/RESULTS-" + n + ".md warmstart/measure.sh` (its line says which cases: `WARM_CASES`), kept in `bench/warmstart/RESULTS-" + n + ".md` and copied here by every run.\n\n" +
				tableLines(string(t)) + "\n")
		}
	}
	if notes, err := os.ReadFile(filepath.Join(results, "warmstart-notes.md")); err == nil {
		b.WriteString(strings.TrimSpace(string(notes)) + "\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return warmIntro + b.String()
}

// warmHeading starts the warm-restart section of BENCHMARKS.md.
const warmHeading = "\n## Warm restarts: start from a snapshot (issue 29)\n\n"

// warmIntro opens the warm-restart section.
const warmIntro = warmHeading +
	"`bench/warmstart/measure.sh` (run by `bench/run.sh`: 20,000 and 100,000 pods, JSON and protobuf, in a full run; 1,000 pods in JSON with `-quick`; other sizes, such as `WARM_PODS=500000`, kept in a table of their own below), one process per row (`bench/cmd/warmstart`), over the scale workload's pods (`workload.ScalePods`, as in the scale section) served by the loopback `PodServer` with streaming lists off. " +
	"*snapshot write*: sync cold, then `WriteSnapshotFile` (its time, its size per pod, and the live heap held per pod for comparison); *client-go cold*: client-go's Pods informer from a `SharedInformerFactory` (paged lists of 500; client-go has no warm start); *informer cold*: sync with a list; *warm*: `RestoreFile`, then a watch from the snapshot's version (the server still has it); *expired*: `RestoreFile`, the watch answered 410 Gone, one relist (paged, as relists are: pages growing from 500 to 2,000); *relist*, for comparison: an ordinary informer, synced, whose watch is answered 410 Gone (its *sync* is the relist's time). " +
	"*sync* runs from before the restore (reading and decoding the file included) to `WaitForSync`, which after a restore also waits for the source's confirmation (the watch open and quiet for 100 ms). *read* is the bytes of the server's response bodies (uncompressed: the loopback server does not gzip). " +
	"*peak ÷ steady*, both above the heap before the informer: *heap objects* is the largest `/memory/classes/heap/objects:bytes` sampled every millisecond over the same after two GCs once synced (garbage not yet collected included, so any start that decodes a list reaches about what GOGC=100 allows, 2×); *live marked / held* comes from a second process of the same case with `-gc`, GC cycles back to back as in the scale section's relist peak: the largest live heap marked, and the same without what a cycle marked only because it was allocated while it ran. *peak RSS* is the process's VmHWM, the in-process server included. " +
	"A process whose resident set passes `RSS_CAP_MIB` (8 GiB by default: the machine is shared) is killed and its row says so.\n\n"

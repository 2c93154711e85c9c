package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFloorTable: each workload's rows give the three medians and both
// ratios, and what the difference pays for once per workload.
func TestFloorTable(t *testing.T) {
	floor, _ := parseString("BenchmarkSteadyState/H=1-2 1 1 ns/op 100 ns/event 50 cpu-ns/event 0 allocs/event\n" +
		"BenchmarkSteadyState/H=1-2 1 1 ns/op 120 ns/event 60 cpu-ns/event 0 allocs/event\n")
	ours, _ := parseString("BenchmarkSteadyState/H=1-2 1 1 ns/op 300 ns/event 200 cpu-ns/event 0.02 allocs/event\n")
	cg, _ := parseString("BenchmarkSteadyState/H=1-2 1 1 ns/op 3000 ns/event 2000 cpu-ns/event 9 allocs/event\n")
	got := floorTable(floor, ours, cg)
	for _, want := range []string{
		"| SteadyState/H=1 | ns/event | 110 | 300 | 3000 | 2.73× | 0.10× | three goroutines",
		"| SteadyState/H=1 | cpu-ns/event | 55.0 | 200 | 2000 | 3.64× | 0.10× |  |",
		"| SteadyState/H=1 | allocs/event | 0 | 0.02 | 9.00 | — (÷ ≈0) | 0.00× |  |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("floor table lacks %q:\n%s", want, got)
		}
	}
}

// TestSplice: the floor's, the hot path's and the warm restarts' sections are replaced in
// place, or added at the end, and nothing else changes.
func TestSplice(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("floor.md", "# title\n\nMeasured now.\n\n| a |\n| --- |\n| new-floor |\n")
	write("hotpath.md", "# title\n\nnew hot path text\n")
	write("warmstart.md", "Measured warm.\n\n| a |\n| --- |\n| new-warm |\n")
	doc := filepath.Join(dir, "BENCHMARKS.md")
	write("BENCHMARKS.md", "# B\n\n## One\n\nkept\n"+floorHeading+"| old-floor |\n\n## Two\n\nkept too\n"+warmHeading+"| old-warm |\n\n## Three\n\nkept as well\n")
	spliceSections(doc, dir)
	b, _ := os.ReadFile(doc)
	got := string(b)
	for _, want := range []string{"## One\n\nkept\n", "| new-floor |", "## Two\n\nkept too\n", hotpathHeading + "new hot path text\n", "| new-warm |\n", "## Three\n\nkept as well\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("spliced report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "old-floor") || strings.Count(got, floorHeading) != 1 || strings.Contains(got, "old-warm") || strings.Count(got, warmHeading) != 1 {
		t.Errorf("the old floor section is still there:\n%s", got)
	}
	spliceSections(doc, dir) // again: the same document
	if b2, _ := os.ReadFile(doc); string(b2) != got {
		t.Errorf("a second splice changed the report:\n%s", b2)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtraSections: each section after benchstat comes from its results
// file (or, for the typed client, from the Client benchmarks), and one
// whose results are missing is left out.
func TestExtraSections(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	table := "| a | b |\n| --- | --- |\n| x | %s |\n"
	write("deps.md", "# Dependency weight: results\n\nMeasured 2026-01-01 by measure.sh.\nSee README.md.\n\n"+strings.Replace(table, "%s", "deps-row", 1)+"\n```sh\nnot copied\n```\n")
	write("realserver.md", "Skipped on 2026-01-01 00:00 UTC: no kube-apiserver.\n")
	write("scale.md", "Measured at 50,000.\n\n"+strings.Replace(table, "%s", "scale-50k", 1))
	write("warmstart.md", "Measured warm.\n\n"+strings.Replace(table, "%s", "warm-100k", 1))
	write("warmstart-500000.md", "Measured warm at 500,000.\n\n"+strings.Replace(table, "%s", "warm-500k", 1))
	write("warmstart-notes.md", "Warm notes.\n")
	write("scale-500000.md", "Measured at 500,000.\n\n"+strings.Replace(table, "%s", "scale-500k", 1))
	cg, err := parseString("BenchmarkClient/Get/callers=1-2 100 1000 ns/op 2000 ns/call 4000 B/op 200 allocs/op\n" +
		"BenchmarkClient/Create/callers=8-2 100 1000 ns/op 3000 ns/call 5000 B/op 250 allocs/op\n")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := parseString("BenchmarkClient/Get/callers=1-2 100 1000 ns/op 1000 ns/call 2000 B/op 100 allocs/op\n" +
		"BenchmarkClient/Create/callers=8-2 100 1000 ns/op 1500 ns/call 2500 B/op 125 allocs/op\n")
	if err != nil {
		t.Fatal(err)
	}
	got := extraSections(dir, cg, ours)
	for _, want := range []string{
		"## Dependency weight", "Measured 2026-01-01 by measure.sh.\n\n| a | b |", "| x | deps-row |",
		"## Typed client", "| Create/callers=8 | 250 | 125 | 0.50× | 5000 | 2500 | 0.50× | 3.00 | 1.50 | 0.50× |",
		"| Get/callers=1 | 200 | 100 | 0.50× | 4000 | 2000 | 0.50× | 2.00 | 1.00 | 0.50× |",
		"## Against a real kube-apiserver", "Skipped on 2026-01-01 00:00 UTC: no kube-apiserver.",
		"## Warm restarts", "Measured warm.\n\n| a | b |", "| x | warm-100k |", "### Warm restarts at 500000 pods", "| x | warm-500k |", "Warm notes.\n",
		"## Scale", "| x | scale-50k |",
		"### Scale at 500000 pods", "| x | scale-500k |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("sections lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "not copied") || strings.Index(got, "Create/") > strings.Index(got, "Get/") {
		t.Errorf("sections copy more than the tables, or the calls are out of order:\n%s", got)
	}
	if i, j, k, w, s := strings.Index(got, "## Dependency"), strings.Index(got, "## Typed"), strings.Index(got, "## Against"), strings.Index(got, "## Warm"), strings.Index(got, "## Scale"); !(i < j && j < k && k < w && w < s) || strings.Index(got, "warm-500k") > strings.Index(got, "Warm notes") {
		t.Errorf("sections out of order:\n%s", got)
	}

	// Nothing measured, nothing written.
	if got := extraSections(t.TempDir(), samples{}, samples{}); got != "" {
		t.Errorf("sections without results:\n%s", got)
	}
}

func parseString(s string) (samples, error) { return parse(strings.NewReader(s)) }

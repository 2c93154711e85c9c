// Command mutate is the repository's mutation pass: it applies each small,
// realistic breakage of a package's documented guarantees (listed in
// scripts/mutations/<pkg>.txt) one at a time, runs that package's unit
// tests against it, and reports which breakages the tests catch.
//
// Run it through scripts/mutate from anywhere in the repository; usage and
// the list format are in scripts/README.md. It is not part of CI: a full
// pass builds and tests a package once per entry.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: scripts/mutate [flags] [package ...]\n\n"+
			"Runs the mutation list of each package (all lists when none is named).\n"+
			"A package is named by its directory (source/kube, workqueue, root or .).\n\nflags:\n")
		fs.PrintDefaults()
	}
	timeout := fs.Duration("timeout", 0, "`go test -timeout` per mutation (default: 5 times the unmutated run's time, at least 30s)")
	only := fs.String("only", "", "comma-separated entry `ids` to run (default all)")
	check := fs.Bool("check", false, "only parse the lists and report stale entries; run no tests")
	race := fs.Bool("race", false, "run the tests with -race")
	noBaseline := fs.Bool("nobaseline", false, "skip the run of the unmutated tests")
	minScore := fs.Float64("min", 95, "exit 1 when a list catches less than this `percent`")
	verbose := fs.Bool("v", false, "print the last lines of go test's output for each entry")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}

	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	listDir := filepath.Join(root, "scripts", "mutations")
	names, err := listNames(listDir, fs.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	var lists []*List
	for _, name := range names {
		f, err := os.Open(filepath.Join(listDir, name+".txt"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
			return 2
		}
		l, err := ParseList(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
			return 2
		}
		if *only != "" {
			ids := strings.Split(*only, ",")
			l.Mutations = slices.DeleteFunc(l.Mutations, func(m Mutation) bool { return !slices.Contains(ids, m.ID) })
		}
		lists = append(lists, l)
	}

	r := &Runner{Root: root, Timeout: *timeout, Journal: filepath.Join(root, ".mutate-journal")}
	if *race {
		r.Flags = append(r.Flags, "-race")
	}
	restored, err := r.RestoreJournal()
	for _, f := range restored {
		fmt.Fprintf(os.Stderr, "mutate: restored %s, left mutated by an interrupted run\n", f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate: restoring an interrupted run's files:", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	status := 0
	var summaries []string
	for _, l := range lists {
		s, ok, err := runList(ctx, r, l, *check, *noBaseline, *verbose, *minScore)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
			if ctx.Err() != nil {
				fmt.Fprintln(os.Stderr, "mutate: interrupted; every mutated file is restored")
				return 130
			}
			return 2
		}
		summaries = append(summaries, s)
		if !ok {
			status = 1
		}
	}
	if _, err := r.RestoreJournal(); err != nil { // nothing to restore: removes the journal's directories
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	if len(summaries) > 1 {
		fmt.Println("\n== scores")
		for _, s := range summaries {
			fmt.Println(s)
		}
	}
	return status
}

// runList runs one list and prints a line per entry and the list's score.
// ok is false when an entry is stale or invalid, or the score is below min.
func runList(ctx context.Context, r *Runner, l *List, check, noBaseline, verbose bool, min float64) (summary string, ok bool, err error) {
	fmt.Printf("== %s (go test %s, %d mutations)\n", l.Name, l.Pkg, len(l.Mutations))
	if !check && !noBaseline {
		took, err := r.Baseline(ctx, l)
		if err != nil {
			return "", false, err
		}
		fmt.Printf("  (unmutated: passed in %.1fs)\n", took.Seconds())
		if r.Timeout == 0 {
			r.Timeout = max(30*time.Second, 5*took).Round(time.Second)
			defer func() { r.Timeout = 0 }()
		}
	}
	if r.Timeout == 0 {
		r.Timeout = 2 * time.Minute
		defer func() { r.Timeout = 0 }()
	}
	width := 0
	for _, m := range l.Mutations {
		width = max(width, len(m.ID))
	}
	counts := map[Outcome]int{}
	var notCaught []string
	for _, m := range l.Mutations {
		var res Result
		if check {
			res, err = staleCheck(r, m)
		} else {
			res, err = r.Run(ctx, l, m)
		}
		if err != nil {
			return "", false, fmt.Errorf("%s %s: %w", l.Name, m.ID, err)
		}
		counts[res.Outcome]++
		if res.Outcome != Caught && res.Outcome != Equivalent && res.Outcome != "" {
			notCaught = append(notCaught, fmt.Sprintf("%s %s", m.ID, res.Outcome))
		}
		detail := res.Detail
		if res.Outcome == Survived {
			detail = "breaks: " + m.Breaks
		}
		if res.Outcome == Caught && m.Equivalent != "" {
			detail += " (listed as equivalent: the note is wrong)"
		}
		outcome := string(res.Outcome)
		if outcome == "" {
			outcome = "ok"
		}
		fmt.Printf("  %-*s  %-10s %5.1fs  %s\n", width, m.ID, outcome, res.Took.Seconds(), detail)
		if verbose && len(res.Output) > 0 {
			fmt.Printf("%s\n", tail(res.Output, 60))
		}
	}
	if check {
		ok = counts[Stale] == 0
		return fmt.Sprintf("%s: %d entries, %d stale", l.Name, len(l.Mutations), counts[Stale]), ok, nil
	}
	judged := counts[Caught] + counts[Survived]
	score := 100.0
	if judged > 0 {
		score = 100 * float64(counts[Caught]) / float64(judged)
	}
	summary = fmt.Sprintf("%s: %d/%d caught (%.1f%%); %d equivalent, %d stale, %d invalid",
		l.Name, counts[Caught], judged, score, counts[Equivalent], counts[Stale], counts[Invalid])
	if len(notCaught) > 0 {
		summary += "; not caught: " + strings.Join(notCaught, ", ")
	}
	fmt.Println(summary)
	ok = score >= min && counts[Stale] == 0 && counts[Invalid] == 0
	return summary, ok, nil
}

// staleCheck reports whether m's snippet is still in its file exactly once.
func staleCheck(r *Runner, m Mutation) (Result, error) {
	data, err := os.ReadFile(filepath.Join(r.Root, filepath.FromSlash(m.File)))
	if err != nil {
		return Result{Mutation: m, Outcome: Stale, Detail: "cannot read " + m.File}, nil
	}
	if n := strings.Count(string(data), m.Original); n != 1 {
		return Result{Mutation: m, Outcome: Stale, Detail: fmt.Sprintf("the original snippet occurs %d times in %s", n, m.File)}, nil
	}
	return Result{Mutation: m}, nil
}

// listNames maps package arguments to list names: source/kube and
// ./source/kube/ to source-kube, "." and "root" to root. No argument means
// every list in dir.
func listNames(dir string, args []string) ([]string, error) {
	if len(args) == 0 {
		matches, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		if err != nil {
			return nil, err
		}
		var names []string
		for _, m := range matches {
			names = append(names, strings.TrimSuffix(filepath.Base(m), ".txt"))
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no lists in %s", dir)
		}
		return names, nil
	}
	var names []string
	for _, a := range args {
		a = strings.Trim(strings.TrimPrefix(filepath.ToSlash(a), "./"), "/")
		if a == "" || a == "." {
			a = "root"
		}
		name := strings.ReplaceAll(a, "/", "-")
		if _, err := os.Stat(filepath.Join(dir, name+".txt")); err != nil {
			return nil, fmt.Errorf("no mutation list for %s: want %s", a, filepath.Join("scripts", "mutations", name+".txt"))
		}
		names = append(names, name)
	}
	return names, nil
}

// repoRoot finds the directory holding the root module's go.mod, from the
// working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/informer-go/informer\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the informer repository (no go.mod of github.com/informer-go/informer)")
		}
		dir = parent
	}
}

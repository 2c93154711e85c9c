package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Outcome is what became of one mutation.
type Outcome string

// The outcomes of a mutation.
const (
	Caught     Outcome = "caught"     // the package's tests failed (or timed out)
	Survived   Outcome = "survived"   // the package's tests passed: a hole, or an equivalent breakage
	Equivalent Outcome = "equivalent" // survived, and the list explains why it must
	Stale      Outcome = "stale"      // the original snippet is not in the file exactly once
	Invalid    Outcome = "invalid"    // the mutated code does not build
)

// Result is one mutation's outcome and the evidence for it.
type Result struct {
	Mutation Mutation
	Outcome  Outcome
	Detail   string // failing tests, the stale snippet's count, the build error
	Output   []byte // go test's output
	Took     time.Duration
}

// Runner applies mutations one at a time in the repository at Root and
// runs a package's tests against each.
type Runner struct {
	Root    string        // the repository root (holds go.mod)
	Timeout time.Duration // go test -timeout, per mutation
	Flags   []string      // extra go test flags for every list
	Journal string        // where the original of a mutated file is kept until it is restored
}

// journalPath is where the original of file is kept while it is mutated, so
// that a run killed before it could restore the file is undone by the next.
func (r *Runner) journalPath(file string) string {
	return filepath.Join(r.Journal, filepath.FromSlash(file))
}

// RestoreJournal puts back every file an interrupted run left mutated and
// returns their names.
func (r *Runner) RestoreJournal() ([]string, error) {
	var restored []string
	err := filepath.WalkDir(r.Journal, func(path string, d os.DirEntry, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			return filepath.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(r.Journal, path)
		if err != nil {
			return err
		}
		orig, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := writeKeepingMode(filepath.Join(r.Root, rel), orig); err != nil {
			return err
		}
		restored = append(restored, filepath.ToSlash(rel))
		return os.Remove(path)
	})
	if err != nil {
		return restored, err
	}
	return restored, os.RemoveAll(r.Journal)
}

// Baseline runs the list's tests on the unmutated code: a list is only
// judged against tests that pass without any breakage.
func (r *Runner) Baseline(ctx context.Context, l *List) (time.Duration, error) {
	timeout := r.Timeout
	if timeout == 0 {
		r.Timeout = 10 * time.Minute
		defer func() { r.Timeout = timeout }()
	}
	start := time.Now()
	failed, out, err := r.goTest(ctx, l)
	if err != nil {
		return 0, err
	}
	if failed {
		return 0, fmt.Errorf("the tests of %s fail without any mutation:\n%s", l.Pkg, tail(out, 40))
	}
	return time.Since(start), nil
}

// Run applies m, runs the list's tests and restores the file, also when ctx
// is cancelled.
func (r *Runner) Run(ctx context.Context, l *List, m Mutation) (res Result, err error) {
	res.Mutation = m
	start := time.Now()
	defer func() { res.Took = time.Since(start) }()

	path := filepath.Join(r.Root, filepath.FromSlash(m.File))
	orig, err := os.ReadFile(path)
	if err != nil {
		res.Outcome, res.Detail = Stale, "cannot read "+m.File
		return res, nil
	}
	if n := bytes.Count(orig, []byte(m.Original)); n != 1 {
		res.Outcome, res.Detail = Stale, fmt.Sprintf("the original snippet occurs %d times in %s", n, m.File)
		return res, nil
	}
	mutated := bytes.Replace(orig, []byte(m.Original), []byte(m.Replacement), 1)

	jp := r.journalPath(m.File)
	if err := os.MkdirAll(filepath.Dir(jp), 0o755); err != nil {
		return res, err
	}
	if err := os.WriteFile(jp, orig, 0o644); err != nil {
		return res, err
	}
	if err := writeKeepingMode(path, mutated); err != nil {
		return res, err
	}
	defer func() {
		if rerr := writeKeepingMode(path, orig); rerr != nil {
			err = errors.Join(err, fmt.Errorf("restoring %s (its original is kept in %s): %w", m.File, jp, rerr))
			return
		}
		err = errors.Join(err, os.Remove(jp))
	}()

	failed, out, err := r.goTest(ctx, l)
	res.Output = out
	switch {
	case err != nil:
		return res, err
	case !failed && m.Equivalent != "":
		res.Outcome, res.Detail = Equivalent, m.Equivalent
	case !failed:
		res.Outcome = Survived
	case buildFailed(out):
		res.Outcome, res.Detail = Invalid, firstLines(out, 6)
	default:
		res.Outcome, res.Detail = Caught, failures(out)
	}
	return res, nil
}

// goTest runs the list's package tests. failed reports whether go test
// exited with a failure; err is for everything else (go missing, ctx done).
func (r *Runner) goTest(ctx context.Context, l *List) (failed bool, out []byte, err error) {
	// go test's vet checks are left out: they cost about as much as the
	// build, and a breakage is judged by the tests.
	args := []string{"test", "-count=1", "-vet=off", "-timeout", r.Timeout.String()}
	args = append(args, r.Flags...)
	args = append(args, l.Flags...)
	args = append(args, l.Pkg)
	// The go command's own work (building the test binary) gets a margin
	// over the tests' timeout; a test that hangs is failed by -timeout.
	ctx, cancel := context.WithTimeout(ctx, r.Timeout+5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = r.Root
	cmd.Env = testEnv()
	setProcessGroup(cmd)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return false, buf.Bytes(), fmt.Errorf("go %s: %w", strings.Join(args, " "), context.Cause(ctx))
	}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		return true, buf.Bytes(), nil
	}
	if runErr != nil {
		return false, buf.Bytes(), fmt.Errorf("go %s: %w", strings.Join(args, " "), runErr)
	}
	return false, buf.Bytes(), nil
}

// testEnv is the environment of go test: the unit tests only, so the
// integration tests skip even when the caller's shell enables them.
func testEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBE_INTEGRATION=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func writeKeepingMode(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return os.WriteFile(path, data, mode)
}

var buildFailedRE = regexp.MustCompile(`(?m)^(FAIL\s+\S+\s+\[(build|setup) failed\]|# \S+)`)

// buildFailed reports whether go test failed before running any test.
func buildFailed(out []byte) bool {
	return buildFailedRE.Match(out) && !bytes.Contains(out, []byte("--- FAIL")) &&
		!bytes.Contains(out, []byte("panic: "))
}

var failRE = regexp.MustCompile(`(?m)^--- FAIL: (\S+)`)

// failures names the top-level tests that failed, or says the run panicked
// or timed out.
func failures(out []byte) string {
	var names []string
	for _, m := range failRE.FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	if bytes.Contains(out, []byte("panic: test timed out")) {
		names = append(names, "(timed out)")
	} else if len(names) == 0 && bytes.Contains(out, []byte("panic: ")) {
		names = append(names, "(panicked)")
	}
	if len(names) == 0 {
		return "(failed: " + firstLines(out, 1) + ")"
	}
	if len(names) > 4 {
		names = append(names[:4], fmt.Sprintf("and %d more", len(names)-4))
	}
	return strings.Join(names, ", ")
}

func firstLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

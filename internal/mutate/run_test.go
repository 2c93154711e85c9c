package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRunner runs the three outcomes a mutation can have against a tiny
// module, and checks that the file is restored after each.
func TestRunner(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := t.TempDir()
	const code = "package tiny\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	files := map[string]string{
		"go.mod":       "module example.com/tiny\n\ngo 1.22\n",
		"add.go":       code,
		"add_test.go":  "package tiny\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n",
		"unused.go":    "package tiny\n\nfunc unused() int { return 1 }\n",
		"untested.txt": "x",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &Runner{Root: root, Timeout: time.Minute, Journal: filepath.Join(root, ".mutate-journal")}
	l := &List{Name: "root", Pkg: "."}
	if _, err := r.Baseline(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m    Mutation
		want Outcome
	}{
		{Mutation{ID: "sub", File: "add.go", Original: "a + b", Replacement: "a - b"}, Caught},
		{Mutation{ID: "unused", File: "unused.go", Original: "return 1", Replacement: "return 2"}, Survived},
		{Mutation{ID: "equiv", File: "unused.go", Original: "return 1", Replacement: "return 2", Equivalent: "never called"}, Equivalent},
		{Mutation{ID: "gone", File: "add.go", Original: "a * b", Replacement: "a - b"}, Stale},
		{Mutation{ID: "twice", File: "add.go", Original: "a", Replacement: "b"}, Stale},
		{Mutation{ID: "nobuild", File: "add.go", Original: "return a + b", Replacement: "return a + c"}, Invalid},
	} {
		res, err := r.Run(context.Background(), l, tc.m)
		if err != nil {
			t.Fatalf("%s: %v", tc.m.ID, err)
		}
		if res.Outcome != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.m.ID, res.Outcome, res.Detail, tc.want)
		}
		if tc.want == Caught && res.Detail != "TestAdd" {
			t.Errorf("%s: detail %q, want the failing test's name", tc.m.ID, res.Detail)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "add.go")); string(got) != code {
			t.Fatalf("%s: add.go not restored:\n%s", tc.m.ID, got)
		}
		if _, err := os.Stat(r.Journal + "/add.go"); !os.IsNotExist(err) {
			t.Errorf("%s: journal entry left behind: %v", tc.m.ID, err)
		}
	}
}

// TestRestoreJournal puts back a file that a killed run left mutated.
func TestRestoreJournal(t *testing.T) {
	root := t.TempDir()
	r := &Runner{Root: root, Journal: filepath.Join(root, ".mutate-journal")}
	if err := os.MkdirAll(filepath.Join(r.Journal, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "sub", "a.go"), []byte("mutated"), 0o644)
	os.WriteFile(filepath.Join(r.Journal, "sub", "a.go"), []byte("original"), 0o644)
	restored, err := r.RestoreJournal()
	if err != nil || len(restored) != 1 || restored[0] != "sub/a.go" {
		t.Fatalf("restored %q, %v", restored, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "sub", "a.go")); string(got) != "original" {
		t.Errorf("a.go holds %q", got)
	}
	if _, err := os.Stat(r.Journal); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
	if restored, err := r.RestoreJournal(); err != nil || len(restored) != 0 {
		t.Errorf("second restore: %q, %v", restored, err)
	}
}

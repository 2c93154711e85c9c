package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	const text = `# a comment
pkg: ./source/kube
flags: -run TestX

=== first: what it breaks
file: a/b.go
<<<<
	if x {
		return err
	}
====
>>>>

=== second: another guarantee
file: a/c.go
equivalent: the branch is unreachable
<<<<
a := 1
====
a := 2
>>>>
`
	l, err := ParseList("source-kube", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if l.Pkg != "./source/kube" || len(l.Flags) != 2 || len(l.Mutations) != 2 {
		t.Fatalf("got pkg %q flags %q and %d mutations", l.Pkg, l.Flags, len(l.Mutations))
	}
	m := l.Mutations[0]
	if m.ID != "first" || m.Breaks != "what it breaks" || m.File != "a/b.go" ||
		m.Original != "\tif x {\n\t\treturn err\n\t}" || m.Replacement != "" || m.Line != 5 {
		t.Errorf("first entry: %+v", m)
	}
	if m := l.Mutations[1]; m.Equivalent != "the branch is unreachable" || m.Original != "a := 1" || m.Replacement != "a := 2" {
		t.Errorf("second entry: %+v", m)
	}
}

func TestParseListDefaultsPkg(t *testing.T) {
	for name, want := range map[string]string{"root": ".", "source-kube": "./source/kube", "workqueue": "./workqueue"} {
		l, err := ParseList(name, strings.NewReader(""))
		if err != nil || l.Pkg != want {
			t.Errorf("ParseList(%q): pkg %q, %v; want %q", name, l.Pkg, err, want)
		}
	}
}

func TestParseListErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no file":        "=== a: b\n<<<<\nx\n====\ny\n>>>>\n",
		"unclosed":       "=== a: b\nfile: f.go\n<<<<\nx\n====\ny\n",
		"no replacement": "=== a: b\nfile: f.go\n<<<<\nx\n>>>>\n",
		"same":           "=== a: b\nfile: f.go\n<<<<\nx\n====\nx\n>>>>\n",
		"empty original": "=== a: b\nfile: f.go\n<<<<\n====\nx\n>>>>\n",
		"duplicate id":   "=== a: b\nfile: f.go\n<<<<\nx\n====\ny\n>>>>\n=== a: c\nfile: f.go\n<<<<\nx\n====\ny\n>>>>\n",
		"no breaks":      "=== a\nfile: f.go\n<<<<\nx\n====\ny\n>>>>\n",
		"stray line":     "hello\n",
		"late header":    "=== a: b\nfile: f.go\n<<<<\nx\n====\ny\n>>>>\npkg: ./x\n",
	} {
		if _, err := ParseList("x", strings.NewReader(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestRepositoryLists parses every list of scripts/mutations, so that a list
// with a format error is found by go test; whether its snippets are still
// in the code (stale entries) is for scripts/mutate -check to say.
func TestRepositoryLists(t *testing.T) {
	files, err := filepath.Glob("../../scripts/mutations/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		if _, err := ParseList(name, strings.NewReader(string(data))); err != nil {
			t.Error(err)
		}
	}
}

package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSSEExample(t *testing.T) {
	for _, format := range []string{"sse", "ndjson", "poll"} {
		t.Run(format, func(t *testing.T) {
			var out strings.Builder
			ok, err := run(t.Context(), format, 500*time.Millisecond, true, &out)
			if err != nil || !ok {
				t.Fatalf("ok %v, err %v:\n%s", ok, err, out.String())
			}
			if !strings.Contains(out.String(), "cache matches the service: true") {
				t.Errorf("output:\n%s", out.String())
			}
		})
	}
}

// The example is one a user can copy: it imports no package internal to
// this repository (it imported internal/inventory, which another module
// cannot).
func TestImportsNothingInternal(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.Contains(path, "/internal/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

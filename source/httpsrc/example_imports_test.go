package httpsrc_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The examples are ones a user can copy: they import no package internal
// to this repository (Example_sse imported internal/inventory, which a
// user's module cannot).
func TestExamplesImportNothingInternal(t *testing.T) {
	files, err := filepath.Glob("example*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
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

package informer_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedDirectDeps are the only modules the root module may require
// directly. Everything else must be an indirect requirement of these.
var allowedDirectDeps = []string{
	"k8s.io/apimachinery",
	"golang.org/x/sync",
}

// TestDirectDependencies keeps the root module's direct requirements to
// apimachinery and x/sync.
func TestDirectDependencies(t *testing.T) {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	direct, err := directRequires(string(data))
	if err != nil {
		t.Fatalf("parsing go.mod: %v", err)
	}
	if !slices.Contains(direct, "k8s.io/apimachinery") {
		t.Errorf("go.mod does not require k8s.io/apimachinery directly; parsed %q", direct)
	}
	for _, mod := range disallowed(direct) {
		t.Errorf("go.mod requires %s directly; only %q are allowed", mod, allowedDirectDeps)
	}
}

// TestDirectDependenciesGoModEdit cross-checks the hand-written parser with the
// go command's own view, when the go command is available.
func TestDirectDependenciesGoModEdit(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH")
	}
	// "go mod edit -json" only parses go.mod: no network, no module cache.
	out, err := exec.Command(gobin, "mod", "edit", "-json").Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var parsed struct {
		Require []struct {
			Path     string
			Indirect bool
		}
	}
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatal(err)
	}
	var fromGo []string
	for _, r := range parsed.Require {
		if !r.Indirect {
			fromGo = append(fromGo, r.Path)
		}
	}
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	fromParser, err := directRequires(string(data))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(fromGo)
	slices.Sort(fromParser)
	if !slices.Equal(fromGo, fromParser) {
		t.Errorf("direct requirements: go mod edit says %q, parser says %q", fromGo, fromParser)
	}
	for _, mod := range disallowed(fromGo) {
		t.Errorf("go mod edit: %s is a direct requirement; only %q are allowed", mod, allowedDirectDeps)
	}
}

// TestDirectRequiresParser proves the check can fail: it runs the parser on
// synthetic go.mod texts.
func TestDirectRequiresParser(t *testing.T) {
	tests := []struct {
		name       string
		gomod      string
		want       []string
		disallowed []string
		wantErr    bool
	}{
		{
			name: "allowed only",
			gomod: `module example.com/m

go 1.26.0

require k8s.io/apimachinery v0.37.2

require (
	github.com/go-logr/logr v1.4.3 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
`,
			want: []string{"k8s.io/apimachinery"},
		},
		{
			name: "k8s.io/api sneaks in",
			gomod: `module example.com/m

go 1.26.0

require (
	k8s.io/api v0.37.2
	k8s.io/apimachinery v0.37.2
	golang.org/x/sync v0.24.0
)

require github.com/go-logr/logr v1.4.3 // indirect
`,
			want:       []string{"golang.org/x/sync", "k8s.io/api", "k8s.io/apimachinery"},
			disallowed: []string{"k8s.io/api"},
		},
		{
			name: "comments, quotes, replace and exclude blocks",
			gomod: `// leading comment
module "example.com/m"

go 1.26.0

toolchain go1.26.8

require (
	// a comment line inside the block
	"github.com/evil/dep" v1.0.0 // a comment, not indirect
	golang.org/x/sync v0.24.0 // indirect; but listed
	k8s.io/apimachinery v0.37.2
)

replace k8s.io/api => ../api

replace (
	example.com/x v1.0.0 => example.com/y v1.0.0
)

exclude (
	example.com/z v0.1.0
)

require (
)
`,
			want:       []string{"github.com/evil/dep", "k8s.io/apimachinery"},
			disallowed: []string{"github.com/evil/dep"},
		},
		{
			name:  "one-line require with indirect comment",
			gomod: "module m\nrequire golang.org/x/tools v0.1.0 // indirect\nrequire golang.org/x/mod v0.20.0\n",
			want:  []string{"golang.org/x/mod"}, disallowed: []string{"golang.org/x/mod"},
		},
		{
			name:    "unterminated block",
			gomod:   "module m\nrequire (\n\tk8s.io/apimachinery v0.37.2\n",
			wantErr: true,
		},
		{
			name:    "malformed line",
			gomod:   "module m\nrequire (\n\tk8s.io/apimachinery\n)\n",
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := directRequires(tt.gomod)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("directRequires() = %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("directRequires() = %q, want %q", got, tt.want)
			}
			if d := disallowed(got); !slices.Equal(d, tt.disallowed) {
				t.Errorf("disallowed() = %q, want %q", d, tt.disallowed)
			}
		})
	}
}

// disallowed returns the modules of direct that are not allowed.
func disallowed(direct []string) []string {
	var bad []string
	for _, m := range direct {
		if !slices.Contains(allowedDirectDeps, m) {
			bad = append(bad, m)
		}
	}
	return bad
}

// directRequires returns the module paths required by gomod without an
// "// indirect" comment, from one-line require directives and require
// blocks.
func directRequires(gomod string) ([]string, error) {
	var direct []string
	inRequire, inOther := false, false
	sc := bufio.NewScanner(strings.NewReader(gomod))
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		code, comment, _ := strings.Cut(line, "//")
		code = strings.TrimSpace(code)
		indirect := strings.HasPrefix(strings.TrimSpace(comment), "indirect")
		switch {
		case code == "":
			continue
		case inRequire || inOther:
			if code == ")" {
				inRequire, inOther = false, false
				continue
			}
			if inOther {
				continue
			}
			mod, err := requireSpec(code)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			if !indirect {
				direct = append(direct, mod)
			}
			continue
		}
		verb, rest := code, ""
		if i := strings.IndexAny(code, " \t("); i >= 0 {
			verb, rest = code[:i], strings.TrimSpace(code[i:])
		}
		block := rest == "("
		switch verb {
		case "require":
			if block {
				inRequire = true
				continue
			}
			mod, err := requireSpec(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			if !indirect {
				direct = append(direct, mod)
			}
		default:
			if block {
				inOther = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inRequire || inOther {
		return nil, fmt.Errorf("unterminated block at end of go.mod")
	}
	return direct, nil
}

// requireSpec parses "path version" and returns the path, unquoted.
func requireSpec(s string) (string, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return "", fmt.Errorf("malformed requirement %q", s)
	}
	return strings.Trim(f[0], `"`), nil
}

package informer_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestREADMEDependencyClaim: what README.md says of the root module's
// direct dependencies is what go.mod requires.
func TestREADMEDependencyClaim(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	direct, err := directRequires(string(gomod))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	m := regexp.MustCompile(`(\w+) direct dependenc(?:y|ies) \(([^)]*)\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal(`README.md no longer says "N direct dependencies (...)"`)
	}
	numbers := map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
	if n, ok := numbers[strings.ToLower(m[1])]; !ok || n != len(direct) {
		t.Errorf("README.md says %q direct dependencies, go.mod requires %d: %q", m[1], len(direct), direct)
	}
	var named []string
	for _, s := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[2], -1) {
		if strings.Contains(s[1], "/") && !strings.HasSuffix(s[1], ".go") && !strings.Contains(s[1], "_test") {
			named = append(named, s[1])
		}
	}
	slices.Sort(named)
	slices.Sort(direct)
	if !slices.Equal(named, direct) {
		t.Errorf("README.md names %q as direct dependencies, go.mod requires %q", named, direct)
	}
}

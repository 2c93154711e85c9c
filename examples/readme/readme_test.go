// Package readme checks that the pod watcher of the repository's README
// builds as written and, against a real kube-apiserver, runs.
package readme

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// podSnippet returns the Go block under "## Watch the pods of a real
// cluster" in README.md.
func podSnippet(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "## Watch the pods of a real cluster")
	if !ok {
		t.Fatal(`README.md has no "## Watch the pods of a real cluster"`)
	}
	_, block, ok := strings.Cut(section, "```go\n")
	if !ok {
		t.Fatal("no Go block in the section")
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("the Go block does not end")
	}
	return block
}

// program wraps the snippet into a main package: the imports it needs
// and the ctx it uses.
func program(snippet string) string {
	return `package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
` + snippet + `}
`
}

// build compiles the README's program (through an overlay: nothing is
// written into the module) and returns the binary's path.
func build(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(program(podSnippet(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(wd, "podprogram", "main.go"): src}})
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "pods")
	cmd := exec.Command("go", "build", "-overlay", overlayFile, "-o", bin, "./podprogram")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's pod watcher does not build: %v\n%s\n%s", err, out, program(podSnippet(t)))
	}
	return bin
}

// TestREADMEPodWatcherBuilds: the snippet compiles as written.
func TestREADMEPodWatcherBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	build(t)
}

// TestREADMEPodWatcherRuns: against a real kube-apiserver, the program
// prints the pods it was told about before it says how many are cached.
func TestREADMEPodWatcherRuns(t *testing.T) {
	env := kubetest.Need(t)
	bin := build(t)
	r := kubetest.NewREST(t, kubetest.Config(t))
	name := fmt.Sprintf("readme-%d", time.Now().UnixNano()%1e6)
	r.Must("POST", "/api/v1/namespaces/default/pods", map[string]any{"metadata": map[string]any{"name": name},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "example.com/c:1"}}}})
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env["KUBECONFIG"])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := string(out)
	add, count := strings.Index(got, "add default/"+name+"\n"), strings.Index(got, " pods in default\n")
	if add < 0 || count < 0 || add > count {
		t.Errorf("output:\n%s", got)
	}
}

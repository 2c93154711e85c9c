package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// syncWriter is a strings.Builder safe for the handler's goroutine.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestCRDWatch(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("crdwatch-%d", time.Now().UnixNano()%1e6)
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
	for run1 := range 2 { // the second run finds the CRD, and the first run's gizmo
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
		var out syncWriter
		err := run(ctx, cfg, ns, &out)
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run1+1, err, out.String())
		}
		got := out.String()
		wants := []string{fmt.Sprintf("synced: %d gizmos in %s\n", run1, ns), "color=teal size=3 (initial list: false)\n"}
		if run1 == 1 {
			wants = append(wants, "color=teal size=3 (initial list: true)\n")
		}
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run1+1, want, got)
			}
		}
	}
}

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

func TestCRDExample(t *testing.T) {
	cfg := kubetest.Config(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for run1 := range 2 { // the second run finds the CRD there already
		var out strings.Builder
		if err := run(ctx, cfg, "default", &out); err != nil {
			t.Fatalf("run %d: %v\n%s", run1+1, err, out.String())
		}
		for _, want := range []string{`resolved "wd" to widgets.example.com/v1 (kind Widget, namespaced true)`, "color=teal", "cached "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("run %d: output lacks %q:\n%s", run1+1, want, out.String())
			}
		}
	}
}

//go:build unix

package kube

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestExecWaitCancelled checks that a caller whose context ends stops
// waiting, while the run goes on for the others. The plugin waits on a
// FIFO that the test opens when it is ready.
func TestExecWaitCancelled(t *testing.T) {
	p := newPlugin(t, `read line < "$PLUGIN_DIR/gate"`+"\n"+pluginScript)
	gate := filepath.Join(p.dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	p.output(t, 0, credJSON(ExecAPIVersionV1, `{"token":"t"}`))
	a := newExecAuth(p.config(ExecAPIVersionV1), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.credential(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	// Opening the FIFO for writing waits for the plugin to open it.
	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if c, err := a.credential(context.Background()); err != nil || c.token != "t" || p.runs(t) != 1 {
		t.Fatalf("got %v after %d runs; want the one run's token", err, p.runs(t))
	}
}

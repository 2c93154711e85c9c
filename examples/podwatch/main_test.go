package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
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

func TestPodWatch(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("podwatch-%d", time.Now().UnixNano()%1e6)
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
	pod := func(name string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "example.com/c:1"}}}}
	}
	r.Must("POST", "/api/v1/namespaces/"+ns+"/pods", pod("p0"))
	r.Must("POST", "/api/v1/namespaces/"+ns+"/pods", pod("p1"))

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	var out syncWriter
	deleted := make(chan int, 1)
	go func() {
		// A change after the sync is printed too.
		for !strings.Contains(out.String(), "synced") && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		code, _ := r.Do("DELETE", "/api/v1/namespaces/"+ns+"/pods/p1", "", nil)
		deleted <- code
	}()
	if err := run(ctx, cfg, ns, &out); err != nil {
		t.Fatal(err)
	}
	if code := <-deleted; code != 200 {
		t.Errorf("DELETE: %d", code)
	}
	got := out.String()
	for _, want := range []string{"add    " + ns + "/p0 Pending\n", "add    " + ns + "/p1 Pending\n", "pods cached\n", "delete " + ns + "/p1\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// The adds of the initial list come before "synced".
	if strings.Index(got, "synced") < strings.LastIndex(got, "add    "+ns+"/p") {
		t.Errorf("synced printed before the initial adds:\n%s", got)
	}

	// Forbidden: the wait ends with the reason, not only a timeout.
	unprivileged, err := kube.Load(kube.LoadOptions{ExplicitPath: kubetest.Need(t)["KUBECONFIG"], Context: "informer-test-unprivileged"})
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(t.Context(), time.Second)
	defer cancel2()
	err = run(ctx2, unprivileged, ns, &out)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, kube.ErrForbidden) {
		t.Errorf("unprivileged: %v", err)
	}
}

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

func TestMetaWatch(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("metawatch-%d", time.Now().UnixNano()%1e6)
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
	const value = "do-not-print-me"
	r.Must("POST", "/api/v1/namespaces/"+ns+"/secrets", map[string]any{
		"metadata":   map[string]any{"name": "s0", "labels": map[string]string{"app": "web"}},
		"stringData": map[string]string{"password": value},
	})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	var out syncWriter
	updated := make(chan int, 1)
	go func() {
		for !strings.Contains(out.String(), "synced") && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		code, _ := r.Do("PATCH", "/api/v1/namespaces/"+ns+"/secrets/s0", "application/merge-patch+json",
			map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": "api"}}})
		updated <- code
	}()
	if err := run(ctx, cfg, kube.Resource{Version: "v1", Resource: "secrets"}, ns, &out); err != nil {
		t.Fatal(err)
	}
	if code := <-updated; code != 200 {
		t.Errorf("PATCH: %d", code)
	}
	got := out.String()
	for _, want := range []string{
		"add    PartialObjectMetadata " + ns + "/s0 labels app=web\n",
		"synced: 1 secrets (metadata only)\n",
		"update PartialObjectMetadata " + ns + "/s0 labels app=api\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, value) {
		t.Errorf("the secret's value was printed:\n%s", got)
	}
}

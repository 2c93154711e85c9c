package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestFactoryExample(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "ex-factory"}})
	r.Must("POST", "/api/v1/namespaces/ex-factory/configmaps", map[string]any{"metadata": map[string]any{"name": "before"}})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, "ex-factory", &out) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "cached:") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	r.Must("POST", "/api/v1/namespaces/ex-factory/configmaps", map[string]any{"metadata": map[string]any{"name": "after"}})
	for !strings.Contains(out.String(), "configmap add    ex-factory/after") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"synced true  configmaps/v1 in ex-factory", "synced true  pods/v1 in ex-factory", "synced true  services/v1 in ex-factory",
		"configmap add    ex-factory/before", "cached: 0 pods, 0 services, 1 configmaps", "configmap add    ex-factory/after",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

package typed_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	"github.com/informer-go/informer/typed"
)

// TestFactoryMetrics: FactoryOptions.Metrics and SourceMetrics give every
// informer of the factory, by name, its informer.Metrics and its Source's.
func TestFactoryMetrics(t *testing.T) {
	a := newFakeAPI(gadgetState{"ns", "a", "red", "x"}, gadgetState{"ns", "b", "red", "x"})
	var mu sync.Mutex
	lists, decoded := map[string]int{}, map[string]int{}
	opts := quietOpts()
	opts.Metrics = func(name string) informer.Metrics {
		return informer.Metrics{List: func(bool, string) { mu.Lock(); lists[name]++; mu.Unlock() }}
	}
	opts.SourceMetrics = func(name string) kubesrc.Metrics {
		return kubesrc.Metrics{Decoded: func(_ string, n int, _ int64) { mu.Lock(); decoded[name] += n; mu.Unlock() }}
	}
	f := newFakeFactory(t, a, opts)
	defer f.Shutdown()
	mustInformer(t, f, gadgets)
	f.Start(t.Context())
	if _, err := f.WaitForCacheSync(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lists) != 1 || len(decoded) != 1 {
		t.Fatalf("lists by informer %v, decoded objects by informer %v: want one informer each", lists, decoded)
	}
	for name, n := range lists {
		if n == 0 || decoded[name] != 2 {
			t.Errorf("informer %q: %d lists, %d objects decoded; want some and 2 (decoded: %v)", name, n, decoded[name], decoded)
		}
	}
}

// TestFactoryCreatesSnapshotDir: NewFactory creates a missing SnapshotDir,
// so that the informers' snapshots can be written into it.
func TestFactoryCreatesSnapshotDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "snapshots")
	opts := quietOpts()
	opts.SnapshotDir = dir
	f := newFakeFactory(t, newFakeAPI(gadgetState{"ns", "a", "red", "x"}), opts)
	defer f.Shutdown()
	mustInformer(t, f, gadgets)
	f.Start(t.Context())
	if _, err := f.WaitForCacheSync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteSnapshots(t.Context()); err != nil {
		t.Fatal(err)
	}
	if files, err := os.ReadDir(dir); err != nil || len(files) != 1 {
		t.Fatalf("snapshot directory: %v, %v; want one file", files, err)
	}
}

// TestFactorySnapshotDirNotADirectory: a SnapshotDir that cannot be
// created fails NewFactory, rather than every snapshot write later.
func TestFactorySnapshotDirNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	opts := quietOpts()
	opts.SnapshotDir = filepath.Join(file, "snapshots")
	if _, err := typed.NewFactory(&kube.Config{Host: "https://fake-apiserver.test"}, opts); err == nil {
		t.Fatal("NewFactory with a SnapshotDir under a file: no error")
	}
}

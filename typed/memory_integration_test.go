package typed_test

import (
	"context"
	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/typed"
)

// memoryObjects is how many ConfigMaps TestIntegrationMemory caches.
const memoryObjects = 5000

// liveHeap returns the live heap after two GCs.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestIntegrationMemory caches 5,000 ConfigMaps written by server-side
// apply (so each carries managedFields) three ways, with the Source's
// defaults (structural sharing on: JSON for the full objects, protobuf
// for metadata only), and logs the heap held per object: full objects
// with managedFields, full objects without (the factory's default), and
// metadata only. Metadata only must hold the least. (With sharing, the
// managedFields of objects written alike are shared, so dropping them
// saves little: about 5 B per object here, against 980 without sharing.)
func TestIntegrationMemory(t *testing.T) {
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	createNamespace(t, r, "typed-mem")
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%05d","labels":{"app":"mem","tier":"t%d"},"annotations":{"note":"an annotation of some length, as objects have"}},"data":{"config.yaml":"key: value\nother: %d\nlist: [a, b, c]\n","mode":"fast"}}`, i, i%7, i)
				code, out := r.Do("PATCH", fmt.Sprintf("/api/v1/namespaces/typed-mem/configmaps/cm-%05d?fieldManager=loader&force=true", i), "application/apply-patch+yaml", []byte(body))
				if code/100 != 2 {
					t.Errorf("apply %d: %d %.200s", i, code, out)
				}
			}
		})
	}
	for i := range memoryObjects {
		work <- i
	}
	close(work)
	wg.Wait()

	measure := func(name string, make func(f *typed.Factory) (interface{ Len() int }, error), opts typed.FactoryOptions) float64 {
		opts.Namespace = "typed-mem"
		f, _ := newFactory(t, opts)
		defer f.Shutdown()
		before := liveHeap()
		lenOf, err := make(f)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		f.Start(ctx)
		if _, err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if n := lenOf.Len(); n != memoryObjects {
			t.Fatalf("%s: %d objects cached, want %d", name, n, memoryObjects)
		}
		per := float64(liveHeap()-before) / memoryObjects
		runtime.KeepAlive(f)
		t.Logf("%-40s %7.0f B held per object", name, per)
		return per
	}
	full := measure("full objects with managedFields", func(f *typed.Factory) (interface{ Len() int }, error) {
		ref, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
		if err != nil {
			return nil, err
		}
		return ref.Informer().Lister(), nil
	}, typed.FactoryOptions{KeepManagedFields: true})
	trimmed := measure("full objects without managedFields", func(f *typed.Factory) (interface{ Len() int }, error) {
		ref, err := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
		if err != nil {
			return nil, err
		}
		return ref.Informer().Lister(), nil
	}, typed.FactoryOptions{})
	meta := measure("metadata only (without managedFields)", func(f *typed.Factory) (interface{ Len() int }, error) {
		ref, err := typed.Informer(f, typed.Metadata(configMaps), typed.Options[*metav1.PartialObjectMetadata]{})
		if err != nil {
			return nil, err
		}
		return ref.Informer().Lister(), nil
	}, typed.FactoryOptions{})
	if meta >= trimmed || meta >= full {
		t.Errorf("held per object: full %.0f, without managedFields %.0f, metadata only %.0f: metadata only should hold the least", full, trimmed, meta)
	}
	t.Logf("without managedFields: %.0f%% of full; metadata only: %.0f%% of full", 100*trimmed/full, 100*meta/full)
}

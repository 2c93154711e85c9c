// Package objects proves that Kubernetes' own types satisfy informer.Object,
// and can be cached, from a module allowed to depend on k8s.io/api.
package objects

import (
	"testing"

	"github.com/informer-go/informer"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	_ informer.Object = (*corev1.Pod)(nil)
	_ informer.Object = (*corev1.Node)(nil)
	_ informer.Object = (*metav1.PartialObjectMetadata)(nil)
	_ informer.Object = (*unstructured.Unstructured)(nil)
)

// cacheOne stores obj in an Indexer with the namespace index and reads it
// back by key and by namespace.
func cacheOne[T informer.Object](t *testing.T, obj T, wantKey string) {
	t.Helper()
	ix := informer.NewIndexer(informer.IndexerOptions[T]{
		Indexers: map[string]informer.IndexFunc[T]{informer.NamespaceIndex: informer.IndexByNamespace[T]()},
	})
	if err := ix.Add(obj); err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.Get(wantKey); !ok {
		t.Fatalf("%T not found under %q", obj, wantKey)
	}
	ns, _, _ := informer.SplitKey(wantKey)
	got := informer.NewLister(ix).Namespace(ns).List(nil)
	if len(got) != 1 {
		t.Fatalf("%T: namespace %q lists %d objects", obj, ns, len(got))
	}
}

func TestKubernetesTypesAreObjects(t *testing.T) {
	cacheOne(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}, "ns/p")
	cacheOne(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, "n")
	cacheOne(t, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"}}, "ns/m")
	u := &unstructured.Unstructured{}
	u.SetNamespace("ns")
	u.SetName("u")
	cacheOne(t, u, "ns/u")
}

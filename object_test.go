package informer_test

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informer-go/informer"
)

// plainObj is a user type that is not a Kubernetes object: it implements the
// four methods of informer.Object by hand.
type plainObj struct {
	ns, name, rv string
	labels       map[string]string
}

func (o *plainObj) GetNamespace() string         { return o.ns }
func (o *plainObj) GetName() string              { return o.name }
func (o *plainObj) GetResourceVersion() string   { return o.rv }
func (o *plainObj) GetLabels() map[string]string { return o.labels }

// plainValue implements Object with value receivers, so a non-pointer type
// can be stored too.
type plainValue struct{ ns, name string }

func (o plainValue) GetNamespace() string         { return o.ns }
func (o plainValue) GetName() string              { return o.name }
func (o plainValue) GetResourceVersion() string   { return "" }
func (o plainValue) GetLabels() map[string]string { return nil }

// Compile-time proof that the types the package documents satisfy Object.
var (
	_ informer.Object = (*plainObj)(nil)
	_ informer.Object = plainValue{}
	_ informer.Object = (*metav1.PartialObjectMetadata)(nil)
	_ informer.Object = (*unstructured.Unstructured)(nil)
	_ informer.Object = (*metav1.ObjectMeta)(nil)
	_ informer.Object = metav1.Object(nil)
)

func TestMetaKey(t *testing.T) {
	tests := []struct {
		name    string
		obj     *plainObj
		want    string
		wantErr error
	}{
		{name: "namespaced", obj: &plainObj{ns: "default", name: "web"}, want: "default/web"},
		{name: "cluster-scoped", obj: &plainObj{name: "node-1"}, want: "node-1"},
		{name: "name with dots and dashes", obj: &plainObj{ns: "kube-system", name: "a.b-c"}, want: "kube-system/a.b-c"},
		{name: "empty name", obj: &plainObj{ns: "default"}, wantErr: informer.ErrEmptyName},
		{name: "empty name and namespace", obj: &plainObj{}, wantErr: informer.ErrEmptyName},
		{name: "nil pointer", obj: nil, wantErr: informer.ErrNilObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := informer.MetaKey(tt.obj)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("MetaKey() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("MetaKey() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMetaKeyNilInterface(t *testing.T) {
	// A nil interface value and a typed nil inside an interface type
	// argument are both nil objects.
	if _, err := informer.MetaKey[metav1.Object](nil); !errors.Is(err, informer.ErrNilObject) {
		t.Errorf("MetaKey(nil interface) error = %v, want ErrNilObject", err)
	}
	var typedNil metav1.Object = (*metav1.ObjectMeta)(nil)
	if _, err := informer.MetaKey(typedNil); !errors.Is(err, informer.ErrNilObject) {
		t.Errorf("MetaKey(typed nil in interface) error = %v, want ErrNilObject", err)
	}
	if _, err := informer.MetaKey[*unstructured.Unstructured](nil); !errors.Is(err, informer.ErrNilObject) {
		t.Errorf("MetaKey(nil *Unstructured) error = %v, want ErrNilObject", err)
	}
}

func TestMetaKeyValueType(t *testing.T) {
	got, err := informer.MetaKey(plainValue{ns: "a", name: "b"})
	if err != nil || got != "a/b" {
		t.Fatalf("MetaKey(value) = %q, %v; want \"a/b\", nil", got, err)
	}
	if _, err := informer.MetaKey(plainValue{}); !errors.Is(err, informer.ErrEmptyName) {
		t.Fatalf("MetaKey(zero value) error = %v, want ErrEmptyName", err)
	}
}

func TestSplitKey(t *testing.T) {
	tests := []struct {
		key      string
		ns, name string
		wantErr  bool
	}{
		{key: "default/web", ns: "default", name: "web"},
		{key: "node-1", name: "node-1"},
		{key: "a/b", ns: "a", name: "b"},
		{key: "", wantErr: true},
		{key: "/", wantErr: true},
		{key: "/web", wantErr: true},
		{key: "default/", wantErr: true},
		{key: "a/b/c", wantErr: true},
		{key: "a//b", wantErr: true},
		{key: "//", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			ns, name, err := informer.SplitKey(tt.key)
			if tt.wantErr {
				if !errors.Is(err, informer.ErrInvalidKey) {
					t.Fatalf("SplitKey(%q) error = %v, want ErrInvalidKey", tt.key, err)
				}
				if ns != "" || name != "" {
					t.Fatalf("SplitKey(%q) = %q, %q on error, want empty", tt.key, ns, name)
				}
				return
			}
			if err != nil {
				t.Fatalf("SplitKey(%q) error = %v", tt.key, err)
			}
			if ns != tt.ns || name != tt.name {
				t.Fatalf("SplitKey(%q) = %q, %q; want %q, %q", tt.key, ns, name, tt.ns, tt.name)
			}
		})
	}
}

// TestMetaKeySplitKeyRoundTrip checks that SplitKey inverts MetaKey.
func TestMetaKeySplitKeyRoundTrip(t *testing.T) {
	for _, o := range []*plainObj{
		{ns: "default", name: "web"},
		{name: "cluster-thing"},
		{ns: "x", name: "y.z"},
	} {
		key, err := informer.MetaKey(o)
		if err != nil {
			t.Fatal(err)
		}
		ns, name, err := informer.SplitKey(key)
		if err != nil || ns != o.ns || name != o.name {
			t.Errorf("SplitKey(MetaKey(%v)) = %q, %q, %v", o, ns, name, err)
		}
	}
}

// TestObjectTypesInIndexer stores each kind of Object in an Indexer with the
// namespace index, showing that the constraint is all an Indexer needs.
func TestObjectTypesInIndexer(t *testing.T) {
	t.Run("plain struct", func(t *testing.T) {
		ix := informer.NewIndexer(informer.IndexerOptions[*plainObj]{
			Indexers: map[string]informer.IndexFunc[*plainObj]{informer.NamespaceIndex: informer.IndexByNamespace[*plainObj]()},
		})
		mustAdd(t, ix, &plainObj{ns: "a", name: "x", labels: map[string]string{"app": "web"}})
		mustAdd(t, ix, &plainObj{ns: "b", name: "y"})
		assertIndexKeys(t, ix, informer.NamespaceIndex, "a", "a/x")
	})

	t.Run("embedded ObjectMeta", func(t *testing.T) {
		type thing struct{ metav1.ObjectMeta }
		var _ informer.Object = (*thing)(nil)
		ix := informer.NewIndexer(informer.IndexerOptions[*thing]{
			Indexers: map[string]informer.IndexFunc[*thing]{
				informer.NamespaceIndex: informer.IndexByNamespace[*thing](),
				"app":                   informer.IndexByLabel[*thing]("app"),
			},
		})
		mustAdd(t, ix, &thing{metav1.ObjectMeta{Namespace: "a", Name: "x", Labels: map[string]string{"app": "web"}}})
		mustAdd(t, ix, &thing{metav1.ObjectMeta{Name: "cluster"}})
		assertIndexKeys(t, ix, informer.NamespaceIndex, "a", "a/x")
		assertIndexKeys(t, ix, informer.NamespaceIndex, "", "cluster")
		assertIndexKeys(t, ix, "app", "web", "a/x")
	})

	t.Run("PartialObjectMetadata", func(t *testing.T) {
		ix := informer.NewIndexer(informer.IndexerOptions[*metav1.PartialObjectMetadata]{
			Indexers: map[string]informer.IndexFunc[*metav1.PartialObjectMetadata]{
				informer.NamespaceIndex: informer.IndexByNamespace[*metav1.PartialObjectMetadata](),
			},
		})
		p := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: "7"}}
		mustAdd(t, ix, p)
		got, ok := ix.Get("ns/p")
		if !ok || got != p || got.GetResourceVersion() != "7" {
			t.Fatalf("Get = %v, %v", got, ok)
		}
		assertIndexKeys(t, ix, informer.NamespaceIndex, "ns", "ns/p")
	})

	t.Run("Unstructured", func(t *testing.T) {
		ix := informer.NewIndexer(informer.IndexerOptions[*unstructured.Unstructured]{
			Indexers: map[string]informer.IndexFunc[*unstructured.Unstructured]{
				informer.NamespaceIndex: informer.IndexByNamespace[*unstructured.Unstructured](),
				"tier":                  informer.IndexByLabel[*unstructured.Unstructured]("tier"),
			},
		})
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Widget")
		u.SetNamespace("ns")
		u.SetName("w")
		u.SetLabels(map[string]string{"tier": "front"})
		mustAdd(t, ix, u)
		if err := ix.Add(&unstructured.Unstructured{Object: map[string]any{}}); !errors.Is(err, informer.ErrEmptyName) {
			t.Fatalf("Add(unnamed Unstructured) error = %v, want ErrEmptyName", err)
		}
		assertIndexKeys(t, ix, informer.NamespaceIndex, "ns", "ns/w")
		assertIndexKeys(t, ix, "tier", "front", "ns/w")
	})

	t.Run("interface type argument", func(t *testing.T) {
		ix := informer.NewIndexer(informer.IndexerOptions[metav1.Object]{
			Indexers: map[string]informer.IndexFunc[metav1.Object]{informer.NamespaceIndex: informer.IndexByNamespace[metav1.Object]()},
		})
		mustAdd[metav1.Object](t, ix, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p"}})
		u := &unstructured.Unstructured{}
		u.SetNamespace("a")
		u.SetName("u")
		mustAdd[metav1.Object](t, ix, u)
		assertIndexKeys(t, ix, informer.NamespaceIndex, "a", "a/p", "a/u")
		if err := ix.Add(nil); !errors.Is(err, informer.ErrNilObject) {
			t.Fatalf("Add(nil interface) error = %v, want ErrNilObject", err)
		}
	})
}

func mustAdd[T informer.Object](t testing.TB, ix *informer.Indexer[T], obj T) {
	t.Helper()
	if err := ix.Add(obj); err != nil {
		t.Fatalf("Add: %v", err)
	}
}

// assertIndexKeys checks the keys of the objects indexed under value.
func assertIndexKeys[T informer.Object](t testing.TB, ix *informer.Indexer[T], index, value string, want ...string) {
	t.Helper()
	got, err := ix.IndexKeys(index, value)
	if err != nil {
		t.Fatalf("IndexKeys(%q, %q): %v", index, value, err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("IndexKeys(%q, %q) = %q, want %q", index, value, got, want)
	}
}

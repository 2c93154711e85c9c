package kube

import (
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSnapshotScope: the scope names the resource, namespace and
// selectors, so that a snapshot of another selection is refused.
func TestSnapshotScope(t *testing.T) {
	h := http.NotFoundHandler()
	scopes := map[string]bool{}
	for _, opts := range []Options{{}, {Namespace: "a"}, {Namespace: "b"}, {Namespace: "a", LabelSelector: "app=x"}, {Namespace: "a", FieldSelector: "metadata.name=w"}} {
		src, _ := newTestSource(t, h, opts)
		s := src.SnapshotScope()
		if scopes[s] {
			t.Errorf("options %+v: scope %q again", opts, s)
		}
		scopes[s] = true
	}
}

// TestSnapshotThroughSource: an informer over a Source writes a snapshot
// in the Source's JSON ("kube-json") and an informer over a Source of the
// same selection restores it through the Source's decoder; one of another
// namespace refuses it.
func TestSnapshotThroughSource(t *testing.T) {
	h := serveJSON(200, kubefixture.ListJSON("7", "", kubefixture.WidgetJSON("a", "w1", "5", "red"), kubefixture.WidgetJSON("a", "w2", "7", "blue")))
	src, _ := newTestSource(t, h, Options{Namespace: "a"})
	inf := informer.New(src, informer.Options[*kubefixture.Widget]{Logger: quietLogger, Reflector: informer.ReflectorOptions{WatchList: informer.WatchListOff}})
	runInformer(t, inf)
	if err := inf.WaitForSync(t.Context()); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	info, err := inf.WriteSnapshot(t.Context(), &buf)
	if err != nil || info.Format != "kube-json" || info.Objects != 2 || info.ResourceVersion != "7" {
		t.Fatalf("snapshot %+v, %v", info, err)
	}
	same, _ := newTestSource(t, h, Options{Namespace: "a"})
	back := informer.New(same, informer.Options[*kubefixture.Widget]{Logger: quietLogger})
	if _, err := back.Restore(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	w, ok := back.Lister().Get("a/w2")
	if !ok || w.Spec.Color != "blue" || w.ResourceVersion != "7" || w.Labels["app"] != "x" {
		t.Fatalf("restored %+v", w)
	}
	other, _ := newTestSource(t, h, Options{Namespace: "b"})
	if _, err := informer.New(other, informer.Options[*kubefixture.Widget]{Logger: quietLogger}).Restore(bytes.NewReader(buf.Bytes())); !errors.Is(err, informer.ErrSnapshotMismatch) {
		t.Errorf("restore into another namespace: %v, want ErrSnapshotMismatch", err)
	}
}

// TestSnapshotProtobuf: with Options.Protobuf and a type with a generated
// Marshal, snapshots are Kubernetes protobuf ("kube-protobuf"), read back
// by the Source's protobuf decoder through its sharing table: equal
// labels of restored objects are one map.
func TestSnapshotProtobuf(t *testing.T) {
	src, err := New[*metav1.PartialObjectMetadata](&kube.Config{Host: "https://127.0.0.1:1"}, configMapsRes, Options{Namespace: "a", Protobuf: kube.Protobuf[*metav1.PartialObjectMetadata]()})
	if err != nil {
		t.Fatal(err)
	}
	codec := src.SnapshotCodec()
	if codec.Format() != "kube-protobuf" {
		t.Fatalf("format %q", codec.Format())
	}
	decode := codec.NewDecoder()
	var objs []*metav1.PartialObjectMetadata
	for _, name := range []string{"w1", "w2", "w3"} {
		m := kubefixture.POM("a", name, "9")
		b, err := codec.Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode(b)
		if err != nil || got.Name != name || got.ResourceVersion != "9" || got.UID != m.UID || got.Labels["app"] != "x" {
			t.Fatalf("decoded %+v, %v", got, err)
		}
		objs = append(objs, got)
	}
	// The table takes a value the second time it sees it.
	if reflect.ValueOf(objs[1].Labels).UnsafePointer() != reflect.ValueOf(objs[2].Labels).UnsafePointer() {
		t.Error("equal labels of two restored objects are not shared")
	}
	if _, err := decode([]byte{0xff, 0xff, 0xff}); err == nil {
		t.Error("garbage decoded")
	}
}

// TestSnapshotJSONDecoder: the JSON snapshot codec reads back through the
// Source's sharing table (equal labels of restored objects are one map),
// and its errors name what failed, never the bytes.
func TestSnapshotJSONDecoder(t *testing.T) {
	src, _ := newTestSource(t, http.NotFoundHandler(), Options{Namespace: "a"})
	codec := src.SnapshotCodec()
	if codec.Format() != "kube-json" {
		t.Fatalf("format %q", codec.Format())
	}
	decode := codec.NewDecoder()
	var objs []*kubefixture.Widget
	for _, name := range []string{"w1", "w2", "w3"} {
		got, err := decode([]byte(kubefixture.WidgetJSON("a", name, "9", "red")))
		if err != nil || got.Name != name || got.Labels["app"] != "x" {
			t.Fatalf("decoded %+v, %v", got, err)
		}
		objs = append(objs, got)
	}
	// The table takes a value the second time it sees it.
	if reflect.ValueOf(objs[1].Labels).UnsafePointer() != reflect.ValueOf(objs[2].Labels).UnsafePointer() {
		t.Error("equal labels of two restored objects are not shared")
	}
	for _, bad := range []string{`{"metadata":{"name":"w","creationTimestamp":"secret-time"}}`, `{"metadata":{"name":"secret-name","labels":"secret-label"}}`, `{"metadata":{"name":"secret-name"},"spec":{"color":["secret-color"]}}`, `{"metadata":secret}`} {
		if _, err := decode([]byte(bad)); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("decoding %s: %v, want an error that quotes nothing", bad, err)
		}
	}
}

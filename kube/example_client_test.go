package kube_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

var configMaps = kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}

// ExampleNewClient creates, reads, updates and deletes a ConfigMap, and
// branches on the errors a program meets.
func ExampleNewClient() {
	server := newFakeConfigMaps()
	defer server.Close()
	cfg := &kube.Config{Host: server.URL} // usually kube.Default()

	client, err := kube.NewClient[*ConfigMap](cfg, configMaps, kube.ClientOptions{FieldManager: "example"})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()

	cm := &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "demo"}, Data: map[string]string{"color": "red"}}
	created, err := client.Create(ctx, cm, kube.WriteOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created at resourceVersion", created.ResourceVersion)
	if _, err := client.Create(ctx, cm, kube.WriteOptions{}); errors.Is(err, kube.ErrAlreadyExists) {
		fmt.Println("created again: already exists")
	}

	got, err := client.Get(ctx, "demo", "app", kube.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	got.Data["color"] = "green"
	updated, err := client.Update(ctx, got, kube.WriteOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("updated to", updated.Data["color"], "at resourceVersion", updated.ResourceVersion)

	// got still has the version it was read at: the server refuses a
	// second update from it.
	got.Data["color"] = "blue"
	if _, err := client.Update(ctx, got, kube.WriteOptions{}); errors.Is(err, kube.ErrConflict) {
		fmt.Println("stale update: conflict")
	}

	if _, err := client.Delete(ctx, "demo", "app", kube.DeleteOptions{UID: updated.UID}); err != nil {
		log.Fatal(err)
	}
	_, err = client.Delete(ctx, "demo", "app", kube.DeleteOptions{})
	fmt.Println("deleted again: not found:", errors.Is(err, kube.ErrNotFound), "ignored:", kube.IgnoreNotFound(err) == nil)
	// Output:
	// created at resourceVersion 101
	// created again: already exists
	// updated to green at resourceVersion 102
	// stale update: conflict
	// deleted again: not found: true ignored: true
}

// ExampleRetryOnConflict changes an object that other writers change
// too: each attempt reads it afresh and applies the change to what it
// read.
func ExampleRetryOnConflict() {
	server := newFakeConfigMaps()
	defer server.Close()
	client, err := kube.NewClient[*ConfigMap](&kube.Config{Host: server.URL}, configMaps, kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "counter", Namespace: "demo"}, Data: map[string]string{"n": "0"}}, kube.WriteOptions{}); err != nil {
		log.Fatal(err)
	}

	attempts := 0
	err = kube.RetryOnConflict(ctx, func(ctx context.Context) error {
		attempts++
		cm, err := client.Get(ctx, "demo", "counter", kube.GetOptions{})
		if err != nil {
			return err
		}
		if attempts == 1 { // another writer gets in between
			other := *cm
			other.Data = map[string]string{"n": "1"}
			if _, err := client.Update(ctx, &other, kube.WriteOptions{}); err != nil {
				return err
			}
		}
		var n int
		fmt.Sscan(cm.Data["n"], &n)
		cm.Data["n"] = fmt.Sprint(n + 1)
		_, err = client.Update(ctx, cm, kube.WriteOptions{})
		return err
	})
	cm, _ := client.Get(ctx, "demo", "counter", kube.GetOptions{})
	fmt.Println("err:", err, "attempts:", attempts, "n:", cm.Data["n"])
	// Output:
	// err: <nil> attempts: 2 n: 2
}

// ExampleClient_Patch changes one key of a ConfigMap with a JSON merge
// patch, without reading it first.
func ExampleClient_Patch() {
	server := newFakeConfigMaps()
	defer server.Close()
	client, err := kube.NewClient[*ConfigMap](&kube.Config{Host: server.URL}, configMaps, kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "demo"}, Data: map[string]string{"color": "red", "size": "L"}}, kube.WriteOptions{}); err != nil {
		log.Fatal(err)
	}
	patched, err := client.Patch(ctx, "demo", "app", types.MergePatchType, []byte(`{"data":{"color":"green","size":null}}`), kube.PatchOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(patched.Data, "at resourceVersion", patched.ResourceVersion)
	// Output:
	// map[color:green] at resourceVersion 102
}

// ExampleClient_Apply applies a configuration with server-side apply, as
// a dynamic client: an Unstructured object sets exactly the fields it
// names, which the field manager then owns.
func ExampleClient_Apply() {
	server := newFakeConfigMaps()
	defer server.Close()
	client, err := kube.NewClient[*unstructured.Unstructured](&kube.Config{Host: server.URL}, configMaps, kube.ClientOptions{FieldManager: "my-controller"})
	if err != nil {
		log.Fatal(err)
	}
	config := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "app", "namespace": "demo"},
		"data":     map[string]any{"color": "green"},
	}}
	applied, err := client.Apply(context.Background(), config, kube.PatchOptions{Force: true})
	if err != nil {
		log.Fatal(err)
	}
	data, _, _ := unstructured.NestedStringMap(applied.Object, "data")
	fmt.Println(applied.GetName(), data, "at resourceVersion", applied.GetResourceVersion())
	// Output:
	// app map[color:green] at resourceVersion 101
}

// ExampleClient_All reads a whole collection page by page.
func ExampleClient_All() {
	server := newFakeConfigMaps()
	defer server.Close()
	client, err := kube.NewClient[*ConfigMap](&kube.Config{Host: server.URL}, configMaps, kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		if _, err := client.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo"}}, kube.WriteOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	for cm, err := range client.All(ctx, "demo", kube.ListOptions{Limit: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(cm.Name)
	}
	// Output:
	// a
	// b
	// c
}

// Example_readYourWrites writes through a Client and waits until the
// informer's cache holds the write before reading the cache: the
// resourceVersion of the object a write returns is what
// WaitForResourceVersion waits for.
func Example_readYourWrites() {
	server := newFakeConfigMaps()
	defer server.Close()
	cfg := &kube.Config{Host: server.URL}
	client, err := kube.NewClient[*ConfigMap](cfg, configMaps, kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	src, err := kubesrc.New[*ConfigMap](cfg, configMaps, kubesrc.Options{Namespace: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	inf := informer.New(src, informer.Options[*ConfigMap]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		log.Fatal(err)
	}

	written, err := client.Create(ctx, &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "demo"}, Data: map[string]string{"color": "red"}}, kube.WriteOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := inf.WaitForResourceVersion(ctx, written.ResourceVersion); err != nil {
		log.Fatal(err)
	}
	cached, _ := inf.Lister().Namespace("demo").Get("app")
	fmt.Println("cached:", cached.Data["color"], "at resourceVersion", cached.ResourceVersion)
	cancel()
	<-done
	// Output:
	// cached: red at resourceVersion 101
}

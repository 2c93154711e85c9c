package kube_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Pod is a local Pod type, to show a mismatched type and resource.
type Pod struct{ ConfigMap }

// ExampleKindError shows what a type over the wrong resource gives: an
// error, not a cache of empty objects.
func ExampleKindError() {
	server := fakeAPIServer() // serves ConfigMaps
	defer server.Close()
	cfg := &kube.Config{Host: server.URL}
	src, err := kubesrc.New[*Pod](cfg, kube.Resource{Version: "v1", Resource: "configmaps"}, kubesrc.Options{Namespace: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	_, err = src.List(context.Background(), informer.ListOptions{})
	var ke *kube.KindError
	fmt.Println(errors.Is(err, kube.ErrWrongKind), errors.As(err, &ke))
	fmt.Println("got", ke.Got, "want", ke.Want, "from", ke.From)
	// Output:
	// true true
	// got ConfigMapList want PodList from the Go type name of T, *kube_test.Pod
}

// ExampleNew_unstructured lists a built-in resource as Unstructured: the
// items get apiVersion and kind from the list.
func ExampleNew_unstructured() {
	server := fakeAPIServer()
	defer server.Close()
	cfg := &kube.Config{Host: server.URL}
	src, err := kubesrc.New[*unstructured.Unstructured](cfg, kube.Resource{Version: "v1", Resource: "configmaps"}, kubesrc.Options{Namespace: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	page, err := src.List(context.Background(), informer.ListOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range page.Items {
		fmt.Println(u.GetAPIVersion(), u.GetKind(), u.GetNamespace()+"/"+u.GetName())
	}
	// Output:
	// v1 ConfigMap demo/app
	// v1 ConfigMap demo/db
}

// Example_lastError shows why an informer has not synced: the wait's
// error carries the last error from the server.
func Example_lastError() {
	server := fakeAPIServer()
	defer server.Close()
	cfg := &kube.Config{Host: server.URL}
	// A Pod over configmaps never syncs: every list fails the kind check.
	src, err := kubesrc.New[*Pod](cfg, kube.Resource{Version: "v1", Resource: "configmaps"}, kubesrc.Options{Namespace: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	inf := informer.New(src, informer.Options[*Pod]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	go inf.Run(ctx)
	err = informer.WaitForCacheSync(ctx, inf)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), errors.Is(err, kube.ErrWrongKind), errors.Is(inf.LastError(), kube.ErrWrongKind))
	// Output:
	// true true true
}

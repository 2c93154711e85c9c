package typed_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// Several resources through one factory: one connection pool, one rate
// limiter, shared informers.
func Example() {
	ctx := context.Background()
	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{Namespace: "default"})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Shutdown()
	// With typed/builtin: typed.Informer(f, builtin.Pods()).
	cms, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	nss, _ := typed.Informer(f, namespaces, typed.Options[*Namespace]{})
	reg, _ := cms.Informer().AddHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, _ bool) { fmt.Println("configmap", cm.Name) },
	}, informer.HandlerOptions{})
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		log.Fatal(err) // says which informer did not sync, and why
	}
	informer.WaitForCacheSync(ctx, reg) // the handler has seen the initial list
	defaults := cms.Lister().Namespace("default")
	fmt.Println(len(defaults.List(labels.Everything())), "configmaps;", len(nss.Lister().List(nil)), "namespaces")
	if !nss.Lister().Namespaced() {
		fmt.Println("namespaces are cluster-scoped")
	}
}

// Metadata only: names, labels, annotations and owners of many objects,
// for a fraction of the memory of the full objects.
func Example_metadata() {
	ctx := context.Background()
	cfg, _ := kube.Default()
	f, _ := typed.NewFactory(cfg, typed.FactoryOptions{})
	defer f.Shutdown()
	secrets := typed.Resource[*ConfigMap]{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	meta, _ := typed.Informer(f, typed.Metadata(secrets), typed.Options[*metav1.PartialObjectMetadata]{}) // no secret data is ever fetched
	f.Start(ctx)
	meta.WaitForSync(ctx)
	for m := range meta.Lister().ListSeq(nil) {
		fmt.Println(m.Namespace+"/"+m.Name, m.Labels)
	}
}

// A resource known only at run time, resolved by discovery from a short
// name, watched as Unstructured.
func Example_dynamic() {
	ctx := context.Background()
	cfg, _ := kube.Default()
	d, _ := typed.NewDiscovery(cfg, nil)
	deploy, err := d.Resolve(ctx, "deploy") // deployments.apps/v1, namespaced
	if err != nil {
		log.Fatal(err)
	}
	f, _ := typed.NewFactory(cfg, typed.FactoryOptions{})
	defer f.Shutdown()
	dyn, _ := typed.Informer(f, deploy.Dynamic(), typed.Options[*unstructured.Unstructured]{})
	f.Start(ctx)
	dyn.WaitForSync(ctx)
	for u := range dyn.Lister().ListSeq(nil) {
		fmt.Println(u.GetKind(), u.GetNamespace()+"/"+u.GetName())
	}
}

// A controller's write through the factory's connection pool and rate
// limiter, read back from the informer once it has the write.
func ExampleNewClient() {
	ctx := context.Background()
	cfg, _ := kube.Default()
	f, _ := typed.NewFactory(cfg, typed.FactoryOptions{Namespace: "default"})
	defer f.Shutdown()
	cms, _ := typed.Informer(f, configMaps, typed.Options[*ConfigMap]{})
	// With typed/builtin: typed.NewClient(f, builtin.ConfigMaps(), opts), in protobuf.
	client, err := typed.NewClient(f, configMaps, kube.ClientOptions{FieldManager: "my-controller"})
	if err != nil {
		log.Fatal(err)
	}
	f.Start(ctx)
	cms.WaitForSync(ctx)

	cm := &ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "default"}, Data: map[string]string{"color": "red"}}
	written, err := client.Create(ctx, cm, kube.WriteOptions{})
	if errors.Is(err, kube.ErrAlreadyExists) {
		written, err = client.Apply(ctx, cm, kube.PatchOptions{Force: true})
	}
	if err != nil {
		log.Fatal(err)
	}
	// Read your write: the cache has it once the informer has applied its
	// resourceVersion.
	if err := cms.Informer().WaitForResourceVersion(ctx, written.ResourceVersion); err != nil {
		log.Fatal(err)
	}
	cached := cms.Lister().Namespace("default")
	app, _ := cached.Get("app")
	fmt.Println(app.Data["color"])
}

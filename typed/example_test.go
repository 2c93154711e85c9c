package typed_test

import (
	"context"
	"fmt"
	"log"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/kube"
	"github.com/informer-go/informer/typed"
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
	cms, _ := typed.Informer(f, configMaps)
	nss, _ := typed.Informer(f, namespaces)
	reg, _ := cms.Informer().AddHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, _ bool) { fmt.Println("configmap", cm.Name) },
	}, informer.HandlerOptions{})
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		log.Fatal(err) // says which informer did not sync, and why
	}
	informer.WaitForCacheSync(ctx, reg) // the handler has seen the initial list
	defaults, _ := cms.Lister().Namespace("default")
	fmt.Println(len(defaults.List(labels.Everything())), "configmaps;", len(nss.Lister().List(nil)), "namespaces")
	if _, err := nss.Lister().Namespace("default"); err != nil {
		fmt.Println(err) // namespaces are cluster-scoped
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
	meta, _ := typed.Informer(f, typed.Metadata(secrets)) // no secret data is ever fetched
	f.Start(ctx)
	meta.WaitForSync(ctx)
	for m := range meta.Lister().Seq(nil) {
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
	dyn, _ := typed.Informer(f, deploy.Dynamic())
	f.Start(ctx)
	dyn.WaitForSync(ctx)
	for u := range dyn.Lister().Seq(nil) {
		fmt.Println(u.GetKind(), u.GetNamespace()+"/"+u.GetName())
	}
}

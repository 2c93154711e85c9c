package informer_test

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-go/informer"
)

func ExampleIndexer() {
	// Any type with namespace, name, resourceVersion and labels will do; a
	// struct embedding metav1.ObjectMeta has them.
	type configMap struct {
		metav1.ObjectMeta
		Data map[string]string
	}
	ix := informer.NewIndexer(informer.IndexerOptions[*configMap]{})

	_ = ix.Add(&configMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web", ResourceVersion: "1"}})
	_ = ix.Add(&configMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "db", ResourceVersion: "1"}})
	// Storing an object with the same key replaces it.
	_ = ix.Update(&configMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web", ResourceVersion: "2"}})
	_ = ix.Delete(&configMap{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "db"}})

	web, ok := ix.Get("prod/web") // keys are "namespace/name"
	fmt.Println(web.Name, web.ResourceVersion, ok)

	err := ix.Add(&configMap{}) // no name: no key
	fmt.Println(err)

	keys := ix.Keys()
	slices.Sort(keys)
	fmt.Println(keys, ix.Len())
	// Output:
	// web 2 true
	// informer: object has an empty name
	// [prod/web] 1
}

func ExampleIndexer_ByIndex() {
	type pod struct{ metav1.ObjectMeta }
	ix := informer.NewIndexer(informer.IndexerOptions[*pod]{
		Indexers: map[string]informer.IndexFunc[*pod]{
			informer.NamespaceIndex: informer.IndexByNamespace[*pod](),
			"app":                   informer.IndexByLabel[*pod]("app"),
		},
	})
	for _, p := range []*pod{
		{metav1.ObjectMeta{Namespace: "prod", Name: "web-1", Labels: map[string]string{"app": "web"}}},
		{metav1.ObjectMeta{Namespace: "prod", Name: "web-2", Labels: map[string]string{"app": "web"}}},
		{metav1.ObjectMeta{Namespace: "dev", Name: "web-1", Labels: map[string]string{"app": "web"}}},
		{metav1.ObjectMeta{Namespace: "prod", Name: "db-1", Labels: map[string]string{"app": "db"}}},
	} {
		_ = ix.Add(p)
	}

	// An index added later indexes the objects already stored. Index
	// functions append to dst, so they need not allocate.
	_ = ix.AddIndex("name", func(p *pod, dst []string) ([]string, error) {
		return append(dst, p.Name), nil
	})

	webPods, _ := ix.IndexKeys("app", "web")
	slices.Sort(webPods)
	fmt.Println("app=web:", webPods)

	prod, _ := ix.ByIndex(informer.NamespaceIndex, "prod")
	var names []string
	for _, p := range prod {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	fmt.Println("namespace prod:", names)

	// The iterator form copies nothing but a small batch at a time.
	seq, _ := ix.ByIndexSeq("name", "web-1")
	n := 0
	for range seq {
		n++
	}
	fmt.Println("named web-1:", n)

	apps, _ := ix.IndexValues("app")
	slices.Sort(apps)
	fmt.Println("apps:", apps)

	_, err := ix.ByIndex("owner", "x")
	fmt.Println(err)
	// Output:
	// app=web: [dev/web-1 prod/web-1 prod/web-2]
	// namespace prod: [db-1 web-1 web-2]
	// named web-1: 2
	// apps: [db web]
	// informer: no such index: "owner"
}

func ExampleLister_Namespace() {
	type service struct{ metav1.ObjectMeta }
	ix := informer.NewIndexer(informer.IndexerOptions[*service]{
		Indexers: map[string]informer.IndexFunc[*service]{
			informer.NamespaceIndex: informer.IndexByNamespace[*service](),
		},
	})
	for _, s := range []*service{
		{metav1.ObjectMeta{Namespace: "shop", Name: "cart", Labels: map[string]string{"tier": "front"}}},
		{metav1.ObjectMeta{Namespace: "shop", Name: "orders", Labels: map[string]string{"tier": "back"}}},
		{metav1.ObjectMeta{Namespace: "shop", Name: "payments", Labels: map[string]string{"tier": "back"}}},
		{metav1.ObjectMeta{Namespace: "blog", Name: "posts", Labels: map[string]string{"tier": "back"}}},
	} {
		_ = ix.Add(s)
	}
	lister := informer.NewLister(ix)

	shop := lister.Namespace("shop") // served by the namespace index
	backend, _ := labels.Parse("tier=back")
	var names []string
	for _, s := range shop.List(backend) {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	fmt.Println("shop backend:", names)

	cart, ok := shop.Get("cart")
	fmt.Println("shop/cart:", cart.Name, ok)
	_, ok = lister.Namespace("blog").Get("cart")
	fmt.Println("blog/cart:", ok)

	fmt.Println("everything:", len(lister.List(labels.Everything())))
	// Output:
	// shop backend: [orders payments]
	// shop/cart: cart true
	// blog/cart: false
	// everything: 4
}

func ExampleIndexFunc() {
	type secret struct{ metav1.ObjectMeta }
	// Index secrets by every team that may read them, from a label.
	byReader := func(s *secret, dst []string) ([]string, error) {
		for _, team := range []string{"blue", "green"} {
			if s.Labels["read-"+team] == "true" {
				dst = append(dst, team)
			}
		}
		return dst, nil
	}
	ix := informer.NewIndexer(informer.IndexerOptions[*secret]{
		Indexers: map[string]informer.IndexFunc[*secret]{"reader": byReader},
	})
	_ = ix.Add(&secret{metav1.ObjectMeta{Namespace: "a", Name: "both", Labels: map[string]string{"read-blue": "true", "read-green": "true"}}})
	_ = ix.Add(&secret{metav1.ObjectMeta{Namespace: "a", Name: "blue-only", Labels: map[string]string{"read-blue": "true"}}})
	_ = ix.Add(&secret{metav1.ObjectMeta{Namespace: "a", Name: "nobody"}})

	for _, team := range []string{"blue", "green", "red"} {
		keys, _ := ix.IndexKeys("reader", team)
		slices.Sort(keys)
		fmt.Println(team, keys)
	}
	// Output:
	// blue [a/blue-only a/both]
	// green [a/both]
	// red []
}

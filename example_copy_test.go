package informer_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer"
)

// Objects from a Lister, a handler or a Transform are the cache's, and
// from source/kube with sharing their labels, containers and the like are
// shared with other objects: copy, then write.
func ExampleLister_copyThenWrite() {
	ix := informer.NewIndexer(informer.IndexerOptions[*metav1.PartialObjectMetadata]{})
	_ = ix.Add(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: "shop", Name: "web-1", ResourceVersion: "7", Labels: map[string]string{"app": "web"},
	}})
	lister := informer.NewLister(ix)

	cached, _ := lister.Get("shop/web-1")
	// Not cached.Labels["tier"] = "gold": that would change the cached
	// object, and every object sharing its labels.
	c := cached.DeepCopy()
	c.Labels["tier"] = "gold" // the copy is the program's own
	// ... send c to the server (an Update or Apply); the informer's cache
	// gets the new state from the watch.

	fmt.Println(len(cached.Labels), len(c.Labels))
	// Output: 1 2
}

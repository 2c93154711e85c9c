package controller_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/controller"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/source/memory"
	"github.com/informer-go/informer/workqueue"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Object is any type with metav1.Object's accessors: here the metadata
// alone, where a program would use *corev1.ConfigMap or its own type.
type Object = *metav1.PartialObjectMetadata

func newObject(name string, owner *metav1.PartialObjectMetadata) Object {
	o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
	if owner != nil {
		o.OwnerReferences = []metav1.OwnerReference{controller.NewControllerRef(owner, "v1", "ConfigMap")}
	}
	return o
}

// A change to a child reconciles its controlling owner: OwnerKey as the
// key of the children's Enqueue.
func ExampleOwnerKey() {
	src := memory.New[Object](memory.Options{})
	app := newObject("app", nil)
	src.Create(app)
	src.Create(newObject("app-bundle", app))
	src.Create(newObject("unowned", nil))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inf := informer.New(src, informer.Options[Object]{})
	q := workqueue.New(workqueue.Options[string]{})
	reg, _ := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[Object]{
		Key:    controller.OwnerKey[Object](controller.OwnerKind{Kind: "ConfigMap"}),
		Update: controller.ResourceVersionChanged[Object], // no resyncs
	})
	go inf.Run(ctx)
	informer.WaitForCacheSync(ctx, inf, reg)
	key, _ := q.Get(ctx)
	fmt.Println("reconcile", key, "- queued:", q.Len())
	// Output:
	// reconcile ns/app - queued: 0
}

// Predicates decide from the old and new state whether an update is
// worth reconciling.
func ExampleOr() {
	old := &metav1.ObjectMeta{Name: "web", Generation: 1, ResourceVersion: "10", Labels: map[string]string{"tier": "web"}}
	status := old.DeepCopy()
	status.ResourceVersion = "11" // a status write: generation unchanged
	relabel := status.DeepCopy()
	relabel.ResourceVersion, relabel.Labels = "12", map[string]string{"tier": "api"}

	worth := controller.Or(controller.GenerationChanged[*metav1.ObjectMeta], controller.LabelsChanged[*metav1.ObjectMeta])
	fmt.Println("status write:", worth(old, status))
	fmt.Println("relabel:", worth(status, relabel))
	// Output:
	// status write: false
	// relabel: true
}

// The finalizer step at the start of a reconcile: while the object lives
// it gets the finalizer; once it is being deleted, cleanup runs, then the
// finalizer goes and the deletion finishes.
func ExampleFinalize() {
	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	type ConfigMap = metav1.PartialObjectMetadata // or *corev1.ConfigMap
	client, _ := kube.NewClient[*ConfigMap](cfg, kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, kube.ClientOptions{})
	var lister informer.Lister[*ConfigMap] // an informer's
	reconcile := func(ctx context.Context, key string) error {
		cm, ok := lister.Get(key)
		if !ok {
			return nil
		}
		cm, deleting, err := controller.Finalize(ctx, client, cm, "example.com/cleanup", func(ctx context.Context, cm *ConfigMap) error {
			return nil // delete what cm owns outside the cluster
		})
		if err != nil || deleting {
			return err // a conflict or a failed cleanup is retried
		}
		// ... make the world what cm asks for ...
		return workqueue.RequeueAfter(5 * time.Minute) // and check again later
	}
	_ = reconcile
}

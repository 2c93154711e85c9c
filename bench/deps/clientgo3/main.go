// Command clientgo3 is the three-resource dependency-weight program
// written with client-go: pods, services and deployments of the cluster
// named by $KUBECONFIG (or ~/.kube/config) through one shared informer
// factory, printing adds and the listers' counts once synced.
//
//	go run . [-duration 0]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	duration := flag.Duration("duration", 0, "stop after this long (0: until interrupted)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	kubeconfig := os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			log.Fatal(err)
		}
		kubeconfig = filepath.Join(home, ".kube", "config")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		log.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	pods := factory.Core().V1().Pods()
	services := factory.Core().V1().Services()
	deployments := factory.Apps().V1().Deployments()
	for _, inf := range []cache.SharedIndexInformer{pods.Informer(), services.Informer(), deployments.Informer()} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				if m, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
					fmt.Println("add", m)
				}
			},
		}); err != nil {
			log.Fatal(err)
		}
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			log.Fatalf("%v did not sync", typ)
		}
	}
	p, _ := pods.Lister().List(labels.Everything())
	s, _ := services.Lister().List(labels.Everything())
	d, _ := deployments.Lister().List(labels.Everything())
	fmt.Println(len(p), "pods,", len(s), "services,", len(d), "deployments")
	<-ctx.Done()
}

// Command informer is the dependency-weight program written with this
// library: watch the pods of the cluster named by $KUBECONFIG (or
// ~/.kube/config, or the in-cluster service account), print every add, and
// list the cache through the lister once synced.
//
//	go run ./deps/informer [-duration 0]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
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

	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	pods, err := kubesrc.New[*corev1.Pod](cfg, kube.Resource{Version: "v1", Resource: "pods"}, kubesrc.Options{})
	if err != nil {
		log.Fatal(err)
	}
	inf := informer.New(pods, informer.Options[*corev1.Pod]{})
	inf.AddHandler(informer.HandlerFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, _ bool) { fmt.Println("add", p.Namespace+"/"+p.Name) },
	}, informer.HandlerOptions{})
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("synced: %d pods listed\n", len(inf.Lister().List(labels.Everything())))
	<-done
}

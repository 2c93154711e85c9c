// Command podwatch watches the pods of a real cluster, with the credentials
// kubectl would use ($KUBECONFIG, ~/.kube/config, or the service account
// when run in a pod), prints every change, and lists the cache once synced.
//
//	go run ./podwatch [-n namespace] [-duration 0]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
)

func main() {
	namespace := flag.String("n", "", "namespace (default: all namespaces)")
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
	pods, err := kube.New[*corev1.Pod](cfg, kube.Resource{Version: "v1", Resource: "pods"}, kube.Options{Namespace: *namespace})
	if err != nil {
		log.Fatal(err)
	}
	inf := informer.New(pods, informer.Options[*corev1.Pod]{})
	inf.AddHandler(informer.HandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { fmt.Println("add   ", p.Namespace+"/"+p.Name, p.Status.Phase) },
		UpdateFunc: func(_, p *corev1.Pod) { fmt.Println("update", p.Namespace+"/"+p.Name, p.Status.Phase) },
		DeleteFunc: func(d informer.Deleted[*corev1.Pod]) { fmt.Println("delete", d.Object.Namespace+"/"+d.Object.Name) },
	}, informer.HandlerOptions{})
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("synced at resourceVersion %s: %d pods cached, %d in namespace %q\n",
		inf.LastSyncResourceVersion(), inf.Indexer().Len(), len(inf.Lister().Namespace("default").List(nil)), "default")
	<-done
}

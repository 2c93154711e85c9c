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
	"io"
	"log"
	"os"
	"os/signal"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
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
	if err := run(ctx, cfg, *namespace, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run watches the pods of namespace ("" for all) until ctx ends. It
// returns an error if the cache does not sync.
func run(ctx context.Context, cfg *kube.Config, namespace string, out io.Writer) error {
	pods, err := kubesrc.New[*corev1.Pod](cfg, kube.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}, kubesrc.Options{Namespace: namespace})
	if err != nil {
		return err
	}
	defer pods.Close()
	inf := informer.New(pods, informer.Options[*corev1.Pod]{})
	reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { fmt.Fprintln(out, "add   ", p.Namespace+"/"+p.Name, p.Status.Phase) },
		UpdateFunc: func(_, p *corev1.Pod) { fmt.Fprintln(out, "update", p.Namespace+"/"+p.Name, p.Status.Phase) },
		DeleteFunc: func(d informer.Deleted[*corev1.Pod]) {
			fmt.Fprintln(out, "delete", d.Object.Namespace+"/"+d.Object.Name)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	// The cache and this handler: inf.WaitForSync alone may return before
	// the handler has printed the initial list.
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		<-done
		return err // a timeout says why: the last error from the server
	}
	fmt.Fprintf(out, "synced at resourceVersion %s: %d pods cached\n", inf.LastSyncResourceVersion(), inf.Lister().Len())
	<-done
	return nil
}

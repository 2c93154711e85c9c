// Command factory3 is the three-resource dependency-weight program written
// with this library: pods, services and deployments of the cluster named
// by $KUBECONFIG (or ~/.kube/config, or in-cluster) through one
// typed.Factory, printing adds and the listers' counts once synced.
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

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
)

// printAdds prints the key of every object added to ref's informer.
func printAdds[T informer.Object](ref *typed.Ref[T], err error) *typed.Ref[T] {
	if err != nil {
		log.Fatal(err)
	}
	ref.Informer().AddHandler(informer.HandlerFuncs[T]{
		AddFunc: func(obj T, _ bool) { fmt.Println("add", obj.GetNamespace()+"/"+obj.GetName()) },
	}, informer.HandlerOptions{})
	return ref
}

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
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Shutdown()
	pods := printAdds(informerOf(f, builtin.Pods()))
	services := printAdds(informerOf(f, builtin.Services()))
	deployments := printAdds(informerOf(f, builtin.Deployments()))
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(pods.Lister().List(nil)), "pods,", len(services.Lister().List(nil)), "services,", len(deployments.Lister().List(nil)), "deployments")
	<-ctx.Done()
}

// informerOf is the factory's informer of res with the default options.
func informerOf[T informer.Object](f *typed.Factory, res typed.Resource[T]) (*typed.Ref[T], error) {
	return typed.Informer(f, res, typed.Options[T]{})
}

// Command factory watches several resources of a real cluster through one
// typed.Factory: one connection pool, one rate limiter, shared informers
// and their listers. It prints each change, then a summary once synced.
//
//	go run ./factory [-n namespace] [-duration 0]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sync"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
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
	if err := run(ctx, cfg, *namespace, os.Stdout); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}

// run watches pods, services and configmaps until ctx ends.
func run(ctx context.Context, cfg *kube.Config, namespace string, out io.Writer) error {
	out = &lockedWriter{w: out} // handlers print from their own goroutines
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{Namespace: namespace})
	if err != nil {
		return err
	}
	defer f.Shutdown()
	pods, err := typed.Informer(f, builtin.Pods(), typed.Options[*corev1.Pod]{})
	if err != nil {
		return err
	}
	services, err := typed.Informer(f, builtin.Services(), typed.Options[*corev1.Service]{})
	if err != nil {
		return err
	}
	configMaps, err := typed.Informer(f, builtin.ConfigMaps(), typed.Options[*corev1.ConfigMap]{})
	if err != nil {
		return err
	}
	reg, err := configMaps.Informer().AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc:    func(cm *corev1.ConfigMap, _ bool) { fmt.Fprintln(out, "configmap add   ", cm.Namespace+"/"+cm.Name) },
		UpdateFunc: func(_, cm *corev1.ConfigMap) { fmt.Fprintln(out, "configmap update", cm.Namespace+"/"+cm.Name) },
		DeleteFunc: func(d informer.Deleted[*corev1.ConfigMap]) {
			fmt.Fprintln(out, "configmap delete", d.Object.Namespace+"/"+d.Object.Name)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	f.Start(ctx)
	results, err := f.WaitForCacheSync(ctx)
	for _, r := range results {
		fmt.Fprintf(out, "synced %-5v %s\n", r.Synced, r.Informer)
	}
	if err != nil {
		return err
	}
	if err := informer.WaitForCacheSync(ctx, reg); err != nil { // the handler saw the initial list
		return err
	}
	fmt.Fprintf(out, "cached: %d pods, %d services, %d configmaps\n",
		len(pods.Lister().List(nil)), len(services.Lister().List(nil)), len(configMaps.Lister().List(nil)))
	<-ctx.Done()
	return nil
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

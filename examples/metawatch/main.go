// Command metawatch watches only the metadata of a resource's objects
// (names, labels, annotations, owners): the server sends
// PartialObjectMetadata instead of whole objects, so a cache of Secrets
// never holds their data, and a cache of big objects stays small. It
// prints every change with the object's labels.
//
//	go run ./metawatch [-resource secrets] [-group ""] [-version v1] [-n namespace] [-duration 0]
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func main() {
	var res kube.Resource
	flag.StringVar(&res.Resource, "resource", "secrets", "resource (plural, as in URLs)")
	flag.StringVar(&res.Group, "group", "", `API group ("" for the core group)`)
	flag.StringVar(&res.Version, "version", "v1", "API version")
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
	if err := run(ctx, cfg, res, *namespace, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run watches the metadata of res's objects until ctx ends.
func run(ctx context.Context, cfg *kube.Config, res kube.Resource, namespace string, out io.Writer) error {
	// *metav1.PartialObjectMetadata makes the Source ask for metadata only;
	// Protobuf, optional, makes it smaller on the wire.
	src, err := kubesrc.New[*metav1.PartialObjectMetadata](cfg, res, kubesrc.Options{
		Namespace: namespace,
		Protobuf:  kube.Protobuf[*metav1.PartialObjectMetadata](),
	})
	if err != nil {
		return err
	}
	defer src.Close()
	inf := informer.New(src, informer.Options[*metav1.PartialObjectMetadata]{})
	show := func(what string, m *metav1.PartialObjectMetadata) {
		fmt.Fprintf(out, "%-6s %s %s/%s labels %s\n", what, m.Kind, m.Namespace, m.Name, labels.Set(m.Labels))
	}
	reg, err := inf.AddHandler(informer.HandlerFuncs[*metav1.PartialObjectMetadata]{
		AddFunc:    func(m *metav1.PartialObjectMetadata, _ bool) { show("add", m) },
		UpdateFunc: func(_, m *metav1.PartialObjectMetadata) { show("update", m) },
		DeleteFunc: func(d informer.Deleted[*metav1.PartialObjectMetadata]) { show("delete", d.Object) },
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		<-done
		return err
	}
	fmt.Fprintf(out, "synced: %d %s (metadata only)\n", inf.Lister().Len(), res.Resource)
	<-done
	return nil
}

// Command podindex keeps a cache of pods indexed by the node they run on
// and answers "which pods run on node X?" from the index, without a
// request and without scanning the cache: client-go's
// cache.Indexers{"node": ...} + indexer.ByIndex, with kubesrc.New and
// informer.Options.Indexers.
//
//	go run ./podindex [-n namespace] [node...]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
)

// byNode is the name of the index.
const byNode = "node"

// nodeOf indexes a pod by spec.nodeName; a pod not scheduled yet is
// indexed under "" (unscheduled).
func nodeOf(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }

func main() {
	namespace := flag.String("n", "", "namespace (default: all namespaces)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(ctx, cfg, *namespace, flag.Args(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run syncs a pod cache with the node index, then prints the pods of each
// node asked for (all nodes when none is).
func run(ctx context.Context, cfg *kube.Config, namespace string, nodes []string, out io.Writer) error {
	pods, err := kubesrc.New[*corev1.Pod](cfg, kube.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}, kubesrc.Options{Namespace: namespace})
	if err != nil {
		return err
	}
	defer pods.Close()
	inf := informer.New(pods, informer.Options[*corev1.Pod]{
		Indexers: map[string]informer.IndexFunc[*corev1.Pod]{byNode: informer.IndexValuesFunc(nodeOf)},
	})
	ctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { stop(); <-done }()
	if err := inf.WaitForSync(ctx); err != nil { // no handler: the cache is all we wait for
		return err
	}
	ix := inf.Lister()
	if len(nodes) == 0 {
		if nodes, err = ix.IndexValues(byNode); err != nil { // every node that has pods
			return err
		}
		slices.Sort(nodes)
		if len(nodes) == 0 {
			fmt.Fprintln(out, "no pods")
			return nil
		}
	}
	for _, node := range nodes {
		onNode, err := ix.ByIndex(byNode, node)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(onNode))
		for _, p := range onNode {
			names = append(names, p.Namespace+"/"+p.Name)
		}
		slices.Sort(names)
		label := node
		if label == "" {
			label = "(unscheduled)"
		}
		fmt.Fprintf(out, "%s: %d pods %v\n", label, len(names), names)
	}
	return nil
}

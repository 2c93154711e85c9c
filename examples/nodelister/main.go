// Command nodelister lists the nodes of a real cluster that match a label
// selector, through a Lister over a synced cache: the classic client-go
// example, without client-go.
//
//	go run ./nodelister [-l 'node-role.kubernetes.io/worker'] [-by zone-label]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func main() {
	selector := flag.String("l", "", "label selector, as kubectl's -l")
	by := flag.String("by", "topology.kubernetes.io/zone", "label to group the nodes by")
	flag.Parse()
	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), cfg, *selector, *by, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run syncs a cache of all nodes once, then lists from it.
func run(ctx context.Context, cfg *kube.Config, selector, by string, out io.Writer) error {
	sel, err := labels.Parse(selector)
	if err != nil {
		return fmt.Errorf("-l %q: %w", selector, err)
	}
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{})
	if err != nil {
		return err
	}
	defer f.Shutdown()
	nodes, err := typed.Informer(f, builtin.Nodes(), typed.Options[*corev1.Node]{})
	if err != nil {
		return err
	}
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		return err
	}
	groups := map[string][]string{}
	for n := range nodes.Lister().ListSeq(sel) {
		groups[n.Labels[by]] = append(groups[n.Labels[by]], n.Name)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range groups {
			if !yield(k) {
				return
			}
		}
	})
	total := 0
	for _, k := range keys {
		names := groups[k]
		slices.Sort(names)
		total += len(names)
		fmt.Fprintf(out, "%s=%q: %v\n", by, k, names)
	}
	fmt.Fprintf(out, "%d nodes match %q\n", total, sel.String())
	return nil
}

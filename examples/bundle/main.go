// Command bundle is a controller that owns children: for every ConfigMap
// of a namespace labelled bundle.example.com/source=true it keeps a
// ConfigMap "<name>-bundle" whose key "bundle" holds the source's data as
// sorted key=value lines, owned by the source (an owner reference with
// controller: true). Deleting a bundle brings it back, changing a source
// updates its bundle, and deleting a source runs the controller's
// finalizer, which deletes the bundle before the source goes.
//
//	go run ./bundle -namespace default [-workers 2] [-recheck 5m] [-kubeconfig ~/.kube/config]
//
// It uses each part of package controller: OwnerKey (a change to a
// bundle reconciles its source), update predicates (a source's
// finalizer or annotation changes are not worth a reconcile), Finalize
// (cleanup while a source is being deleted), and workqueue.RequeueAfter
// (a periodic recheck that is not a failure).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/controller"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
	"github.com/informer-go/informer/workqueue"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// SourceLabel marks the ConfigMaps to bundle, with the value "true".
	SourceLabel = "bundle.example.com/source"
	// OwnerLabel marks a bundle with the name of its source.
	OwnerLabel = "bundle.example.com/owner"
	// Finalizer holds a source until its bundle is deleted.
	Finalizer = "bundle.example.com/cleanup"
	// Suffix is appended to a source's name to name its bundle.
	Suffix = "-bundle"
)

// Options are the program's flags.
type Options struct {
	Namespace string
	Workers   int
	// Recheck is how often a source is reconciled again when nothing
	// changed, to repair what the watch cannot see; 0 never.
	Recheck time.Duration
	Logger  *slog.Logger
}

func main() {
	var o Options
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	flag.StringVar(&o.Namespace, "namespace", "default", "namespace of the sources and their bundles")
	flag.IntVar(&o.Workers, "workers", 2, "reconcile workers")
	flag.DurationVar(&o.Recheck, "recheck", 5*time.Minute, "reconcile each source again after this long (0: never)")
	flag.Parse()
	o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: *kubeconfig})
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, cfg, o); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

// Run runs the controller until ctx ends, and returns once everything it
// started has stopped.
func Run(ctx context.Context, cfg *kube.Config, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{Namespace: o.Namespace, Logger: log})
	if err != nil {
		return err
	}
	defer f.Shutdown()
	cms, err := typed.Informer(f, builtin.ConfigMaps(), typed.Options[*corev1.ConfigMap]{})
	if err != nil {
		return err
	}
	client, err := typed.NewClient(f, builtin.ConfigMaps(), kube.ClientOptions{FieldManager: "bundle"})
	if err != nil {
		return err
	}
	b := &bundler{inf: cms.Informer(), client: client, recheck: o.Recheck, log: log}
	q := workqueue.New(workqueue.Options[string]{Name: "bundle", Logger: log})

	// Sources: every change worth a reconcile (not the finalizer this
	// controller adds, nor an annotation), and a source that stops being
	// one (Filter accepts the old state).
	sources, err := workqueue.Enqueue(b.inf, q, workqueue.EnqueueOptions[*corev1.ConfigMap]{
		Filter: isSource,
		Update: controller.Or(dataChanged, controller.LabelsChanged[*corev1.ConfigMap], controller.DeletionStarted[*corev1.ConfigMap]),
	})
	if err != nil {
		return err
	}
	// Bundles: any change stored (not a resync) reconciles the owner.
	bundles, err := workqueue.Enqueue(b.inf, q, workqueue.EnqueueOptions[*corev1.ConfigMap]{
		Key:    controller.OwnerKey[*corev1.ConfigMap](controller.OwnerKind{Kind: "ConfigMap"}),
		Update: controller.ResourceVersionChanged[*corev1.ConfigMap],
	})
	if err != nil {
		return err
	}
	f.Start(ctx)
	if err := informer.WaitForCacheSync(ctx, b.inf, sources, bundles); err != nil {
		return err
	}
	return q.Run(ctx, max(o.Workers, 1), b.reconcile)
}

// bundler reconciles sources.
type bundler struct {
	inf     *informer.Informer[*corev1.ConfigMap]
	client  *kube.Client[*corev1.ConfigMap]
	recheck time.Duration
	log     *slog.Logger
}

func isSource(cm *corev1.ConfigMap) bool { return cm.Labels[SourceLabel] == "true" }

func dataChanged(old, new *corev1.ConfigMap) bool { return !maps.Equal(old.Data, new.Data) }

// reconcile makes the bundle of the source namespace/name what the
// source says.
func (b *bundler) reconcile(ctx context.Context, key string) error {
	src, ok := b.inf.Lister().Get(key)
	if !ok {
		return nil // gone: its finalizer deleted the bundle first
	}
	if !isSource(src) {
		// No longer a source: let its bundle and finalizer go.
		if err := b.cleanup(ctx, src); err != nil {
			return err
		}
		_, err := controller.RemoveFinalizer(ctx, b.client, src, Finalizer)
		return err
	}
	src, deleting, err := controller.Finalize(ctx, b.client, src, Finalizer, b.cleanup)
	if err != nil || deleting {
		return err
	}
	want := bundleOf(src)
	cur, ok := b.inf.Lister().Get(src.Namespace + "/" + want.Name)
	var wrote *corev1.ConfigMap
	switch {
	case !ok:
		wrote, err = b.client.Create(ctx, want, kube.WriteOptions{})
	case !ownedBy(cur, src):
		b.log.Warn("bundle: the bundle's name is taken by a ConfigMap this source does not own", "source", key, "bundle", want.Name)
		return nil
	case cur.Data["bundle"] == want.Data["bundle"] && maps.Equal(cur.Labels, want.Labels):
		return b.again()
	default:
		want.ResourceVersion = cur.ResourceVersion // a 409 if the cache is behind: retried
		wrote, err = b.client.Update(ctx, want, kube.WriteOptions{})
	}
	if err != nil {
		return err
	}
	b.log.Info("bundle: wrote", "bundle", src.Namespace+"/"+want.Name, "resourceVersion", wrote.ResourceVersion)
	// Read your write: the next reconcile sees this bundle.
	if err := b.inf.WaitForResourceVersion(ctx, wrote.ResourceVersion); err != nil {
		return err
	}
	return b.again()
}

// again is the result of a reconcile that succeeded: come back after
// recheck, if set, without it counting as a failure.
func (b *bundler) again() error {
	if b.recheck > 0 {
		return workqueue.RequeueAfter(b.recheck)
	}
	return nil
}

// cleanup deletes the bundle of src, if src owns it. It is safe to run
// again.
func (b *bundler) cleanup(ctx context.Context, src *corev1.ConfigMap) error {
	cur, ok := b.inf.Lister().Get(src.Namespace + "/" + src.Name + Suffix)
	if !ok || !ownedBy(cur, src) {
		// None cached: this controller waits for its own writes, so none
		// was made (and the garbage collector deletes one it missed, by
		// its owner reference).
		return nil
	}
	// Precondition: the bundle as cached, not another of the same name.
	_, err := b.client.Delete(ctx, cur.Namespace, cur.Name, kube.DeleteOptions{UID: cur.UID})
	return kube.IgnoreNotFound(err)
}

// ownedBy reports whether src is bundle's controller.
func ownedBy(bundle, src *corev1.ConfigMap) bool {
	ref, ok := controller.ControllerOf(bundle, controller.OwnerKind{Kind: "ConfigMap"})
	return ok && ref.UID == src.UID
}

// bundleOf is the bundle that src should have.
func bundleOf(src *corev1.ConfigMap) *corev1.ConfigMap {
	var lines strings.Builder
	for _, k := range slices.Sorted(maps.Keys(src.Data)) {
		fmt.Fprintf(&lines, "%s=%s\n", k, src.Data[k])
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       src.Namespace,
			Name:            src.Name + Suffix,
			Labels:          map[string]string{OwnerLabel: src.Name},
			OwnerReferences: []metav1.OwnerReference{controller.NewControllerRef(src, "v1", "ConfigMap")},
		},
		Data: map[string]string{"bundle": lines.String()},
	}
}

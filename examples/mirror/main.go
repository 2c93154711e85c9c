// Command mirror keeps namespace dst a copy of the ConfigMaps of namespace
// src: every ConfigMap of src has a copy of the same name in dst, with the
// same data and labels, and a copy whose source is gone is deleted. It is
// a whole controller without client-go: a shared informer factory (src
// and dst cached), a work queue, the typed write client, leader election
// among replicas, and an event on each copy it writes.
//
//	go run ./mirror -src src -dst dst [-id mirror-0] [-workers 4] [-kubeconfig ~/.kube/config]
//
// Run as many replicas as you like: they elect a leader on the Lease
// "mirror" in dst, and only the leader reconciles; the others keep their
// caches warm, and one of them takes over within the lease duration (15 s)
// if the leader dies, within the retry period (2 s) if it shuts down
// (SIGINT, SIGTERM), which it does gracefully: the workers finish, the
// last events are written and the lease is released.
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
	"sync"
	"syscall"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/events"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
	"github.com/informer-go/informer/workqueue"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ManagedBy is the label that marks the copies the mirror made: it deletes
// no other ConfigMap of dst.
const ManagedBy = "mirror.example.com/source"

// Options are the program's flags.
type Options struct {
	Src, Dst string
	// Identity names this replica in the lease and its events; "" means
	// the host name and a random suffix.
	Identity string
	Workers  int
	// LeaseDuration, RenewDeadline and RetryPeriod of the election; 0
	// means client-go's defaults (15 s, 10 s, 2 s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	Logger                                    *slog.Logger
}

func main() {
	var o Options
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	flag.StringVar(&o.Src, "src", "src", "namespace to mirror from")
	flag.StringVar(&o.Dst, "dst", "dst", "namespace to mirror to (also holds the lease)")
	flag.StringVar(&o.Identity, "id", "", "identity of this replica (default: host name and a random suffix)")
	flag.IntVar(&o.Workers, "workers", 4, "reconcile workers")
	flag.DurationVar(&o.LeaseDuration, "lease-duration", 0, "lease duration (default 15s)")
	flag.DurationVar(&o.RenewDeadline, "renew-deadline", 0, "renew deadline (default 10s)")
	flag.DurationVar(&o.RetryPeriod, "retry-period", 0, "retry period (default 2s)")
	flag.Parse()
	o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: *kubeconfig})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mirror:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, cfg, o); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "mirror:", err)
		os.Exit(1)
	}
}

// Run runs one replica until ctx ends: its caches all along, the workers
// while it leads. It returns once everything it started has stopped.
func Run(ctx context.Context, cfg *kube.Config, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	// One connection pool for the informers, the writes, the lease and the
	// events.
	hc, err := cfg.HTTPClient()
	if err != nil {
		return err
	}
	defer hc.CloseIdleConnections()

	f, err := typed.NewFactory(cfg, typed.FactoryOptions{HTTPClient: hc, Logger: log})
	if err != nil {
		return err
	}
	defer f.Shutdown()
	cms := builtin.ConfigMaps()
	src, err := typed.Informer(f, cms, typed.Options[*corev1.ConfigMap]{Namespace: o.Src})
	if err != nil {
		return err
	}
	dst, err := typed.Informer(f, cms, typed.Options[*corev1.ConfigMap]{Namespace: o.Dst})
	if err != nil {
		return err
	}
	client, err := typed.NewClient(f, cms, kube.ClientOptions{FieldManager: "mirror"})
	if err != nil {
		return err
	}

	// The lease has a rate limiter of its own: a burst of writes never
	// delays a renewal.
	leases, err := leaderelection.NewLeaseClient(cfg, kube.ClientOptions{HTTPClient: hc})
	if err != nil {
		return err
	}
	elector, err := leaderelection.New(leases, leaderelection.Options{
		Namespace: o.Dst, Name: "mirror", Identity: o.Identity,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod,
		Logger: log,
	})
	if err != nil {
		return err
	}
	eventClient, err := typed.NewClient(f, events.Events, kube.ClientOptions{})
	if err != nil {
		return err
	}
	recorder, err := events.NewRecorder(events.EventClientOf(eventClient), events.Options{
		ReportingController: "example.com/mirror", ReportingInstance: elector.Identity(), Logger: log,
	})
	if err != nil {
		return err
	}

	// The caches run in every replica, so that a new leader starts warm.
	// The recorder outlives the elector: what the last term recorded is
	// written before Run returns.
	var wg sync.WaitGroup
	recorderCtx, stopRecorder := context.WithCancel(context.WithoutCancel(ctx))
	wg.Go(func() { _ = recorder.Run(recorderCtx) })
	f.Start(ctx)
	defer func() {
		stopRecorder()
		wg.Wait()
	}()
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		return err
	}
	m := &mirror{o: o, src: src.Informer(), dst: dst.Informer(), client: client, rec: recorder, log: log}
	return elector.Run(ctx, m.lead)
}

// mirror is the controller of one replica.
type mirror struct {
	o        Options
	src, dst *informer.Informer[*corev1.ConfigMap]
	client   *kube.Client[*corev1.ConfigMap]
	rec      *events.Recorder
	log      *slog.Logger
}

// lead reconciles while this replica leads: a new queue fed by both
// caches (their current objects first, so that a new leader reconciles
// everything once), and the workers, until ctx ends.
func (m *mirror) lead(ctx context.Context) {
	q := workqueue.New(workqueue.Options[string]{Name: "mirror", Logger: m.log})
	byName := func(cm *corev1.ConfigMap) (string, bool) { return cm.Name, true }
	fromSrc, err := workqueue.Enqueue(m.src, q, workqueue.EnqueueOptions[*corev1.ConfigMap]{Key: byName})
	if err != nil {
		m.log.Error("mirror: watching src", "err", err)
		return
	}
	defer fromSrc.Remove()
	fromDst, err := workqueue.Enqueue(m.dst, q, workqueue.EnqueueOptions[*corev1.ConfigMap]{Key: byName})
	if err != nil {
		m.log.Error("mirror: watching dst", "err", err)
		return
	}
	defer fromDst.Remove()
	_ = q.Run(ctx, max(m.o.Workers, 1), m.reconcile)
}

// reconcile makes dst/name what src/name says, from the caches.
func (m *mirror) reconcile(ctx context.Context, name string) error {
	s, inSrc := m.src.Lister().Get(m.o.Src + "/" + name)
	d, inDst := m.dst.Lister().Get(m.o.Dst + "/" + name)
	switch {
	case !inSrc && !inDst:
		return nil
	case !inSrc:
		if d.Labels[ManagedBy] != m.o.Src {
			return nil // not a copy: not ours to delete
		}
		// Preconditions: the copy as cached, not a newer object of the
		// same name.
		_, err := m.client.Delete(ctx, m.o.Dst, name, kube.DeleteOptions{UID: d.UID, ResourceVersion: d.ResourceVersion})
		if err = kube.IgnoreNotFound(err); err != nil {
			return err
		}
		m.rec.Eventf(events.Ref(builtin.ConfigMaps(), d), nil, events.Normal, "SourceDeleted", "Delete", "%s/%s is gone", m.o.Src, name)
		return nil
	}
	want := m.copyOf(s)
	var wrote *corev1.ConfigMap
	var err error
	action := "Create"
	if !inDst {
		wrote, err = m.client.Create(ctx, want, kube.WriteOptions{})
	} else {
		if same(d, want) {
			return nil
		}
		action = "Update"
		want.ResourceVersion = d.ResourceVersion // optimistic concurrency
		wrote, err = m.client.Update(ctx, want, kube.WriteOptions{})
	}
	if err != nil {
		// A conflict or a name taken: the cache is behind; the queue
		// retries once it has caught up. An unknown outcome likewise.
		return err
	}
	src := events.Ref(builtin.ConfigMaps(), s)
	m.rec.Eventf(events.Ref(builtin.ConfigMaps(), wrote), &src, events.Normal, "Mirrored", action, "copied from %s/%s", m.o.Src, name)
	// Read your writes: the next reconcile of name sees this copy.
	return m.dst.WaitForResourceVersion(ctx, wrote.ResourceVersion)
}

// copyOf is the copy of s that dst should hold.
func (m *mirror) copyOf(s *corev1.ConfigMap) *corev1.ConfigMap {
	labels := maps.Clone(s.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[ManagedBy] = m.o.Src
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: m.o.Dst, Name: s.Name, Labels: labels},
		Data:       s.Data,
		BinaryData: s.BinaryData,
		Immutable:  s.Immutable,
	}
}

// same reports whether the copy d already is want.
func same(d, want *corev1.ConfigMap) bool {
	return maps.Equal(d.Labels, want.Labels) && maps.Equal(d.Data, want.Data) &&
		maps.EqualFunc(d.BinaryData, want.BinaryData, func(a, b []byte) bool { return string(a) == string(b) })
}

// Command sharded stamps every ConfigMap of a namespace with the checksum
// of its data (annotation example.com/checksum), with the work shared
// between its replicas: each replica caches and reconciles only the
// ConfigMaps whose uid hashes into its ranges, and the ranges move when
// replicas come and go.
//
//	go run ./sharded -namespace work [-id sharded-0] [-workers 4] [-kubeconfig ~/.kube/config]
//
// Run three replicas and each holds a third of the ConfigMaps in its
// cache. They coordinate through Leases named sharded-<id> in the
// namespace (package shard/ring): a replica that joins, leaves (SIGINT,
// SIGTERM: its Lease is deleted at once) or dies (its Lease expires after
// the lease duration, 15 s) changes everyone's ranges, and a range moves
// only once its old owner has stopped working it, so a ConfigMap is never
// reconciled by two replicas at once. With kube-apiserver's
// ShardedListAndWatch feature gate on, the server sends each replica only
// its share; without it each replica receives everything and keeps its
// share (shard/ring and kubesrc.Options.Shard say more): each replica's
// "sharded: working" log line says which (server_filtered, received,
// dropped).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/shard/ring"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
	"github.com/informer-go/informer/workqueue"
	corev1 "k8s.io/api/core/v1"
)

// Annotations the controller writes.
const (
	// Checksum is the SHA-256 of the ConfigMap's data, in hex.
	Checksum = "example.com/checksum"
	// StampedBy names the replica and assignment that wrote Checksum.
	StampedBy = "example.com/stamped-by"
)

// Options are the program's flags.
type Options struct {
	Namespace string
	// Identity names this replica in its Lease; "" means the host name and
	// a random suffix.
	Identity string
	Workers  int
	// LeaseDuration, RenewDeadline and RetryPeriod of the ring; 0 means
	// 15 s, 10 s, 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	Logger                                    *slog.Logger
	// Trace, when set, receives a line per reconcile: "reconcile KEY WHO
	// START END" (Unix nanoseconds), for the test's overlap check.
	Trace io.Writer
}

func main() {
	var o Options
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	flag.StringVar(&o.Namespace, "namespace", "default", "namespace whose ConfigMaps to stamp (also holds the Leases)")
	flag.StringVar(&o.Identity, "id", "", "identity of this replica (default: host name and a random suffix)")
	flag.IntVar(&o.Workers, "workers", 4, "reconcile workers")
	flag.DurationVar(&o.LeaseDuration, "lease-duration", 0, "lease duration (default 15s)")
	flag.DurationVar(&o.RenewDeadline, "renew-deadline", 0, "renew deadline (default 10s)")
	flag.DurationVar(&o.RetryPeriod, "retry-period", 0, "retry period (default 2s)")
	trace := flag.Bool("trace", false, "print a line per reconcile on stdout")
	flag.Parse()
	o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *trace {
		o.Trace = os.Stdout
	}
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: *kubeconfig})
	if err != nil {
		fmt.Fprintln(os.Stderr, "sharded:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, cfg, o); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "sharded:", err)
		os.Exit(1)
	}
}

// Run runs one replica until ctx ends, and returns once everything it
// started has stopped and its Lease is gone.
func Run(ctx context.Context, cfg *kube.Config, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	hc, err := cfg.HTTPClient()
	if err != nil {
		return err
	}
	defer hc.CloseIdleConnections()
	leases, err := ring.NewLeaseClient(cfg, kube.ClientOptions{HTTPClient: hc})
	if err != nil {
		return err
	}
	member, err := ring.New(leases, ring.Options{
		Namespace: o.Namespace, Name: "sharded", Identity: o.Identity,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod, Logger: log,
	})
	if err != nil {
		return err
	}
	cms := builtin.ConfigMaps()
	client, err := kube.NewClient[*corev1.ConfigMap](cfg, kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
		kube.ClientOptions{HTTPClient: hc, FieldManager: "sharded"})
	if err != nil {
		return err
	}
	// Each assignment gets a factory sharded over its ranges, a queue and
	// workers; all of them stop (the queue and its keys are dropped)
	// before the ranges move on.
	return member.Run(ctx, func(ctx context.Context, a ring.Assignment) {
		who := fmt.Sprintf("%s#%d", a.Identity, a.Epoch)
		f, err := typed.NewFactory(cfg, typed.FactoryOptions{HTTPClient: hc, Logger: log, Shard: a.Ranges})
		if err != nil {
			log.Error("sharded: factory", "err", err)
			return
		}
		defer f.Shutdown()
		ref, err := typed.Informer(f, cms, typed.Options[*corev1.ConfigMap]{Namespace: o.Namespace})
		if err != nil {
			log.Error("sharded: informer", "err", err)
			return
		}
		q := workqueue.New(workqueue.Options[string]{Name: "sharded", Logger: log})
		if _, err := workqueue.Enqueue(ref.Informer(), q, workqueue.EnqueueOptions[*corev1.ConfigMap]{}); err != nil {
			log.Error("sharded: enqueue", "err", err)
			return
		}
		f.Start(ctx)
		if _, err := f.WaitForCacheSync(ctx); err != nil {
			return
		}
		a.Synced()
		// server_filtered: the server applied the shard selector (the
		// ShardedListAndWatch gate); false: this replica received the
		// whole collection and dropped what is not its own.
		st := ref.ShardStats()
		log.Info("sharded: working", "ranges", a.Ranges.String(), "cached", ref.Lister().Len(), "epoch", a.Epoch,
			"server_filtered", st.ServerFiltered, "received", st.Received, "dropped", st.Dropped)
		_ = q.Run(ctx, max(o.Workers, 1), func(ctx context.Context, key string) error {
			start := time.Now()
			err := stamp(ctx, ref, client, key, who)
			if o.Trace != nil {
				fmt.Fprintf(o.Trace, "reconcile %s %s %d %d\n", key, who, start.UnixNano(), time.Now().UnixNano())
			}
			return err
		})
	})
}

// stamp writes the checksum of a ConfigMap's data into its annotations,
// conditional on the version cached: a conflict retries once the cache
// has caught up.
func stamp(ctx context.Context, ref *typed.Ref[*corev1.ConfigMap], client *kube.Client[*corev1.ConfigMap], key, who string) error {
	cm, ok := ref.Lister().Get(key)
	if !ok {
		return nil
	}
	sum := checksum(cm.Data)
	if cm.Annotations[Checksum] == sum {
		return nil
	}
	next := cm.DeepCopy()
	next.Annotations = maps.Clone(cm.Annotations)
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	next.Annotations[Checksum], next.Annotations[StampedBy] = sum, who
	wrote, err := client.Update(ctx, next, kube.WriteOptions{})
	if err != nil {
		return err
	}
	return ref.Informer().WaitForResourceVersion(ctx, wrote.ResourceVersion)
}

// checksum is the SHA-256 of data's keys and values, in key order.
func checksum(data map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(data)) {
		fmt.Fprintf(h, "%d:%s=%d:%s;", len(k), k, len(data[k]), data[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

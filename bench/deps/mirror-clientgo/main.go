// Command mirror-clientgo is examples/mirror written with client-go, for
// bench/deps's weights: it keeps namespace dst a copy of the ConfigMaps of
// namespace src, with client-go's shared informers, work queue, clientset,
// leader election on a Lease and events.k8s.io recorder.
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/workqueue"
)

const managedBy = "mirror.example.com/source"

func main() {
	src := flag.String("src", "src", "namespace to mirror from")
	dst := flag.String("dst", "dst", "namespace to mirror to")
	id := flag.String("id", "", "identity")
	flag.Parse()
	kubeconfig := os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		home, _ := os.UserHomeDir()
		kubeconfig = filepath.Join(home, ".kube", "config")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	if *id == "" {
		*id, _ = os.Hostname()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	srcF := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(*src))
	dstF := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(*dst))
	m := &mirror{src: *src, dst: *dst, cs: cs,
		srcL: srcF.Core().V1().ConfigMaps().Lister(), dstL: dstF.Core().V1().ConfigMaps().Lister(),
		q: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    m.enqueue,
		UpdateFunc: func(_, obj any) { m.enqueue(obj) },
		DeleteFunc: m.enqueue,
	}
	_, _ = srcF.Core().V1().ConfigMaps().Informer().AddEventHandler(handler)
	_, _ = dstF.Core().V1().ConfigMaps().Informer().AddEventHandler(handler)
	srcF.Start(ctx.Done())
	dstF.Start(ctx.Done())
	srcF.WaitForCacheSync(ctx.Done())
	dstF.WaitForCacheSync(ctx.Done())

	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	_ = broadcaster.StartRecordingToSinkWithContext(ctx)
	defer broadcaster.Shutdown()
	m.rec = broadcaster.NewRecorder(scheme.Scheme, "example.com/mirror")

	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: *dst, Name: "mirror"},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: *id},
	}
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { m.run(ctx, 4) },
			OnStoppedLeading: func() {},
		},
	})
}

type mirror struct {
	src, dst   string
	cs         kubernetes.Interface
	srcL, dstL listersv1.ConfigMapLister
	q          workqueue.TypedRateLimitingInterface[string]
	rec        events.EventRecorder
}

func (m *mirror) enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	if _, name, err := cache.SplitMetaNamespaceKey(key); err == nil {
		m.q.Add(name)
	}
}

func (m *mirror) run(ctx context.Context, workers int) {
	for range workers {
		go func() {
			for {
				name, shutdown := m.q.Get()
				if shutdown {
					return
				}
				if err := m.reconcile(ctx, name); err != nil {
					m.q.AddRateLimited(name)
				} else {
					m.q.Forget(name)
				}
				m.q.Done(name)
			}
		}()
	}
	<-ctx.Done()
	m.q.ShutDown()
}

func (m *mirror) reconcile(ctx context.Context, name string) error {
	s, err := m.srcL.ConfigMaps(m.src).Get(name)
	inSrc := err == nil
	d, err := m.dstL.ConfigMaps(m.dst).Get(name)
	inDst := err == nil
	cms := m.cs.CoreV1().ConfigMaps(m.dst)
	switch {
	case !inSrc && !inDst:
		return nil
	case !inSrc:
		if d.Labels[managedBy] != m.src {
			return nil
		}
		err := cms.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &d.UID, ResourceVersion: &d.ResourceVersion}})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		m.rec.Eventf(d, nil, corev1.EventTypeNormal, "SourceDeleted", "Delete", "%s/%s is gone", m.src, name)
		return nil
	}
	labels := maps.Clone(s.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[managedBy] = m.src
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: m.dst, Name: name, Labels: labels}, Data: s.Data, BinaryData: s.BinaryData}
	var wrote *corev1.ConfigMap
	action := "Create"
	if !inDst {
		wrote, err = cms.Create(ctx, want, metav1.CreateOptions{FieldManager: "mirror"})
	} else {
		if maps.Equal(d.Labels, want.Labels) && maps.Equal(d.Data, want.Data) {
			return nil
		}
		action = "Update"
		want.ResourceVersion = d.ResourceVersion
		wrote, err = cms.Update(ctx, want, metav1.UpdateOptions{FieldManager: "mirror"})
	}
	if err != nil {
		return err
	}
	m.rec.Eventf(wrote, s, corev1.EventTypeNormal, "Mirrored", action, "copied from %s/%s", m.src, name)
	return nil
}

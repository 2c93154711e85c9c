// Command mirror-ctrlruntime is examples/mirror written with
// controller-runtime, for bench/deps's weights: it keeps namespace dst a
// copy of the ConfigMaps of namespace src, with a manager (cache of both
// namespaces, leader election on a Lease released on shutdown), a
// controller, the manager's client and its events.k8s.io recorder.
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

const managedBy = "mirror.example.com/source"

func main() {
	src := flag.String("src", "src", "namespace to mirror from")
	dst := flag.String("dst", "dst", "namespace to mirror to")
	flag.Parse()
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Cache:                         cache.Options{DefaultNamespaces: map[string]cache.Config{*src: {}, *dst: {}}},
		LeaderElection:                true,
		LeaderElectionID:              "mirror",
		LeaderElectionNamespace:       *dst,
		LeaderElectionReleaseOnCancel: true,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := &mirror{src: *src, dst: *dst, c: mgr.GetClient(), rec: mgr.GetEventRecorder("example.com/mirror")}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type mirror struct {
	src, dst string
	c        client.Client
	rec      recorder.EventRecorder
}

// Reconcile mirrors the ConfigMap of the request's name, whichever
// namespace changed.
func (m *mirror) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	name := req.Name
	var s, d corev1.ConfigMap
	err := m.c.Get(ctx, types.NamespacedName{Namespace: m.src, Name: name}, &s)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	inSrc := err == nil
	err = m.c.Get(ctx, types.NamespacedName{Namespace: m.dst, Name: name}, &d)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	inDst := err == nil
	switch {
	case !inSrc && !inDst:
		return ctrl.Result{}, nil
	case !inSrc:
		if d.Labels[managedBy] != m.src {
			return ctrl.Result{}, nil
		}
		err := m.c.Delete(ctx, &d, client.Preconditions{UID: &d.UID, ResourceVersion: &d.ResourceVersion})
		if err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		m.rec.Eventf(&d, nil, corev1.EventTypeNormal, "SourceDeleted", "Delete", "%s/%s is gone", m.src, name)
		return ctrl.Result{}, nil
	}
	labels := maps.Clone(s.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[managedBy] = m.src
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: m.dst, Name: name, Labels: labels}, Data: s.Data, BinaryData: s.BinaryData}
	action := "Create"
	if !inDst {
		err = m.c.Create(ctx, want, client.FieldOwner("mirror"))
	} else {
		if maps.Equal(d.Labels, want.Labels) && maps.Equal(d.Data, want.Data) {
			return ctrl.Result{}, nil
		}
		action = "Update"
		want.ResourceVersion = d.ResourceVersion
		err = m.c.Update(ctx, want, client.FieldOwner("mirror"))
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	m.rec.Eventf(want, &s, corev1.EventTypeNormal, "Mirrored", action, "copied from %s/%s", m.src, name)
	return ctrl.Result{}, nil
}

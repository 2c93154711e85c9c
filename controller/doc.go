// Package controller has the parts every controller needs beyond the
// informer and the work queue, on any Kubernetes type (anything with
// metav1.Object's accessors):
//
//   - OwnerKey maps an object to the key of its controlling owner of a
//     given kind (the owner reference with controller: true), for
//     workqueue.EnqueueOptions.Key: a change to a child reconciles its
//     owner. NewControllerRef makes that reference.
//   - Update predicates on the old and new state, for
//     workqueue.EnqueueOptions.Update: GenerationChanged,
//     LabelsChanged, AnnotationsChanged, ResourceVersionChanged,
//     DeletionStarted, and Or to combine them.
//   - Finalizers: EnsureFinalizer and RemoveFinalizer patch the
//     object's finalizers (a merge patch conditional on its
//     resourceVersion: a conflict is retried by the queue), and Finalize
//     runs cleanup while the object is being deleted, then lets it go.
//
// workqueue.RequeueAfter completes them: a reconcile that returns it is
// called again after a while, without counting as a failure.
package controller

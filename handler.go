package informer

// Handler receives an informer's notifications. Calls to one Handler are
// made one at a time, from one goroutine, in order; different handlers run
// concurrently. A handler is never called while the informer holds a lock,
// so it may read the Lister and add or remove handlers.
//
// Per key, a handler sees states in the source's order: a state may be
// skipped (see HandlerOptions.CoalesceAbove), never repeated out of order.
//
// After a relist (an expired resourceVersion, a failed watch), a handler
// hears only of what changed: OnUpdate for an object at another
// resourceVersion, OnAdd for a new one, OnDelete (FinalStateUnknown) for
// one that vanished; objects found unchanged are not reported unless
// HandlerOptions.RelistUnchanged asks for it.
//
// Objects are read-only. The objects a handler gets (and those of the
// Lister and the Indexer) are the cache's, shared with every other
// handler and reader, and a decoder may share their parts between
// objects too (source/kube decodes identical containers, volumes, label
// maps... of different objects into one value: see its Sharing option).
// A handler may read them, keep them (they never change: a later state
// is a new object), pass them on, and use them as the base of a copy; to
// change something, deep-copy first (the types of k8s.io/api have
// DeepCopy) and write into the copy. It may not write into them: not
// set a field, not append to or write an element of a slice, not set or
// delete a map key, not write through a pointer, of the object or of
// anything reachable from it, even for a moment. A shallow copy
// (c := *pod) may have its own fields replaced (c.Labels = newMap), but
// what it shares with the original (c.Labels["x"] = "y",
// c.Spec.Containers[0].Image = ...) stays read-only. The safe pattern:
//
//	c := obj.DeepCopy() // copy, then write
//	c.Labels["x"] = "y"
//
// What a write does anyway: with client-go, or source/kube with
// SharingOff, it changes the one object, in the cache and for every
// handler, until its next change from the server; with sharing (the
// default) it changes every object that holds the written value now
// (the pods of one Deployment share their labels, containers, env...).
// Objects decoded afterwards are never affected: source/kube checks
// each shared value before handing it out again, decodes afresh the one
// found written into, and reports it (a SharedWriteError to OnError
// and the log, Health.Mutations). Options.DetectMutations (or
// INFORMER_MUTATION_DETECTOR=1) finds every write into a cached object
// when its key next changes.
type Handler[T Object] interface {
	// OnAdd reports an object new to this handler. isInInitialList is true
	// for the objects of the first list, and for the cache's contents replayed
	// to a handler added after the informer started.
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate reports a change. On a periodic resync, or when a relist
	// finds an object unchanged and HandlerOptions.RelistUnchanged is set,
	// old and new have the same resourceVersion.
	OnUpdate(old, new T)
	// OnDelete reports a deletion, with the object's last known state.
	OnDelete(d Deleted[T])
}

// HandlerFuncs adapts functions to a Handler. Nil fields ignore their
// notification.
type HandlerFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(old, new T)
	DeleteFunc func(d Deleted[T])
}

// OnAdd calls AddFunc if it is not nil.
func (h HandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if h.AddFunc != nil {
		h.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is not nil.
func (h HandlerFuncs[T]) OnUpdate(old, new T) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc if it is not nil.
func (h HandlerFuncs[T]) OnDelete(d Deleted[T]) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(d)
	}
}

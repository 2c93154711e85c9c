package informer

// Handler receives an informer's notifications. Calls to one Handler are
// made one at a time, from one goroutine, in order; different handlers run
// concurrently. A handler is never called while the informer holds a lock,
// so it may read the Lister and add or remove handlers. Per key, states
// come in the source's order, some perhaps skipped (CoalesceAbove); after
// a relist, only what changed is reported (RelistUnchanged).
//
// Objects are read-only: they are the cache's, shared with every reader,
// and a decoder may share their parts between objects (source/kube's
// Sharing option). Keep them, read them, pass them on; to change one,
// deep-copy it first and write into the copy, never into anything
// reachable from the original (see the package doc's Sharing section):
//
//	c := obj.DeepCopy() // copy, then write
//	c.Labels["x"] = "y"
type Handler[T Object] interface {
	// OnAdd reports an object new to this handler. isInInitialList is true
	// until the informer has synced (the first list, a restored snapshot
	// and the changes made before the server confirmed its version), and
	// for the cache's contents replayed to a handler added after the
	// informer started.
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

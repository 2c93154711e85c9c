package workqueue

import (
	"github.com/informer-go/informer"
)

// EnqueueOptions configures Enqueue. The zero value enqueues the
// namespace/name key of every object.
type EnqueueOptions[T informer.Object] struct {
	// Filter, when set, picks the objects whose changes are enqueued: an
	// add or delete when it accepts the object, an update when it accepts
	// the old or the new state (so an object leaving the filtered set is
	// reconciled once more).
	Filter func(obj T) bool
	// Update, when set, decides which updates are enqueued at all, from
	// the old and the new state (before Filter): for example
	// controller.GenerationChanged, to skip changes of status and
	// metadata. Adds and deletes are always enqueued.
	Update func(old, new T) bool
	// Key maps an object to the key to enqueue, for example its owner's
	// namespace/name; ok false enqueues nothing. An update whose old and
	// new states map to different keys enqueues both. Nil means
	// informer.MetaKey, the informer's default key: set it when the
	// informer has another KeyFunc.
	Key func(obj T) (key string, ok bool)
	// Handler configures the registration (name, resync period, memory
	// policy). An empty Name means the queue's Options.Name, so that the
	// handler's metrics and logs name the queue it feeds.
	Handler informer.HandlerOptions
}

// Enqueue registers a handler on inf that adds to q the key of every
// object added, updated or deleted (tombstones of deletions missed while
// the watch was down included), and returns its registration: wait for it
// with informer.WaitForCacheSync before starting workers if they must see
// a synced cache, and remove it to stop enqueuing.
func Enqueue[T informer.Object](inf *informer.Informer[T], q *Queue[string], opts EnqueueOptions[T]) (*informer.Registration[T], error) {
	e := enqueuer[T]{q: q, filter: opts.Filter, update: opts.Update, key: opts.Key, custom: opts.Key != nil}
	if e.key == nil {
		e.key = func(obj T) (string, bool) {
			k, err := informer.MetaKey(obj)
			return k, err == nil
		}
	}
	if opts.Handler.Name == "" {
		opts.Handler.Name = q.opts.Name
	}
	return inf.AddHandler(e, opts.Handler)
}

// enqueuer is the Handler of Enqueue.
type enqueuer[T informer.Object] struct {
	q      *Queue[string]
	filter func(T) bool
	update func(old, new T) bool
	key    func(T) (string, bool)
	custom bool // key is the user's: old and new may map to different keys
}

func (e enqueuer[T]) add(obj T) {
	if k, ok := e.key(obj); ok {
		e.q.Add(k)
	}
}

func (e enqueuer[T]) OnAdd(obj T, _ bool) {
	if e.filter == nil || e.filter(obj) {
		e.add(obj)
	}
}

func (e enqueuer[T]) OnUpdate(old, new T) {
	if e.update != nil && !e.update(old, new) {
		return
	}
	newKey, added := "", false
	if e.filter == nil || e.filter(new) {
		if newKey, added = e.key(new); added {
			e.q.Add(newKey)
		}
	}
	if added && !e.custom {
		return // the default key of old is the same
	}
	if e.filter == nil || e.filter(old) {
		if k, ok := e.key(old); ok && (!added || k != newKey) {
			e.q.Add(k) // for example the owner it had before
		}
	}
}

func (e enqueuer[T]) OnDelete(d informer.Deleted[T]) {
	if e.filter == nil || e.filter(d.Object) {
		e.add(d.Object)
	}
}

package shard

import (
	"context"
	"sync/atomic"

	"github.com/informer-go/informer"
)

// Filter is an informer.Source that shows the objects of another Source
// whose hash falls in a Set, filtering on the client: for sources that
// cannot filter themselves (source/memory, source/httpsrc), and behind
// source/kube, which verifies what the server filtered the same way.
//
// The cost: every member still receives, decodes and hashes every
// object and event of the whole collection; it only keeps its share.
//
// A watch event whose object falls outside the Set becomes a Bookmark of
// its resourceVersion (with FilterOptions.Mutable, a Modified one becomes
// Deleted): the informer's version still moves on, so that it resumes
// from there and WaitForResourceVersion sees writes to other shards. A Filter is
// safe for concurrent use; it passes on the inner Source's KeyFunc and
// CompareVersions.
type Filter[T informer.Object] struct {
	src     informer.Source[T]
	set     Set
	hash    HashFunc[T]
	mutable bool
	seen    atomic.Int64
	dropped atomic.Int64
}

// FilterOptions configures a Filter; the zero value hashes the key.
type FilterOptions[T informer.Object] struct {
	// Hash decides an object's shard; nil means ByKey.
	Hash HashFunc[T]
	// Mutable says the hashed value can change during an object's life
	// (a label, through ByField): a Modified event that moves an object
	// out of the Set is then passed on as Deleted, which an informer that
	// does not hold the object ignores. Off, such events are dropped.
	Mutable bool
}

// NewFilter returns src restricted to the objects whose hash is in set.
func NewFilter[T informer.Object](src informer.Source[T], set Set, opts FilterOptions[T]) *Filter[T] {
	if opts.Hash == nil {
		opts.Hash = ByKey[T]
	}
	return &Filter[T]{src: src, set: set, hash: opts.Hash, mutable: opts.Mutable}
}

// Set returns the hashes the Filter lets through.
func (f *Filter[T]) Set() Set { return f.set }

// Counts returns how many objects (list items and watch events) the
// Filter has read from the inner Source, and how many of them it dropped
// as outside its Set.
func (f *Filter[T]) Counts() (seen, dropped int64) { return f.seen.Load(), f.dropped.Load() }

// List lists the inner Source and keeps the items in the Set. A page may
// come back empty with a Continue token.
func (f *Filter[T]) List(ctx context.Context, opts informer.ListOptions) (informer.Page[T], error) {
	p, err := f.src.List(ctx, opts)
	if err != nil {
		return p, err
	}
	kept := p.Items[:0]
	for _, obj := range p.Items {
		if f.set.Contains(f.hash(obj)) {
			kept = append(kept, obj)
		}
	}
	f.seen.Add(int64(len(p.Items)))
	f.dropped.Add(int64(len(p.Items) - len(kept)))
	clear(p.Items[len(kept):])
	p.Items = kept
	return p, nil
}

// Watch watches the inner Source and passes on the events in the Set.
func (f *Filter[T]) Watch(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[T], error) {
	w, err := f.src.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &filterWatcher[T]{Watcher: w, f: f}, nil
}

// KeyFunc returns the inner Source's key function when it has one.
func (f *Filter[T]) KeyFunc() informer.KeyFunc[T] {
	if k, ok := f.src.(informer.KeyedSource[T]); ok {
		return k.KeyFunc()
	}
	return nil
}

// CompareVersions passes on the inner Source's, and cannot order
// versions when it has none.
func (f *Filter[T]) CompareVersions(a, b string) (int, bool) {
	if c, ok := f.src.(informer.VersionComparer); ok {
		return c.CompareVersions(a, b)
	}
	return 0, false
}

type filterWatcher[T informer.Object] struct {
	informer.Watcher[T]
	f *Filter[T]
}

func (w *filterWatcher[T]) Next() (informer.Event[T], error) {
	for {
		ev, err := w.Watcher.Next()
		if err != nil {
			return ev, err
		}
		switch ev.Type {
		case informer.EventAdded, informer.EventModified, informer.EventDeleted:
		default:
			return ev, nil
		}
		w.f.seen.Add(1)
		if w.f.set.Contains(w.f.hash(ev.Object)) {
			return ev, nil
		}
		if ev.Type == informer.EventModified && w.f.mutable {
			ev.Type = informer.EventDeleted
			return ev, nil
		}
		w.f.dropped.Add(1)
		if b, ok := progress(ev); ok {
			return b, nil
		}
	}
}

// progress returns a Bookmark of a dropped event's resourceVersion.
func progress[T informer.Object](ev informer.Event[T]) (informer.Event[T], bool) {
	rv := ev.ResourceVersion
	if rv == "" {
		rv = ev.Object.GetResourceVersion()
	}
	return informer.Event[T]{Type: informer.EventBookmark, ResourceVersion: rv}, rv != ""
}

// Progress returns, for a watch event dropped as outside a shard, the
// Bookmark of its resourceVersion, which keeps a reader's version moving;
// false when the event carries no version.
func Progress[T informer.Object](ev informer.Event[T]) (informer.Event[T], bool) {
	return progress(ev)
}

package kube

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/shard"
)

// ErrShardIgnored reports that a Source with Options.Shard and
// Options.ShardStrict got objects from outside its shard: the server did
// not apply the shard selector (the ShardedListAndWatch feature gate is
// off, or the server is older than 1.36 and drops the unknown parameter).
var ErrShardIgnored = errors.New("kube: the server ignored the shard selector")

// ShardStats says how a sharded Source's shard selector fared.
type ShardStats struct {
	// Selector is the shardSelector parameter sent, "" when the Source
	// is not sharded.
	Selector string
	// ServerFiltered is true when the server applied the selector: the
	// last list response echoed it (metadata.shardInfo), or objects came
	// (a streaming list, a watch, a metadata-only list: kube-apiserver
	// 1.37 leaves shardInfo out of a PartialObjectMetadataList) and none
	// from outside the shard. One from outside makes it false for good.
	ServerFiltered bool
	// Received counts the objects read from lists and watch events;
	// Dropped those of them outside the shard, filtered out on the client.
	// With a server that filters, Dropped stays 0.
	Received, Dropped int64
}

// shardFilter verifies that what the server sends is in the shard, and
// filters on the client what it is not.
type shardFilter[T informer.Object] struct {
	set      shard.Set
	selector string
	hash     shard.HashFunc[T]
	strict   bool
	noEcho   bool // metadata-only: lists come without shardInfo
	res      string

	serverFiltered    atomic.Bool
	received, dropped atomic.Int64
}

// newShardFilter returns nil when opts shard nothing (no Shard, or the
// whole space), and checks that objects of T have the field to hash.
func newShardFilter[T informer.Object](opts Options, newObj func() T, metadataOnly bool, res string) (*shardFilter[T], error) {
	if opts.Shard.Empty() || opts.Shard.IsAll() {
		return nil, nil
	}
	f := &shardFilter[T]{set: opts.Shard, strict: opts.ShardStrict, noEcho: metadataOnly, res: res}
	switch opts.ShardField {
	case "", shard.FieldUID:
		if _, ok := any(newObj()).(shard.UIDObject); !ok {
			return nil, fmt.Errorf("%w: Options.Shard hashes metadata.uid, and %T has no GetUID method", kube.ErrInvalidConfig, newObj())
		}
		f.hash = func(obj T) uint64 { return shard.ByUID(any(obj).(shard.UIDObject)) }
		f.selector = opts.Shard.Selector(shard.FieldUID)
	case shard.FieldNamespace:
		f.hash = shard.ByNamespace[T]
		f.selector = opts.Shard.Selector(shard.FieldNamespace)
	default:
		return nil, fmt.Errorf("%w: Options.ShardField %q (kube-apiserver shards by %s or %s)", kube.ErrInvalidConfig, opts.ShardField, shard.FieldUID, shard.FieldNamespace)
	}
	return f, nil
}

// page keeps the items of a list page in the shard. echoed is the
// response's metadata.shardInfo.selector.
func (f *shardFilter[T]) page(p *informer.Page[T], echoed string) error {
	if f.strict && !f.noEcho && echoed != f.selector {
		return fmt.Errorf("%w: list %s: the response's metadata.shardInfo is %q, not the selector sent", ErrShardIgnored, f.res, echoed)
	}
	kept := p.Items[:0]
	var foreign *T
	for i, obj := range p.Items {
		if f.set.Contains(f.hash(obj)) {
			kept = append(kept, obj)
		} else if foreign == nil {
			foreign = &p.Items[i]
		}
	}
	if foreign != nil && f.strict {
		o := *foreign
		return fmt.Errorf("%w: list %s: %s/%s is outside the shard", ErrShardIgnored, f.res, o.GetNamespace(), o.GetName())
	}
	switch {
	case echoed == f.selector:
		f.serverFiltered.Store(true)
	case f.noEcho && len(p.Items) > 0:
		f.serverFiltered.Store(foreign == nil)
	case !f.noEcho:
		f.serverFiltered.Store(false)
	}
	f.received.Add(int64(len(p.Items)))
	f.dropped.Add(int64(len(p.Items) - len(kept)))
	clear(p.Items[len(kept):])
	p.Items = kept
	return nil
}

// keep reports whether a watch event is in the shard; in strict mode an
// object outside it is an error.
func (f *shardFilter[T]) keep(ev informer.Event[T]) (bool, error) {
	switch ev.Type {
	case informer.EventAdded, informer.EventModified, informer.EventDeleted:
	default:
		return true, nil
	}
	f.received.Add(1)
	if f.set.Contains(f.hash(ev.Object)) {
		return true, nil
	}
	f.dropped.Add(1)
	f.serverFiltered.Store(false)
	if f.strict {
		return false, fmt.Errorf("%w: watch %s: %s %s/%s is outside the shard", ErrShardIgnored, f.res, ev.Type, ev.Object.GetNamespace(), ev.Object.GetName())
	}
	return false, nil
}

// shardWatcher drops the events outside the shard, passing on a
// Bookmark of their version.
type shardWatcher[T informer.Object] struct {
	informer.Watcher[T]
	f   *shardFilter[T]
	err error
}

func (w *shardWatcher[T]) Next() (informer.Event[T], error) {
	if w.err != nil {
		return informer.Event[T]{}, w.err
	}
	for {
		ev, err := w.Watcher.Next()
		if err != nil {
			return ev, err
		}
		keep, err := w.f.keep(ev)
		if err != nil {
			w.err = err
			return informer.Event[T]{}, err
		}
		if keep {
			return ev, nil
		}
		if b, ok := shard.Progress(ev); ok {
			return b, nil // the reader's version moves on
		}
	}
}

// ShardStats returns how the Source's shard selector fared: whether the
// server applied it, and how many objects the client filtered out.
func (s *Source[T]) ShardStats() ShardStats {
	f := s.shard
	if f == nil {
		return ShardStats{}
	}
	st := ShardStats{Selector: f.selector, Received: f.received.Load(), Dropped: f.dropped.Load()}
	st.ServerFiltered = st.Dropped == 0 && (f.serverFiltered.Load() || st.Received > 0)
	return st
}

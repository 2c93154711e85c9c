package informer

import (
	"context"
	"iter"
	"strconv"
	"sync"
)

// DeltaType says what happened to an object.
type DeltaType uint8

// The kinds of Delta.
const (
	// DeltaAdded: the object was created (a watch ADDED event).
	DeltaAdded DeltaType = iota + 1
	// DeltaUpdated: the object changed (a watch MODIFIED event).
	DeltaUpdated
	// DeltaDeleted: the object was deleted. FinalStateUnknown is set when the
	// deletion was inferred by a relist and Object is the last known state.
	DeltaDeleted
	// DeltaReplaced: the object is part of a relist's complete state.
	DeltaReplaced
	// DeltaSync: a periodic resync of an object that did not change.
	DeltaSync
)

var deltaTypeNames = [...]string{"", "Added", "Updated", "Deleted", "Replaced", "Sync"}

// String returns the DeltaType's name.
func (t DeltaType) String() string {
	if int(t) < len(deltaTypeNames) && t != 0 {
		return deltaTypeNames[t]
	}
	return "DeltaType(" + strconv.Itoa(int(t)) + ")"
}

// Delta is one change to one object.
type Delta[T Object] struct {
	Type   DeltaType
	Object T
	// FinalStateUnknown is set on a DeltaDeleted delta produced by a relist: the
	// object vanished while the watch was down and Object is the last state
	// this process knew, not the state it had when it was deleted.
	FinalStateUnknown bool
}

// Deleted is what a handler receives for a deletion: the object's last known
// state and whether that state is final.
type Deleted[T Object] struct {
	// Object is the deleted object's last state known to the informer.
	Object T
	// FinalStateUnknown is true when the deletion happened while the watch
	// was down: the object may have changed after Object before it was
	// deleted.
	FinalStateUnknown bool
}

// KeyDeltas is one key's pending deltas, oldest first, as popped from a
// DeltaFIFO.
type KeyDeltas[T Object] struct {
	Key    string
	Deltas []Delta[T]

	fromBulk bool // Deltas is part of a bulk: not to be recycled
}

// KnownObjects is what a DeltaFIFO needs to know of the cache it feeds: the
// objects already there, so a relist can report the ones that vanished.
// *Indexer satisfies it.
type KnownObjects[T Object] interface {
	Get(key string) (T, bool)
	All() iter.Seq2[string, T]
}

// DeltaFIFOOptions configures a DeltaFIFO. The zero value means MetaKey and
// no known objects.
type DeltaFIFOOptions[T Object] struct {
	// KeyFunc computes an object's key; nil means MetaKey.
	KeyFunc KeyFunc[T]
	// KnownObjects is the cache the queue feeds. Without it a relist cannot
	// produce deletions for objects that are only in the cache.
	KnownObjects KnownObjects[T]
}

// DeltaFIFO is a queue of changes per key. Keys come out in the order they
// were first queued; each pop hands over all of a key's pending deltas,
// oldest first. Consecutive deletions of one key are compressed into one.
//
// A DeltaFIFO is safe for concurrent use. Per-key order is guaranteed to a
// single consumer; with several consumers two of them may hold deltas of the
// same key at once. Pop hands deltas to its callback without holding the
// queue's lock. Replace and Resync wait for callbacks in progress to return,
// so a callback must not call them.
type DeltaFIFO[T Object] struct {
	keyFunc KeyFunc[T]
	metaKey bool // keyFunc is the default, MetaKey
	known   KnownObjects[T]

	mu       sync.Mutex
	idle     sync.Cond // signalled when inflight drops to 0
	items    map[string]pending[T]
	queue    ring[qentry[T]]
	nkeys    int          // keys queued, counting each key of a bulk
	free     [][]Delta[T] // recycled delta slices
	chunk    []Delta[T]   // where new keys' first delta slices are carved from
	peak     int          // most keys queued at once since items was last cleared
	ready    chan struct{}
	closed   bool
	inflight int // batches handed to consumers and not yet done
	paused   int // Replace/Resync holding off new pops

	populated bool          // the first replacement has ended
	initial   int           // keys queued before populated and not yet done
	synced    chan struct{} // closed when populated && initial == 0

	replaceSeen map[string]struct{} // keys of the replacement in progress
	keyScratch  []string

	// bulkOK lets a replacement that starts with nothing known, queued or
	// in flight (an informer's first list) queue its pages as bulks: no
	// per-key map entries and no seen set, since nothing can have vanished.
	// Duplicate keys in such a list are then left for the consumer to see.
	bulkOK   bool
	bulkMode bool // the replacement in progress queues bulks
}

// qentry is one entry of the queue: a key with its deltas in items, or a
// bulk of keys of one page of a replacement, each with one Replaced delta.
type qentry[T Object] struct {
	key  string
	bulk *bulk[T]
}

// bulk is a page of a bulk replacement; next is the first key not taken.
type bulk[T Object] struct {
	keys    []string
	deltas  []Delta[T]
	next    int
	initial bool
}

// pending is a queued key's deltas.
type pending[T Object] struct {
	key     string // the map's key, to share
	deltas  []Delta[T]
	initial bool // counted in DeltaFIFO.initial
}

// NewDeltaFIFO returns an empty DeltaFIFO.
func NewDeltaFIFO[T Object](opts DeltaFIFOOptions[T]) *DeltaFIFO[T] {
	f := &DeltaFIFO[T]{
		keyFunc: opts.KeyFunc,
		known:   opts.KnownObjects,
		items:   map[string]pending[T]{},
		ready:   make(chan struct{}, 1),
		synced:  make(chan struct{}),
	}
	if f.keyFunc == nil {
		f.keyFunc, f.metaKey = MetaKey[T], true
	}
	f.idle.L = &f.mu
	return f
}

// Add queues an Added delta for obj.
func (f *DeltaFIFO[T]) Add(obj T) error { return f.enqueue(DeltaAdded, obj) }

// Update queues an Updated delta for obj.
func (f *DeltaFIFO[T]) Update(obj T) error { return f.enqueue(DeltaUpdated, obj) }

// Delete queues a Deleted delta for obj.
func (f *DeltaFIFO[T]) Delete(obj T) error { return f.enqueue(DeltaDeleted, obj) }

func (f *DeltaFIFO[T]) enqueue(t DeltaType, obj T) error {
	if f.metaKey {
		// The default key: build it on the stack and reuse the string of a
		// queued or cached key, so a change to a known object allocates
		// nothing for its key.
		var buf [128]byte
		if b, ok := appendMetaKey(buf[:0], obj); ok {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.closed {
				return ErrClosed
			}
			key, p, queued := f.internLocked(b)
			if f.replaceSeen != nil {
				f.replaceSeen[key] = struct{}{}
			}
			f.pushFoundLocked(key, Delta[T]{Type: t, Object: obj}, p, queued)
			return nil
		}
	}
	key, err := keyOf(f.keyFunc, obj)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.replaceSeen != nil {
		// A change during a replacement is newer than it: never inferred
		// to have vanished by it.
		f.replaceSeen[key] = struct{}{}
	}
	f.pushLocked(key, Delta[T]{Type: t, Object: obj})
	return nil
}

// internLocked returns b as a string, shared with a queued or known key
// when there is one, and the key's pending deltas if it is queued.
func (f *DeltaFIFO[T]) internLocked(b []byte) (key string, p pending[T], queued bool) {
	if p, ok := f.items[string(b)]; ok {
		return p.key, p, true
	}
	// A concrete call, so that b (on the caller's stack) does not escape.
	if ix, ok := f.known.(*Indexer[T]); ok {
		if key, ok := ix.internKey(b); ok {
			return key, p, false
		}
	}
	return string(b), p, false
}

// pushLocked appends d to key's deltas, queueing the key if it is new.
func (f *DeltaFIFO[T]) pushLocked(key string, d Delta[T]) {
	p, queued := f.items[key]
	f.pushFoundLocked(key, d, p, queued)
}

// pushFoundLocked is pushLocked with the key already looked up.
func (f *DeltaFIFO[T]) pushFoundLocked(key string, d Delta[T], p pending[T], queued bool) {
	if !queued {
		if n := len(f.items) + 1; n > f.peak {
			f.peak = n
		}
		p.deltas = f.newDeltasLocked()
		p.key = key
		if !f.populated {
			p.initial = true
			f.initial++
		}
		f.queue.push(qentry[T]{key: key})
		f.nkeys++
		if f.queue.len() == 1 {
			f.signal()
		}
	}
	if n := len(p.deltas); d.Type == DeltaDeleted && n > 0 && p.deltas[n-1].Type == DeltaDeleted {
		// Compress consecutive deletions, keeping a known final state over
		// an inferred one.
		if !d.FinalStateUnknown || p.deltas[n-1].FinalStateUnknown {
			p.deltas[n-1] = d
		}
	} else {
		p.deltas = append(p.deltas, d)
	}
	f.items[key] = p
}

// newDeltasLocked returns an empty delta slice for a newly queued key: a
// recycled one, or else a one-delta slice carved from a shared chunk, so that
// queueing a key does not cost an allocation of its own.
func (f *DeltaFIFO[T]) newDeltasLocked() []Delta[T] {
	if n := len(f.free); n > 0 {
		d := f.free[n-1]
		f.free[n-1] = nil
		f.free = f.free[:n-1]
		return d
	}
	if len(f.chunk) == 0 {
		f.chunk = make([]Delta[T], deltaChunk)
	}
	d := f.chunk[:0:1]
	f.chunk = f.chunk[1:]
	return d
}

// deltaChunk is how many one-delta slices are carved from one allocation.
const deltaChunk = 256

func (f *DeltaFIFO[T]) signal() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// pauseLocked stops new pops and waits for the ones in progress.
func (f *DeltaFIFO[T]) pauseLocked() {
	f.paused++
	for f.inflight > 0 {
		f.idle.Wait()
	}
}

func (f *DeltaFIFO[T]) resumeLocked() {
	f.paused--
	if f.paused == 0 && f.queue.len() > 0 {
		f.signal()
	}
}

// Pop waits until a key is queued, removes it, and calls fn with its deltas
// without holding the queue's lock. The deltas slice is reused after fn
// returns: do not keep it. Pop returns fn's error, ctx's error if ctx ends
// first, or ErrClosed once the queue is closed and empty.
func (f *DeltaFIFO[T]) Pop(ctx context.Context, fn func(key string, deltas []Delta[T]) error) error {
	var one [1]KeyDeltas[T]
	batch, initial, err := f.wait(ctx, one[:0], 1)
	if err != nil {
		return err
	}
	defer f.done(batch, initial)
	return fn(batch[0].Key, batch[0].Deltas)
}

// PopBatch is Pop for up to max keys at once: it waits until at least one
// key is queued, then hands fn every ready key, up to max, in queue order.
// buf, if not nil, is used to hold the batch.
func (f *DeltaFIFO[T]) PopBatch(ctx context.Context, max int, fn func(batch []KeyDeltas[T]) error, buf []KeyDeltas[T]) error {
	batch, initial, err := f.wait(ctx, buf[:0], max)
	if err != nil {
		return err
	}
	defer f.done(batch, initial)
	return fn(batch)
}

// wait takes up to max ready keys, waiting until there is at least one.
func (f *DeltaFIFO[T]) wait(ctx context.Context, dst []KeyDeltas[T], max int) (batch []KeyDeltas[T], initial int, err error) {
	for {
		batch, initial, err := f.take(dst, max)
		if err != nil || len(batch) > 0 {
			return batch, initial, err
		}
		select {
		case <-f.ready:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// take removes up to max ready keys without waiting, and says how many of
// them count towards the initial population. It returns ErrClosed when the
// queue is closed and empty. Every non-empty batch must be handed to done.
func (f *DeltaFIFO[T]) take(dst []KeyDeltas[T], max int) (batch []KeyDeltas[T], initial int, err error) {
	if max < 1 {
		max = 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.queue.len() == 0 && f.closed {
		f.signal() // pass Close's wake-up on to the next waiting consumer
		return dst, 0, ErrClosed
	}
	if f.paused > 0 || f.queue.len() == 0 {
		return dst, 0, nil
	}
	for len(dst) < max && f.queue.len() > 0 {
		if b := f.queue.at(0).bulk; b != nil {
			k := min(max-len(dst), len(b.keys)-b.next)
			for j := b.next; j < b.next+k; j++ {
				dst = append(dst, KeyDeltas[T]{Key: b.keys[j], Deltas: b.deltas[j : j+1 : j+1], fromBulk: true})
			}
			b.next += k
			f.nkeys -= k
			if b.initial {
				initial += k
			}
			if b.next == len(b.keys) {
				f.queue.pop()
			}
			continue
		}
		key := f.queue.pop().key
		f.nkeys--
		p := f.items[key]
		delete(f.items, key)
		if len(f.items) == 0 && f.peak > 1024 {
			// A drained backlog leaves the map full of deletion marks that
			// every later lookup probes past; clearing the empty map drops
			// them, once per backlog.
			clear(f.items)
			f.peak = 0
		}
		dst = append(dst, KeyDeltas[T]{Key: key, Deltas: p.deltas})
		if p.initial {
			initial++
		}
	}
	f.inflight++
	if f.queue.len() > 0 {
		f.signal() // wake another consumer
	}
	return dst, initial, nil
}

// done recycles a batch's delta slices once its consumer has returned.
func (f *DeltaFIFO[T]) done(batch []KeyDeltas[T], initial int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range batch {
		d := batch[i].Deltas
		clear(d)
		if cap(d) <= 16 && len(f.free) < 1024 && !batch[i].fromBulk {
			f.free = append(f.free, d[:0])
		}
		batch[i] = KeyDeltas[T]{}
	}
	f.initial -= initial
	f.inflight--
	if f.inflight == 0 {
		f.idle.Broadcast()
	}
	f.checkSyncedLocked()
}

func (f *DeltaFIFO[T]) checkSyncedLocked() {
	if f.populated && f.initial == 0 {
		select {
		case <-f.synced:
		default:
			close(f.synced)
		}
	}
}

// HasSynced reports whether the first replacement has ended and every key it
// queued (and every key queued before it) has been popped and processed.
func (f *DeltaFIFO[T]) HasSynced() bool {
	select {
	case <-f.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel closed when HasSynced becomes true.
func (f *DeltaFIFO[T]) Synced() <-chan struct{} { return f.synced }

// Len returns the number of queued keys.
func (f *DeltaFIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nkeys
}

// Close closes the queue: adds fail with ErrClosed, and Pop returns
// ErrClosed once the queued keys have been popped.
func (f *DeltaFIFO[T]) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.signal()
}

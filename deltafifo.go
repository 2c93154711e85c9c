package informer

import (
	"iter"
	"strconv"
	"sync"

	"github.com/informer-go/informer/internal/ring"
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

// Delta is one change to one object. (Object comes first so that, for a
// pointer T, a Delta is two words, not three.)
type Delta[T Object] struct {
	Object T
	Type   DeltaType
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

	fromBulk bool   // Deltas is part of a bulk: not to be recycled
	applied  bool   // set by Indexer.applyBatch: cached is where it stored the key
	at       int32  // position of the key's pending in the queue, if not fromBulk
	gen      uint32 // the key's pending.gen
	// cached is the key's pending.cached, where the consumer's Indexer may
	// hold it; once applied, where it does + 1, or 0 if it does not.
	cached int32
	hash   uint32 // the key's keyHash, or 0: not computed
}

// KnownObjects is what a DeltaFIFO needs to know of the cache it feeds: the
// objects already there, so a relist can report the ones that vanished.
// *Indexer satisfies it. The DeltaFIFO expects a popped key's deltas to be
// applied to it by the time the Pop callback returns.
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
	// produce deletions for objects that are only in the cache. With an
	// *Indexer, the queue also keeps in its key table the keys its
	// consumer stored, each with an entry that their next change is
	// queued in (about 90 bytes per key that changed since the first
	// list), so that queueing a change to a cached key is one lookup
	// under the queue's lock and takes no entry of its own.
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
	ptr     bool // T is a pointer type (pointerType)
	known   KnownObjects[T]

	mu    sync.Mutex
	idle  sync.Cond // signalled when inflight drops to 0
	items keyTable  // key → its entry in pages (queued, in flight or cached)
	// keep: the known objects are an *Indexer, whose keys the key table
	// keeps (see "Known keys" in deltafifo_keys.go); nknown is how many
	// entries hold a cached key with nothing queued or in flight.
	keep   bool
	nknown int
	inuse  int // entries queued or in flight
	// pages hold the keys' entries by position (see pendAt): a queued
	// key's deltas, and a cached key's string and position in the
	// Indexer. A key keeps its position while it is queued, in flight or
	// cached, so a push appends in place and a pop reads its deltas
	// through the queue, without a map lookup. Positions below npend are
	// in use or free; free ones are linked from freed (see pending.gen).
	// Pages never move: growing copies nothing.
	pages    []*[pendPageLen]pending[T]
	npend    int32
	freed    int32                    // the first free position + 1; 0: none
	queue    ring.Shrinking[int32]    // positions of queued keys' pending entries; inBulk for a bulk
	bulks    ring.Shrinking[*bulk[T]] // the bulks of the queue, in order
	nkeys    int                      // keys queued, counting each key of a bulk
	free     [][]Delta[T]             // recycled delta slices of more than one delta
	peak     int                      // most keys queued at once since the queue last drained
	pushes   int                      // keys queued since pend was last needed in full (see shrink)
	ready    chan struct{}
	closed   bool
	inflight int // batches handed to consumers and not yet done
	paused   int // Replace/Resync holding off new pops

	populated bool          // the first replacement has ended
	initial   int           // keys queued before populated and not yet done
	synced    chan struct{} // closed when populated && initial == 0

	// A replacement in progress (not in bulk mode) must know at its end
	// which known or queued keys it did not see. With an *Indexer as the
	// known objects (marks), the keys it saw are marked instead of kept in
	// a set the size of the list: a queued key's pending.gen is set to gen,
	// and when such a key is done, its entry in the Indexer is marked with
	// gen too. Otherwise replaceSeen holds the keys it saw.
	replacing   bool
	gen         uint32
	marks       *Indexer[T]
	replaceSeen map[string]struct{}
	keyScratch  []string

	// bulkOK lets a replacement that starts with nothing known, queued or
	// in flight (an informer's first list) queue its pages as bulks: no
	// per-key map entries and no marks, since nothing can have vanished.
	// Duplicate keys in such a list are then left for the consumer to see.
	bulkOK   bool
	bulkMode bool // the replacement in progress queues bulks
	// nextDeltas holds the Deltas of the staged bulk entries that next
	// hands out (see takeBulkLocked), for its one caller, which hands each
	// batch back in its next call (or done) before the next one;
	// nextDeltasUsed says that it holds some, to clear. Made while bulks
	// are queued, dropped once none is.
	nextDeltas     []Delta[T]
	nextDeltasUsed bool
}

// inBulk in the queue stands for the next bulk in DeltaFIFO.bulks.
const inBulk = -1

// bulk is a page of a bulk replacement; next is the first key not taken.
// Its entries are keys and deltas, or, in a queue that feeds an Indexer,
// staged: entry i as that Indexer stores it (key, object, and the key's
// keyHash in slot.hash), so that the Indexer takes a first list's page as
// its own slots as it stores it (Indexer.stage, applyListed), instead of
// copying each entry into slots of its own. A staged entry's Delta (a
// DeltaReplaced of its object) is made where it is handed out: in next's
// scratch for the informer's loop, else in deltas, made for the page then.
type bulk[T Object] struct {
	keys    []string
	staged  []slot[T]
	deltas  []Delta[T]
	next    int
	initial bool
}

// len returns how many entries b holds.
func (b *bulk[T]) len() int {
	if b.staged != nil {
		return len(b.staged)
	}
	return len(b.keys)
}

// obj returns the object of entry i.
func (b *bulk[T]) obj(i int) T {
	if b.staged != nil {
		return b.staged[i].obj
	}
	return b.deltas[i].Object
}

// key returns the key of entry i.
func (b *bulk[T]) key(i int) string {
	if b.staged != nil {
		return b.staged[i].key
	}
	return b.keys[i]
}

// setKey sets the key of entry i (and in staged, its hash).
func (b *bulk[T]) setKey(i int, key string) {
	if b.staged != nil {
		b.staged[i].key, b.staged[i].hash = key, keyHash(key)
		return
	}
	b.keys[i] = key
}

// setObj sets the object of entry i.
func (b *bulk[T]) setObj(i int, obj T) {
	if b.staged != nil {
		b.staged[i].obj = obj
		return
	}
	b.deltas[i] = Delta[T]{Type: DeltaReplaced, Object: obj}
}

// pending is a key's entry: its queued deltas, or, in the state
// entryKnown, a cached key with nothing queued. The first delta is kept in
// one, so that queueing a key allocates nothing; deltas grows out of it
// when a second one arrives.
type pending[T Object] struct {
	key    string // the key, to share
	deltas []Delta[T]
	one    [1]Delta[T]
	hash   uint32 // key's hash in DeltaFIFO.items
	// gen is DeltaFIFO.gen of the last replacement that saw the key while
	// queued; in a free entry, the next free position + 1 (0: none).
	gen uint32
	// cached is the key's position + 1 in the known Indexer, as last
	// known, or 0: a hint that saves the consumer's Indexer a lookup by
	// key (Indexer.posHinted checks it), so that the key is looked up
	// once per change, here, not twice.
	cached  int32
	state   entryState
	initial bool // counted in DeltaFIFO.initial
	// moved: in flight, and a change queued meanwhile went to a new
	// entry, which the key's slot now points at.
	moved bool
}

// entryState is what a pending entry holds.
type entryState uint8

const (
	entryFree     entryState = iota
	entryQueued              // deltas in the queue
	entryInFlight            // deltas taken by a consumer, not yet done
	entryKnown               // a cached key with nothing queued or in flight
)

// noPending is the position of a key that has nothing queued.
const noPending = -1

// pendPageLen is how many pending entries a page of DeltaFIFO.pages holds.
const pendPageLen = 256

// pendAt returns the pending entry at position at.
func (f *DeltaFIFO[T]) pendAt(at int32) *pending[T] {
	// Unsigned, so that the division is a shift and the index into the
	// page needs no bounds check: pendAt is on every event's path a few
	// times.
	u := uint32(at)
	return &f.pages[u/pendPageLen][u%pendPageLen]
}

// NewDeltaFIFO returns an empty DeltaFIFO.
func NewDeltaFIFO[T Object](opts DeltaFIFOOptions[T]) *DeltaFIFO[T] {
	f := &DeltaFIFO[T]{
		keyFunc: opts.KeyFunc,
		known:   opts.KnownObjects,
		items:   keyTable{},
		ready:   make(chan struct{}, 1),
		synced:  make(chan struct{}),
	}
	if f.keyFunc == nil {
		f.keyFunc, f.metaKey = MetaKey[T], true
	}
	f.marks, _ = f.known.(*Indexer[T])
	f.keep = f.marks != nil
	f.ptr = pointerType[T]()
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
		if b, ok := appendMetaKeyAs(f.ptr, buf[:0], obj); ok {
			// No defer on this path, taken by every event: nothing
			// below calls user code or can panic but for a broken
			// invariant.
			d := Delta[T]{Type: t, Object: obj}
			h := f.items.hashBytes(b) // outside the lock: the seed is fixed
			f.mu.Lock()
			if f.closed {
				f.mu.Unlock()
				return ErrClosed
			}
			if !f.pushKnownLocked(b, h, d) {
				key, q, _ := f.internLocked(b, h, true)
				at := f.pushAtLocked(key, q, d)
				f.sawLocked(key, at)
			}
			f.mu.Unlock()
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
	at := f.pushLocked(key, Delta[T]{Type: t, Object: obj})
	// A change during a replacement is newer than it: never inferred to
	// have vanished by it.
	f.sawLocked(key, at)
	return nil
}

// sawLocked records that the replacement in progress, if any, saw key,
// queued at position at.
func (f *DeltaFIFO[T]) sawLocked(key string, at int32) {
	switch {
	case !f.replacing:
	case f.marks != nil:
		f.pendAt(at).gen = f.gen
	default:
		f.replaceSeen[key] = struct{}{}
	}
}

// seenLocked reports whether the replacement in progress saw key; at is
// its queued position (or noPending) and, if it is not queued, mark is its
// Indexer mark, when the replacement marks.
func (f *DeltaFIFO[T]) seenLocked(key string, at int32, mark uint32) bool {
	switch {
	case f.marks == nil:
		_, ok := f.replaceSeen[key]
		return ok
	case at == noPending:
		return mark == f.gen
	case f.pendAt(at).gen == f.gen:
		return true
	default:
		// Queued since it was seen, applied and marked (by a resync, say).
		return f.marks.markOf(key) == f.gen
	}
}

// internLocked returns b as a string, shared with a queued or known key
// when there is one, and what the lookup among the queued keys found (q.at
// is noPending if it is not queued). If it is not queued, mark is its
// relist mark in the known Indexer. h is b's keyHash. With try, the
// Indexer is asked only if its lock is free at once (the process loop
// holds it for a batch at a time): otherwise the key is a string of its
// own, with no position hint and no mark.
func (f *DeltaFIFO[T]) internLocked(b []byte, h uint32, try bool) (key string, q qpos, mark uint32) {
	q = findKey(f, h, b)
	if q.at != noPending {
		return f.pendAt(q.at).key, q, 0
	}
	if q.kk > 0 {
		// Cached, or in flight: a key in flight has an entry whatever
		// the known objects, which may not be an Indexer that marks.
		key = f.pendAt(q.kk - 1).key
		if f.replacing && f.marks != nil {
			mark = f.marks.markOf(key)
		}
		return key, q, mark
	}
	// A concrete call, so that b (on the caller's stack) does not escape.
	if f.marks != nil {
		if key, mark, pos, ok := f.marks.internKey(b, h, try); ok {
			q.cached = pos + 1
			return key, q, mark
		}
	}
	return string(b), q, 0
}

// queuedLocked looks key up among the queued keys: q.at is the position of
// its pending deltas, or noPending.
func (f *DeltaFIFO[T]) queuedLocked(key string) qpos {
	return findKey(f, f.items.hashString(key), key)
}

// pushLocked appends d to key's deltas, queueing the key if it is new, and
// returns the position of its pending deltas.
func (f *DeltaFIFO[T]) pushLocked(key string, d Delta[T]) int32 {
	return f.pushAtLocked(key, f.queuedLocked(key), d)
}

// pushAtLocked is pushLocked with the key already looked up (q, which no
// change to the queue may have followed). It touches the key table only
// to queue a new key, or one whose entry is in flight.
func (f *DeltaFIFO[T]) pushAtLocked(key string, q qpos, d Delta[T]) int32 {
	at := q.at
	if at != noPending {
		f.appendLocked(f.pendAt(at), d)
		return at
	}
	if q.kk > 0 && f.pendAt(q.kk-1).state == entryKnown {
		// A cached key: its entry is queued again, the key table is left
		// as it is.
		at = q.kk - 1
		f.requeueLocked(at, f.pendAt(at), d)
		return at
	}
	at = f.newKeyLocked(key, q)
	f.queueLocked(at, f.pendAt(at), d)
	return at
}

// pushKnownLocked is enqueue's path for the usual change, to a cached or
// queued key: if the key in b has an entry that is queued or cached, it
// pushes d to it, records the change for a replacement in progress, and
// returns true. For a new key, or one in flight, it returns false.
func (f *DeltaFIFO[T]) pushKnownLocked(b []byte, h uint32, d Delta[T]) bool {
	t := &f.items
	if len(t.slots) == 0 {
		return false
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; t.slots[i].at1 != 0; i = (i + 1) & mask {
		s := t.slots[i]
		if s.hash != h {
			continue
		}
		at := s.at1 - 1
		p := f.pendAt(at)
		if p.key != string(b) {
			continue
		}
		switch p.state {
		case entryQueued:
			f.appendLocked(p, d)
		case entryKnown:
			f.requeueLocked(at, p, d)
		default:
			return false
		}
		f.sawLocked(p.key, at)
		return true
	}
	return false
}

// requeueLocked queues d in the entry p, at position at, of a cached key
// with nothing queued.
func (f *DeltaFIFO[T]) requeueLocked(at int32, p *pending[T], d Delta[T]) {
	p.state, p.gen = entryQueued, 0
	f.nknown--
	f.queueLocked(at, p, d)
}

// queueLocked queues the entry p, at position at, with d as its first
// delta.
func (f *DeltaFIFO[T]) queueLocked(at int32, p *pending[T], d Delta[T]) {
	if f.inuse++; f.inuse > f.peak {
		f.peak = f.inuse
	}
	f.pushes++
	if !f.populated {
		p.initial = true
		f.initial++
	}
	// The first delta, in place.
	p.one[0] = d
	p.deltas = p.one[:1:1]
	f.queue.Push(at)
	f.nkeys++
	if f.queue.Len() == 1 {
		f.signal()
	}
}

// newKeyLocked gives key, which has nothing queued (q is its lookup) and
// no entry or one in flight, a new queued entry, with no deltas yet, and
// returns its position.
func (f *DeltaFIFO[T]) newKeyLocked(key string, q qpos) int32 {
	at := f.newEntryLocked()
	np := f.pendAt(at)
	np.key, np.hash, np.cached, np.state = key, q.hash, q.cached, entryQueued
	if q.kk > 0 {
		// In flight: the new entry takes the key's slot, and the one in
		// flight is freed when it is done.
		f.pendAt(q.kk - 1).moved = true
		f.items.slots[q.idx].at1 = at + 1
	} else {
		f.items.insert(q, at+1)
	}
	return at
}

// newEntryLocked returns the position of a free entry, which is zero but
// for its link (see pending.gen).
func (f *DeltaFIFO[T]) newEntryLocked() int32 {
	var at int32
	if f.freed != 0 {
		at = f.freed - 1
		f.freed = int32(f.pendAt(at).gen)
	} else {
		at = f.npend
		f.npend++
		if int(at/pendPageLen) == len(f.pages) {
			f.pages = append(f.pages, new([pendPageLen]pending[T]))
		}
	}
	f.pendAt(at).gen = 0 // a free entry's link, or a drained one's
	return at
}

// appendLocked appends d to a queued key's deltas, p.deltas, which hold
// one or more.
func (f *DeltaFIFO[T]) appendLocked(p *pending[T], d Delta[T]) {
	if n := len(p.deltas); d.Type == DeltaDeleted && p.deltas[n-1].Type == DeltaDeleted {
		// Compress consecutive deletions, keeping a known final state over
		// an inferred one.
		if !d.FinalStateUnknown || p.deltas[n-1].FinalStateUnknown {
			p.deltas[n-1] = d
		}
	} else if len(p.deltas) == cap(p.deltas) && len(p.deltas) < 4 {
		p.deltas = append(f.newDeltasLocked(), p.deltas...)
		p.deltas = append(p.deltas, d)
	} else {
		p.deltas = append(p.deltas, d)
	}
}

// newDeltasLocked returns an empty delta slice for a key's second delta: a
// recycled one, or a new one with room for four.
func (f *DeltaFIFO[T]) newDeltasLocked() []Delta[T] {
	if n := len(f.free); n > 0 {
		d := f.free[n-1]
		f.free[n-1] = nil
		f.free = f.free[:n-1]
		return d
	}
	return make([]Delta[T], 0, 4)
}

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
	if f.paused == 0 && f.queue.Len() > 0 {
		f.signal()
	}
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

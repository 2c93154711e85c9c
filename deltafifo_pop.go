package informer

import (
	"context"
	"slices"
	"sync"
	"unsafe"

	"github.com/informer-go/informer/internal/ring"
)

// Popping: how a DeltaFIFO hands its keys' deltas to a consumer, and takes
// back what the consumer did with them.

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
	if f.queue.Len() == 0 && f.closed {
		f.signal() // pass Close's wake-up on to the next waiting consumer
		return dst, 0, ErrClosed
	}
	if f.paused > 0 || f.queue.Len() == 0 {
		return dst, 0, nil
	}
	dst, initial = f.takeMoreLocked(dst, nil, max)
	f.inflight++
	if f.queue.Len() > 0 {
		f.signal() // wake another consumer
	}
	return dst, initial, nil
}

// holdChunk is how many keys next hands back, or takes, per hold of the
// lock (a bulk's keys aside, which cost little each): the reflector
// queues under the same lock for every event, and a hold longer than its
// spin puts it to sleep, which costs it tens of microseconds before it
// runs again (the goroutine that wakes it holds its processor).
const holdChunk = 16

// lockSpins is how many times lockSpin tries a lock before it waits for it.
const lockSpins = 4096

// next is done(prev, prevInitial) and then take(dst, max), for the
// informer's process loop: the lock taken once for both, and held for
// holdChunk keys at a time. prev and dst may share their array. paused
// says that it took nothing because a replacement paused the queue (its
// EndReplace waited for prev), not because the queue is empty: what was
// queued before is not all applied. Between two holds the reflector may
// queue a change of a key already taken: it gets an entry of its own
// (see newKeyLocked), and the batch may then hold the key twice, in
// order.
//
// The loop tries the lock (lockSpin) rather than sleep on it: a goroutine
// woken by an Unlock is queued on the waker's processor, and the reflector
// that unlocked does not give its processor up, so the loop would wait
// for another processor to take it over (tens of microseconds, during
// which the queue grows by hundreds of events and its keys' deltas no
// longer fit in place).
func (f *DeltaFIFO[T]) next(prev []KeyDeltas[T], prevInitial int, dst []KeyDeltas[T], max int) (batch []KeyDeltas[T], initial int, paused bool, err error) {
	if max < 1 {
		max = 1
	}
	lockSpin(&f.mu)
	defer f.mu.Unlock()
	if len(prev) > 0 {
		for len(prev) > holdChunk && !prev[holdChunk-1].fromBulk {
			f.doneLocked(prev[:holdChunk], 0, false)
			prev = prev[holdChunk:]
			f.mu.Unlock()
			lockSpin(&f.mu)
		}
		f.doneLocked(prev, prevInitial, true)
	}
	f.releaseNextDeltasLocked()
	if f.queue.Len() == 0 && f.closed {
		f.signal() // pass Close's wake-up on to the next waiting consumer
		return dst, 0, false, ErrClosed
	}
	if f.paused > 0 {
		return dst, 0, true, nil
	}
	if f.queue.Len() == 0 {
		return dst, 0, false, nil
	}
	f.makeNextDeltasLocked(max)
	batch, initial = f.takeMoreLocked(dst, f.nextDeltas, f.chunkLocked(len(dst), max))
	f.inflight++
	for len(batch) < max && f.queue.Len() > 0 {
		f.mu.Unlock()
		lockSpin(&f.mu)
		if f.paused > 0 || f.queue.Len() == 0 {
			break
		}
		var k int
		batch, k = f.takeMoreLocked(batch, f.nextDeltas, f.chunkLocked(len(batch), max))
		initial += k
	}
	if f.queue.Len() > 0 {
		f.signal() // wake another consumer
	}
	return batch, initial, false, nil
}

// makeNextDeltasLocked makes next's scratch for the Deltas of staged bulk
// entries (DeltaFIFO.nextDeltas), max long, if bulks are queued.
func (f *DeltaFIFO[T]) makeNextDeltasLocked(max int) {
	if f.bulks.Len() > 0 && len(f.nextDeltas) < max {
		f.nextDeltas = make([]Delta[T], max)
	}
}

// releaseNextDeltasLocked clears next's scratch once the batch whose
// staged entries' Deltas it holds is handed back, and drops it if no bulk
// is left.
func (f *DeltaFIFO[T]) releaseNextDeltasLocked() {
	if !f.nextDeltasUsed {
		return
	}
	clear(f.nextDeltas)
	f.nextDeltasUsed = false
	if f.bulks.Len() == 0 {
		f.nextDeltas = nil // until the next bulk replacement
	}
}

// chunkLocked is how many keys in all next's batch of n may hold after
// this hold of the lock: up to max, and holdChunk more unless the queue's
// head is a bulk.
func (f *DeltaFIFO[T]) chunkLocked(n, max int) int {
	if f.queue.At(0) == inBulk {
		return max
	}
	return min(max, n+holdChunk)
}

// lockSpin locks mu, trying it lockSpins times before it waits: for a
// lock the process loop shares with the reflector (see next).
func lockSpin(mu *sync.Mutex) {
	for range lockSpins {
		if mu.TryLock() {
			return
		}
	}
	mu.Lock()
}

// takeMoreLocked appends to dst, up to max in all, the keys at the
// queue's head, and says how many of them count towards the initial
// population. scratch, if not nil (at least max long), holds the Deltas
// of the staged bulk entries it takes, at their positions in dst.
func (f *DeltaFIFO[T]) takeMoreLocked(dst []KeyDeltas[T], scratch []Delta[T], max int) ([]KeyDeltas[T], int) {
	initial := 0
	for len(dst) < max && f.queue.Len() > 0 {
		var k int
		if f.queue.At(0) == inBulk {
			dst, k = f.takeBulkLocked(dst, scratch, max)
		} else {
			dst, k = f.takeRunLocked(dst, max)
		}
		initial += k
	}
	return dst, initial
}

// takeBulkLocked appends to dst, up to max in all, the next keys of the
// bulk at the queue's head, and says how many count towards the initial
// population. scratch is takeMoreLocked's.
func (f *DeltaFIFO[T]) takeBulkLocked(dst []KeyDeltas[T], scratch []Delta[T], max int) ([]KeyDeltas[T], int) {
	b := f.bulks.At(0)
	k := min(max-len(dst), b.len()-b.next)
	// Written field by field: a composite value is built aside and copied.
	n := len(dst)
	dst = slices.Grow(dst, k)[:n+k]
	if b.staged != nil {
		var deltas []Delta[T]
		if scratch != nil {
			deltas = scratch[n : n+k]
			f.nextDeltasUsed = true
		} else {
			if b.deltas == nil {
				b.deltas = make([]Delta[T], b.len())
			}
			deltas = b.deltas[b.next : b.next+k]
		}
		st := b.staged[b.next : b.next+k]
		for j := range st {
			e, kd := &st[j], &dst[n+j]
			deltas[j] = Delta[T]{Type: DeltaReplaced, Object: e.obj}
			kd.Key, kd.Deltas = e.key, deltas[j:j+1:j+1]
			kd.fromBulk, kd.applied, kd.at, kd.gen, kd.cached, kd.hash = true, false, 0, 0, 0, e.hash
		}
	} else {
		deltas := b.deltas[b.next : b.next+k]
		for j, key := range b.keys[b.next : b.next+k] {
			kd := &dst[n+j]
			kd.Key, kd.Deltas = key, deltas[j:j+1:j+1]
			kd.fromBulk, kd.applied, kd.at, kd.gen, kd.cached, kd.hash = true, false, 0, 0, 0, 0
		}
	}
	b.next += k
	f.nkeys -= k
	if b.next == b.len() {
		f.queue.Pop()
		f.bulks.Pop()
	}
	if b.initial {
		return dst, k
	}
	return dst, 0
}

// takeRunLocked appends to dst, up to max in all, the run of queued keys'
// entries at the queue's head (up to a bulk), read where the queue holds
// them, and says how many count towards the initial population.
func (f *DeltaFIFO[T]) takeRunLocked(dst []KeyDeltas[T], max int) ([]KeyDeltas[T], int) {
	run := f.queue.Front()
	run = run[:min(len(run), max-len(dst))]
	if i := slices.Index(run, inBulk); i >= 0 {
		run = run[:i]
	}
	initial := 0
	n := len(dst)
	dst = slices.Grow(dst, len(run))[:n+len(run)]
	for j, at := range run {
		p := f.pendAt(at)
		// The key stays in the table: a change queued while it is in
		// flight gets a new entry (see newKeyLocked).
		p.state = entryInFlight
		kd := &dst[n+j]
		kd.Key, kd.Deltas = p.key, p.deltas
		kd.fromBulk, kd.applied, kd.at, kd.gen, kd.cached, kd.hash = false, false, at, p.gen, p.cached, p.hash
		if p.initial {
			initial++
		}
	}
	f.queue.Discard(len(run))
	f.nkeys -= len(run)
	return dst, initial
}

// done recycles a batch's delta slices once its consumer has returned.
func (f *DeltaFIFO[T]) done(batch []KeyDeltas[T], initial int) {
	f.mu.Lock()
	f.doneLocked(batch, initial, true)
	f.mu.Unlock()
}

// doneLocked is done's work for each key of batch, and with last for the
// batch as a whole, initial of its keys counted towards the initial
// population; next hands a batch back in parts, the last one last.
func (f *DeltaFIFO[T]) doneLocked(batch []KeyDeltas[T], initial int, last bool) {
	for i := range batch {
		if !batch[i].fromBulk {
			// Keep the key's entry if the consumer stored it: as the
			// Indexer says (applyBatch), else as the deltas say.
			at := batch[i].at
			p := f.pendAt(at)
			keep, cached := false, p.cached
			if f.keep {
				if batch[i].applied {
					keep, cached = batch[i].cached > 0, batch[i].cached
				} else {
					keep = batch[i].Deltas[len(batch[i].Deltas)-1].Type != DeltaDeleted
				}
			}
			if d := batch[i].Deltas; cap(d) > 1 {
				f.recycleLocked(d)
			}
			if keep && !p.moved {
				// The usual case: the entry holds the cached key
				// (doneEntryLocked's, in line).
				p.deltas, p.one[0] = nil, Delta[T]{}
				p.cached, p.state, p.initial = cached, entryKnown, false
				f.nknown++
				if k := batch[i].Key; unsafe.StringData(k) != unsafe.StringData(p.key) {
					p.key = k // the Indexer's string (applyKeyLocked)
				}
			} else {
				f.doneEntryLocked(at, keep, cached)
			}
			f.inuse--
			if f.replacing && f.marks != nil && batch[i].gen == f.gen {
				// Applied to the cache by now: the mark moves there.
				f.marks.setMark(batch[i].Key, f.gen)
			}
		}
		batch[i] = KeyDeltas[T]{}
	}
	if !last {
		return
	}
	f.initial -= initial
	f.inflight--
	if f.inflight == 0 {
		f.idle.Broadcast()
		if f.inuse == 0 {
			f.drainedLocked()
		}
	}
	f.checkSyncedLocked()
}

// recycleLocked keeps d, a key's deltas of more than one, for another key.
func (f *DeltaFIFO[T]) recycleLocked(d []Delta[T]) {
	clear(d)
	if cap(d) <= 16 && len(f.free) < 1024 {
		f.free = append(f.free, d[:0])
	}
}

// drainedLocked tidies up when no key is queued or in flight (bulks aside).
func (f *DeltaFIFO[T]) drainedLocked() {
	if f.nknown > 0 {
		// The cached keys' entries stay where they are, unless most
		// entries are free.
		f.compactLocked()
		f.peak = 0
		return
	}
	// Nothing in the table: positions start from 0 again. The array
	// and the key table are kept for the next backlog, unless backlogs
	// of their size have stopped coming. Free entries are zero but for
	// their links, which a new use overwrites.
	f.npend, f.freed = 0, 0
	if ring.Shrink(len(f.pages)*pendPageLen, f.peak, &f.pushes) {
		f.pages = nil
		f.items.slots = nil
	}
	f.peak = 0
}

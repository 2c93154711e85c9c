package informer

import (
	"context"
	"fmt"
	"time"
)

// applyResult is what applying one delta to the cache found.
type applyResult[T Object] struct {
	old     T
	existed bool
	err     error
}

// processLoop pops deltas, applies them to the cache, and hands the
// notifications to the listeners, until ctx ends.
func (inf *Informer[T]) processLoop(ctx context.Context) {
	buf := make([]KeyDeltas[T], 0, inf.opts.BatchSize)
	rs := newResyncer[T]()
	defer rs.stop()
	rs.plan(inf.snapshotListeners(), time.Now())
	var prev []KeyDeltas[T] // the batch processed last, not yet done
	prevInitial := 0
	for {
		// What the reflector had read before this take: once a take finds
		// the queue empty, all of it is in the cache.
		readRV, lists := inf.refl.readProgress()
		// The last batch is done, and the next taken, under one hold of
		// the queue's lock: the reflector queues under it for every event.
		batch, initial, paused, err := inf.fifo.next(prev, prevInitial, buf[:0], inf.opts.BatchSize)
		if len(prev) > 0 {
			prev = nil
			inf.checkSynced(false)
		}
		if err != nil {
			return
		}
		if len(batch) > 0 {
			inf.process(batch)
			prev, prevInitial = batch, initial
			select {
			case <-ctx.Done():
				inf.fifo.done(batch, initial)
				return
			case <-inf.ctrl:
				inf.admit(ctx, rs)
			case <-rs.c():
				inf.resync(rs)
			default:
			}
			continue
		}
		// Paused by a relist's end, the queue may still hold changes read
		// before readRV: not applied yet (the resume wakes the loop).
		if !paused {
			inf.caughtUp(readRV, lists)
		}
		if !inf.waitForWork(ctx, rs, readRV, lists) {
			return
		}
	}
}

// caughtUp is the process loop's work when a take found the queue empty:
// everything the reflector had read when it was at readRV after lists
// lists is in the cache.
func (inf *Informer[T]) caughtUp(readRV string, lists uint64) {
	if inf.isSynced {
		inf.applied.set(readRV, lists)
	}
	inf.serveSnapshots(readRV)
	if inf.checkSynced(true) {
		inf.applied.set(readRV, lists) // a restored cache confirmed: it is at readRV
	}
}

// waitForWork waits, with the queue found empty, until there may be work:
// a delta queued, the reflector's version or count of lists moved on since
// readRV and lists, the queue synced, a handler to admit or a resync due.
// It returns false when ctx ended.
func (inf *Informer[T]) waitForWork(ctx context.Context, rs *resyncer[T], readRV string, lists uint64) bool {
	var fifoSynced <-chan struct{}
	if !inf.isSynced {
		fifoSynced = inf.fifo.Synced()
	}
	// The reflector moves its version on (and counts a list) just after
	// the write that moved it; if it did since readRV and lists, take
	// again (what was written is in, or the queue wakes us), so that the
	// applied version catches up and a relist counts as applied.
	// Otherwise its next move wakes the loop (Progress).
	inf.wake.idle.Store(true)
	defer inf.wake.idle.Store(false)
	if rv, n := inf.refl.readProgress(); inf.isSynced && (rv != readRV || n != lists) {
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-inf.fifo.ready:
	case <-inf.progress:
		inf.wake.pending.Store(false)
	case <-fifoSynced:
	case <-inf.ctrl:
		inf.admit(ctx, rs)
	case <-rs.c():
		inf.resync(rs)
	case <-inf.snap.wake:
	}
	// A progress wake-up sent before now is stale: the reflector publishes
	// its version before it sends one, and the loop reads the version
	// again before its next take. Dropped, it does not cost a second round
	// of take and wait (in the steady state, one per batch: the first
	// event of a burst both queues a key and sends progress).
	select {
	case <-inf.progress: // a stale one
		inf.wake.pending.Store(false)
	default:
	}
	return true
}

func (inf *Informer[T]) snapshotListeners() []*listener[T] {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.listeners
}

// checkSynced marks the informer and its listeners synced once the queue
// reports the first list processed, or a restored cache is confirmed
// (empty: the take found the queue empty), and reports whether it did.
func (inf *Informer[T]) checkSynced(empty bool) bool {
	restored := inf.snap.restored && inf.restoredSynced(empty)
	if inf.isSynced || !(restored || inf.fifo.HasSynced()) {
		return false
	}
	inf.isSynced = true
	close(inf.synced)
	for _, l := range inf.snapshotListeners() {
		l.markSynced()
	}
	return true
}

// process applies a batch to the cache, then hands its notifications out.
func (inf *Informer[T]) process(batch []KeyDeltas[T]) {
	nb := &inf.notes
	plain := inf.detect == nil && !inf.snap.replaying
	var results []applyResult[T]
	noted := 0
	if plain {
		// The Indexer makes the notes of the batch's first keys, when
		// they are a watch's updates of cached keys, as it applies them.
		nb.grow(len(batch))
		results, noted = inf.ix.applyNoting(batch, inf.results[:0], nb)
	} else {
		results = inf.ix.applyBatch(batch, inf.results[:0])
	}
	nb.grow(noted + len(results)) // at most one note per delta
	w, r := noted, 0
	addMeta := metaOf(notifyAdd, !inf.isSynced)
	for i := noted; i < len(batch); i++ {
		if plain {
			k := plainNotes(batch[i:], results[r:], i, nb, w, addMeta)
			if i, r, w = i+k, r+k, w+k; i == len(batch) {
				break
			}
		}
		r, w = inf.noteKey(batch, i, results, r, w)
	}
	nb.old, nb.new, nb.meta, nb.key = nb.old[:w], nb.new[:w], nb.meta[:w], nb.key[:w]
	if w > 0 {
		inf.hand(nb, batch)
	}
	nb.reset(64 * inf.opts.BatchSize) // an outsized batch: do not keep its scratch
	clear(results)
	if cap(results) > 64*inf.opts.BatchSize {
		results = nil
	}
	inf.results = results[:0]
}

// noteKey makes the notes of the deltas of batch[i], whose results start
// at results[r], from the note w on, and returns the results' and the
// notes' next indexes: process's general case.
func (inf *Informer[T]) noteKey(batch []KeyDeltas[T], i int, results []applyResult[T], r, w int) (int, int) {
	nb := &inf.notes
	olds, news, metas, keys := nb.old, nb.new, nb.meta, nb.key
	kd := &batch[i]
	for _, d := range kd.Deltas {
		res := &results[r]
		r++
		if inf.detect != nil {
			inf.detectMutation(kd.Key, d, res)
		}
		// The usual deltas, a watch's update of a cached key and the
		// add of a new one, make their notes here (noteOf's cases,
		// inlined for these); noteOf makes the others, and the
		// updates while a restored cache may be replayed (it leaves
		// the replay out).
		var m uint8
		var old T
		switch {
		case res.err == nil && d.Type == DeltaUpdated && res.existed && !inf.snap.replaying:
			m, old = uint8(notifyUpdate), res.old
		case res.err == nil && d.Type != DeltaDeleted && !res.existed:
			m = metaOf(notifyAdd, !inf.isSynced)
		default:
			n, unchanged, ok := inf.noteOf(kd, d, res)
			if !ok {
				continue
			}
			m, old = metaOf(n.kind, n.flag), n.old
			if unchanged {
				m |= unchangedBit
				nb.unchanged++
			}
		}
		olds[w], news[w], metas[w], keys[w] = old, d.Object, m, int32(i)
		w++
	}
	return r, w
}

// plainNotes makes the notes of batch's keys, results their results and
// first the index in process's batch of batch[0], from nb's note w on, as
// long as a key has one delta, applied without error, that is a watch's
// update of a key the cache held or stores one it did not, with addMeta
// for an add: the steady state and a first list. It returns how many keys
// it took, for process's general case to go on from. It calls nothing, so
// that its loop keeps its values in registers. process calls it only
// without a mutation detector and outside a replay.
func plainNotes[T Object](batch []KeyDeltas[T], results []applyResult[T], first int, nb *noteBatch[T], w int, addMeta uint8) int {
	batch = batch[:min(len(batch), len(results), len(nb.meta)-w)]
	results = results[:len(batch)]
	olds, news := nb.old[w:][:len(batch)], nb.new[w:][:len(batch)]
	metas, keys := nb.meta[w:][:len(batch)], nb.key[w:][:len(batch)]
	for k := range batch {
		kd, res := &batch[k], &results[k]
		if len(kd.Deltas) != 1 || res.err != nil {
			return k
		}
		d := &kd.Deltas[0]
		switch {
		case d.Type == DeltaUpdated && res.existed: // (a bulk's are DeltaReplaced)
			olds[k], metas[k] = res.old, uint8(notifyUpdate)
		case d.Type != DeltaDeleted && !res.existed:
			metas[k] = addMeta
		default:
			return k
		}
		news[k], keys[k] = d.Object, int32(first+k)
	}
	return len(batch)
}

// detectMutation checks the object that delta d of key replaced or
// deleted in the cache against its copy, and records the new one.
func (inf *Informer[T]) detectMutation(key string, d Delta[T], res *applyResult[T]) {
	var err error
	switch {
	case d.Type == DeltaDeleted && res.existed:
		err = inf.detect.removed(key)
	case d.Type != DeltaDeleted && res.err == nil:
		err = inf.detect.handedOver(key, d.Object)
	}
	if err != nil {
		inf.report(err)
	}
}

// noteOf is the notification of delta d of kd, which the cache applied with
// result res; ok is false when there is none (a failure, reported, or the
// deletion of a key the cache did not hold). unchanged marks an update
// from a relist that found the object at the resourceVersion the cache
// had: only listeners that asked for such confirmations
// (HandlerOptions.RelistUnchanged) get it.
func (inf *Informer[T]) noteOf(kd *KeyDeltas[T], d Delta[T], res *applyResult[T]) (n notification[T], unchanged, ok bool) {
	if res.err != nil {
		inf.report(res.err)
	}
	if d.Type == DeltaDeleted {
		return notification[T]{new: d.Object, kind: notifyDelete, flag: d.FinalStateUnknown}, false, res.existed
	}
	if res.err != nil || inf.snap.replaying && inf.replayed(kd, d, res) {
		return n, false, false
	}
	if !res.existed {
		return notification[T]{new: d.Object, kind: notifyAdd, flag: !inf.isSynced}, false, true
	}
	if kd.fromBulk {
		// A bulk is a first list into an empty cache: the key was already
		// in the same list.
		inf.report(&ObjectError{Op: "list", Err: fmt.Errorf("%w: %q (the later object is kept)", ErrDuplicateKey, kd.Key)})
	}
	// A relist's object at the version the key had just before it is a
	// confirmation: the version in the cache, or the one an earlier delta of
	// this batch gave it (a watch event, or another relist queued while the
	// loop was behind).
	unchanged = d.Type == DeltaReplaced && !kd.fromBulk && sameVersion(res.old, d.Object)
	if unchanged && inf.snap.replaying && !inf.snap.trusted.Load() {
		unchanged = sameState(res.old, d.Object)
	}
	return notification[T]{old: res.old, new: d.Object, kind: notifyUpdate}, unchanged, true
}

// hand hands the notes of batch to every listener: those that asked for a
// relist's confirmations get them too.
func (inf *Informer[T]) hand(nb *noteBatch[T], batch []KeyDeltas[T]) {
	for _, l := range inf.snapshotListeners() {
		l.mu.Lock()
		l.pushNotesLocked(nb, batch)
		l.mu.Unlock()
		l.signal()
	}
}

// sameVersion reports whether a and b carry the same, non-empty
// resourceVersion: the same state of the object.
func sameVersion[T Object](a, b T) bool {
	rv := a.GetResourceVersion()
	return rv != "" && rv == b.GetResourceVersion()
}

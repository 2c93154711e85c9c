package informer

import (
	"errors"
	"runtime"
	"sync"
)

// Replacement: how a DeltaFIFO takes in a complete state (a relist), page by
// page, and infers what vanished.

// Replace replaces the queue's view of the world with list, a complete
// state: it queues a Replaced delta for every item and a
// Deleted delta (FinalStateUnknown) for every known or queued key that is not
// in list. It is BeginReplace, ReplaceItems and EndReplace in one call.
func (f *DeltaFIFO[T]) Replace(list []T) error {
	f.BeginReplace()
	err := f.ReplaceItems(list)
	if err2 := f.EndReplace(); err2 != nil {
		return errors.Join(err, err2)
	}
	return err
}

// BeginReplace starts a replacement that arrives in pages (ReplaceItems) and
// ends with EndReplace, so a relist never needs the whole list in memory at
// once. Beginning a new replacement abandons one in progress; its items stay
// queued, but no deletions are inferred from it.
func (f *DeltaFIFO[T]) BeginReplace() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bulkMode = f.bulkOK && f.nkeys == 0 && f.inflight == 0 && !f.knownAnyLocked()
	f.replacing, f.replaceSeen = false, nil
	if !f.bulkMode {
		f.beginLocked()
	}
}

// beginLocked starts a replacement that records the keys it sees.
func (f *DeltaFIFO[T]) beginLocked() {
	f.replacing = true
	if f.marks != nil {
		f.gen++ // no key is marked with it yet
		if f.gen == 0 {
			f.gen = 1 // 0 is "never seen"
		}
	} else {
		f.replaceSeen = map[string]struct{}{}
	}
}

// knownAnyLocked reports whether the known objects hold anything.
func (f *DeltaFIFO[T]) knownAnyLocked() bool {
	if f.known == nil {
		return false
	}
	for range f.known.All() {
		return true
	}
	return false
}

// ReplaceItems queues a Replaced delta for each item of a replacement in
// progress. Items whose key cannot be computed are skipped and reported in
// the returned error; the others are queued. A key seen twice in one
// replacement is queued twice, and reported with ErrDuplicateKey. (In an
// Informer's queue, a page of its first list of 4,096 items or more is
// read by two goroutines, a half each: the caller's and one it starts and
// waits for.)
func (f *DeltaFIFO[T]) ReplaceItems(items []T) error {
	var keys []string
	var errs []error
	if !f.metaKey {
		// A user key func: called without the lock.
		keys = f.takeKeyScratch(len(items))
		defer f.putKeyScratch(keys)
		for i, obj := range items {
			key, err := keyOf(f.keyFunc, obj)
			if err != nil {
				errs = append(errs, &ObjectError{Op: "replace", Err: err})
			}
			keys[i] = key
		}
	}
	// A first list into an empty queue and cache is queued in bulk pages,
	// made ready without the lock (which the consumer takes meanwhile).
	// (Made a chunk at a time, so that the consumer stores the first while
	// the next is made, a list in one page synced no sooner, each side
	// slowed by the other, and took more CPU, in three attempts: not kept.
	// Made in halves by two goroutines while the consumer waits, it syncs
	// sooner: see bulkOf.)
	var b *bulk[T]
	var berrs []error
	bulkMode := f.inBulkMode()
	for {
		if bulkMode && b == nil {
			b, berrs = f.bulkOf(keys, items, errs)
		}
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return ErrClosed
		}
		if bulkMode = f.bulkMode; bulkMode && b == nil {
			// It began between the check and the lock: the bulk is
			// made without the lock.
			f.mu.Unlock()
			continue
		}
		break
	}
	defer f.mu.Unlock()
	if bulkMode {
		f.pushBulkLocked(b)
		return errors.Join(berrs...)
	}
	// If b != nil, another replacement began meanwhile (a concurrent
	// caller): the items are queued as a page of it.
	if !f.replacing {
		f.beginLocked()
	}
	return errors.Join(f.replaceLocked(keys, items, errs)...)
}

// inBulkMode reports whether the replacement in progress queues bulks.
func (f *DeltaFIFO[T]) inBulkMode() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bulkMode
}

// keyBlock is the size of the blocks a bulk's default keys are cut from.
const keyBlock = 4096

// bulkOf makes a bulk page of items, with keys[i] the key of items[i] ("":
// none, left out) or, with keys nil, their default keys, and appends the
// errors of the objects that have none. It touches nothing of the queue.
//
// A page of default keys of at least bulkSplit objects is made by two
// goroutines, a half each, when the process has more than one processor:
// the consumer waits for the page meanwhile, and reading a list's objects
// for the first time is the longest part of its making.
func (f *DeltaFIFO[T]) bulkOf(keys []string, items []T, errs []error) (*bulk[T], []error) {
	n := len(items)
	b := &bulk[T]{}
	if f.marks != nil {
		b.staged = make([]slot[T], n)
	} else {
		b.keys, b.deltas = make([]string, n), make([]Delta[T], n)
	}
	if keys != nil {
		m := 0
		for i, key := range keys {
			if key != "" {
				b.setKey(m, key)
				b.setObj(m, items[i])
				m++
			}
		}
		b.cut(m)
		return b, errs
	}
	if n < bulkSplit || runtime.GOMAXPROCS(0) < 2 {
		m, errs := f.fillBulk(b, 0, items, errs)
		b.cut(m)
		return b, errs
	}
	h := n / 2
	var m1 int
	var errs1 []error
	var wg sync.WaitGroup
	wg.Go(func() { m1, errs1 = f.fillBulk(b, 0, items[:h], nil) })
	runtime.Gosched() // the new goroutine runs here, this one on the idle processor
	m2, errs2 := f.fillBulk(b, h, items[h:], nil)
	wg.Wait()
	if m1 < h {
		// Objects without a key in the first half: the second half's
		// entries move down to follow its last.
		if b.staged != nil {
			copy(b.staged[m1:], b.staged[h:h+m2])
		} else {
			copy(b.keys[m1:], b.keys[h:h+m2])
			copy(b.deltas[m1:], b.deltas[h:h+m2])
		}
	}
	b.cut(m1 + m2)
	return b, append(append(errs, errs1...), errs2...)
}

// bulkSplit is the size of a page from which bulkOf makes it with two
// goroutines.
const bulkSplit = 4096

// cut ends b at its first m entries, and clears those beyond (objects and
// keys left there by bulkOf).
func (b *bulk[T]) cut(m int) {
	if b.staged != nil {
		clear(b.staged[m:])
		b.staged = b.staged[:m]
	} else {
		clear(b.keys[m:])
		clear(b.deltas[m:])
		b.keys, b.deltas = b.keys[:m], b.deltas[:m]
	}
}

// fillBulk writes the entries of items, by their default keys, into b
// from position at on, in order, leaving out (and appending the errors of)
// the objects without a key, and returns how many it wrote.
//
// Keys are cut from shared blocks of about keyBlock bytes: one allocation
// per block, not per key (a cluster-scoped object's key is its name,
// shared). A block stays alive while any of its keys does, so a cache
// keeps at most the bytes of its first list's keys for them. The keys are
// hashed for the Indexer the queue feeds, if it feeds one (b.staged): here,
// on the reflector's goroutine, not on the consumer's, which stores them.
func (f *DeltaFIFO[T]) fillBulk(b *bulk[T], at int, items []T, errs []error) (int, []error) {
	block := make([]byte, 0, keyBlock+128) // the open block's keys, back to back
	type cut struct{ i, end int32 }        // entry i's key ends at block[end]
	cuts := make([]cut, 0, 256)
	flush := func() {
		s := string(block)
		from := int32(0)
		for _, c := range cuts {
			b.setKey(int(c.i), s[from:c.end])
			from = c.end
		}
		block, cuts = block[:0], cuts[:0]
	}
	// The objects' names and namespaces are read a group at a time, in a
	// loop of their own: the objects are read for the first time here,
	// mostly from memory, and in a short loop the processor has several
	// reads in flight at once.
	var names, spaces [metaGroup]string
	m := at
	for len(items) > 0 {
		group := items[:min(len(items), metaGroup)]
		items = items[len(group):]
		for i, obj := range group {
			if !isNilAs(f.ptr, obj) {
				names[i], spaces[i] = obj.GetName(), obj.GetNamespace()
			}
		}
		for i, obj := range group {
			name, ns := names[i], spaces[i]
			names[i], spaces[i] = "", ""
			if name == "" {
				_, err := MetaKey(obj)
				errs = append(errs, &ObjectError{Op: "replace", Err: err})
				continue
			}
			if ns == "" {
				b.setKey(m, name)
			} else {
				block = append(append(append(block, ns...), '/'), name...)
				cuts = append(cuts, cut{int32(m), int32(len(block))})
			}
			b.setObj(m, obj)
			m++
			if len(block) >= keyBlock {
				flush()
			}
		}
	}
	if len(block) > 0 {
		flush()
	}
	return m - at, errs
}

// metaGroup is how many objects bulkOf reads the names of at once.
const metaGroup = 64

// replaceLocked queues items as replaced, with keys (computed before, for
// a user key func) or the default key, and appends the errors.
func (f *DeltaFIFO[T]) replaceLocked(keys []string, items []T, errs []error) []error {
	for i, obj := range items {
		var key string
		q, mark := notQueued, uint32(0)
		if f.metaKey {
			// The default key calls no user code: build it under the lock
			// and share the string of a queued or cached key, so a relist
			// of known objects allocates no keys.
			var buf [128]byte
			b, ok := appendMetaKeyAs(f.ptr, buf[:0], obj)
			if !ok {
				_, err := MetaKey(obj)
				errs = append(errs, &ObjectError{Op: "replace", Err: err})
				continue
			}
			key, q, mark = f.internLocked(b, f.items.hashBytes(b), false)
		} else {
			if key = keys[i]; key == "" {
				continue
			}
			if q = f.queuedLocked(key); q.at == noPending && f.marks != nil {
				mark = f.marks.markOf(key)
			}
		}
		if f.seenLocked(key, q.at, mark) {
			errs = append(errs, &ObjectError{Op: "replace", Err: errors.Join(ErrDuplicateKey, errors.New(key))})
		}
		at := f.pushAtLocked(key, q, Delta[T]{Type: DeltaReplaced, Object: obj})
		f.sawLocked(key, at)
	}
	return errs
}

// pushBulkLocked queues b, made by bulkOf, as one bulk.
func (f *DeltaFIFO[T]) pushBulkLocked(b *bulk[T]) {
	b.initial = !f.populated
	if b.len() == 0 {
		return
	}
	if b.initial {
		f.initial += b.len()
	}
	if f.marks != nil && f.queue.Len() == 0 && f.inflight == 0 {
		// The first page into an empty cache: its entries become the
		// Indexer's (and its size a hint, exact for a list in one page).
		f.marks.stage(b.staged)
	}
	f.queue.Push(inBulk)
	f.bulks.Push(b)
	f.nkeys += b.len()
	if f.queue.Len() == 1 {
		f.signal()
	}
}

func (f *DeltaFIFO[T]) takeKeyScratch(n int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := f.keyScratch
	f.keyScratch = nil
	if cap(keys) < n {
		return make([]string, n)
	}
	return keys[:n]
}

func (f *DeltaFIFO[T]) putKeyScratch(keys []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.putKeyScratchLocked(keys)
}

func (f *DeltaFIFO[T]) putKeyScratchLocked(keys []string) {
	clear(keys)
	f.keyScratch = keys[:0]
}

// EndReplace ends the replacement in progress: every key known to the cache
// or queued that was not among its items gets a Deleted delta with
// FinalStateUnknown, carrying its last known state. It waits for Pop
// callbacks in progress to return, so that a key being processed is not
// missed.
func (f *DeltaFIFO[T]) EndReplace() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.pauseLocked()
	defer f.resumeLocked()
	if f.bulkMode {
		// Nothing was known or queued when it began: nothing can have
		// vanished.
		f.bulkMode = false
		if !f.populated {
			f.populated = true
			f.checkSyncedLocked()
		}
		return nil
	}
	if !f.replacing {
		f.beginLocked() // an end without a beginning: it saw nothing
	}
	defer func() { f.replacing, f.replaceSeen = false, nil }()
	f.vanishBulkLocked()
	f.vanishQueuedLocked()
	f.vanishKnownLocked()
	if !f.populated {
		f.populated = true
		f.checkSyncedLocked()
	}
	return nil
}

// vanishBulkLocked queues the deletion of the keys of an abandoned bulk
// replacement, still queued, that the replacement did not see.
func (f *DeltaFIFO[T]) vanishBulkLocked() {
	for i := range f.bulks.Len() {
		b := f.bulks.At(i)
		for j := b.next; j < b.len(); j++ {
			key := b.key(j)
			if f.queuedLocked(key).at != noPending {
				continue // its newest delta is queued: handled by vanishQueuedLocked
			}
			var mark uint32
			if f.marks != nil {
				mark = f.marks.markOf(key)
			}
			if f.seenLocked(key, noPending, mark) {
				continue
			}
			// Queued now, so once even if the bulk holds it twice.
			f.pushLocked(key, Delta[T]{Type: DeltaDeleted, Object: b.obj(j), FinalStateUnknown: true})
		}
	}
}

// vanishQueuedLocked queues the deletion of the queued keys that the
// replacement did not see, from their newest delta. Pushing to a queued
// key leaves the key table as it is.
func (f *DeltaFIFO[T]) vanishQueuedLocked() {
	for _, s := range f.items.slots {
		if s.at1 == 0 {
			continue
		}
		at := s.at1 - 1
		p := f.pendAt(at)
		if p.state != entryQueued || f.seenLocked(p.key, at, 0) {
			// A cached key with nothing queued (nothing is in flight
			// here), or one the replacement saw.
			continue
		}
		last := p.deltas[len(p.deltas)-1]
		if last.Type != DeltaDeleted {
			f.pushAtLocked(p.key, qpos{at: at}, Delta[T]{Type: DeltaDeleted, Object: last.Object, FinalStateUnknown: true})
		}
	}
}

// vanishKnownLocked queues the deletion of the keys the consumer applied
// (marked, or in the known objects) that the replacement did not see and
// that are not queued.
func (f *DeltaFIFO[T]) vanishKnownLocked() {
	vanished := func(key string, obj T) {
		q := f.queuedLocked(key)
		if q.at != noPending {
			return // handled by vanishQueuedLocked from its newest delta
		}
		f.pushAtLocked(key, q, Delta[T]{Type: DeltaDeleted, Object: obj, FinalStateUnknown: true})
	}
	switch {
	case f.marks != nil:
		// Every key it saw and the consumer applied is marked: the others
		// vanished.
		f.marks.unmarked(f.gen, vanished)
	case f.known != nil:
		for key, obj := range f.known.All() {
			if !f.seenLocked(key, noPending, 0) {
				vanished(key, obj)
			}
		}
	}
}

// Resync queues a Sync delta, carrying the cached object, for every key of
// the known objects that has nothing queued. It waits for Pop callbacks in
// progress to return.
func (f *DeltaFIFO[T]) Resync() error {
	if f.known == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.pauseLocked()
	defer f.resumeLocked()
	inBulk := map[string]bool{}
	for i := range f.bulks.Len() {
		if b := f.bulks.At(i); b != nil {
			for j := b.next; j < b.len(); j++ {
				inBulk[b.key(j)] = true
			}
		}
	}
	for key, obj := range f.known.All() {
		if f.queuedLocked(key).at == noPending && !inBulk[key] {
			f.pushLocked(key, Delta[T]{Type: DeltaSync, Object: obj})
		}
	}
	return nil
}

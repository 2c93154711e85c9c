package informer

import "errors"

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
	if f.bulkMode {
		f.replaceSeen = nil
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
// replacement is queued twice, and reported with ErrDuplicateKey.
func (f *DeltaFIFO[T]) ReplaceItems(items []T) error {
	keys := f.takeKeyScratch(len(items))
	var errs []error
	if !f.metaKey {
		// A user key func: called without the lock.
		for i, obj := range items {
			key, err := keyOf(f.keyFunc, obj)
			if err != nil {
				errs = append(errs, &ObjectError{Op: "replace", Err: err})
			}
			keys[i] = key
		}
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	if f.metaKey {
		// The default key calls no user code: build it under the lock and
		// share the string of a queued or cached key, so a relist of known
		// objects allocates no keys.
		for i, obj := range items {
			var buf [128]byte
			b, ok := appendMetaKey(buf[:0], obj)
			switch {
			case !ok:
				_, err := MetaKey(obj)
				errs = append(errs, &ObjectError{Op: "replace", Err: err})
				keys[i] = ""
			case f.bulkMode:
				keys[i] = string(b) // nothing is known or queued
			default:
				keys[i], _ = f.internLocked(b)
			}
		}
	}
	if f.bulkMode {
		f.pushBulkLocked(keys, items)
		clear(keys)
		f.keyScratch = keys[:0]
		f.mu.Unlock()
		return errors.Join(errs...)
	}
	if f.replaceSeen == nil {
		f.replaceSeen = map[string]struct{}{}
	}
	for i, key := range keys {
		if key == "" {
			continue
		}
		if _, dup := f.replaceSeen[key]; dup {
			errs = append(errs, &ObjectError{Op: "replace", Err: errors.Join(ErrDuplicateKey, errors.New(key))})
		}
		f.replaceSeen[key] = struct{}{}
		f.pushLocked(key, Delta[T]{Type: DeltaReplaced, Object: items[i]})
	}
	clear(keys)
	f.keyScratch = keys[:0]
	f.mu.Unlock()
	return errors.Join(errs...)
}

// pushBulkLocked queues the items with a key as one bulk.
func (f *DeltaFIFO[T]) pushBulkLocked(keys []string, items []T) {
	b := &bulk[T]{keys: make([]string, 0, len(keys)), deltas: make([]Delta[T], 0, len(keys)), initial: !f.populated}
	for i, key := range keys {
		if key != "" {
			b.keys = append(b.keys, key)
			b.deltas = append(b.deltas, Delta[T]{Type: DeltaReplaced, Object: items[i]})
		}
	}
	if len(b.keys) == 0 {
		return
	}
	if b.initial {
		f.initial += len(b.keys)
	}
	f.queue.push(qentry[T]{bulk: b})
	f.nkeys += len(b.keys)
	if f.queue.len() == 1 {
		f.signal()
	}
}

func (f *DeltaFIFO[T]) takeKeyScratch(n int) []string {
	f.mu.Lock()
	keys := f.keyScratch
	f.keyScratch = nil
	f.mu.Unlock()
	if cap(keys) < n {
		return make([]string, n)
	}
	return keys[:n]
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
	seen := f.replaceSeen
	f.replaceSeen = nil
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
	// Keys of an abandoned bulk replacement still queued are queued keys.
	for i := range f.queue.n {
		b := f.queue.at(i).bulk
		if b == nil {
			continue
		}
		for j := b.next; j < len(b.keys); j++ {
			key := b.keys[j]
			if _, ok := seen[key]; ok {
				continue
			}
			if _, queued := f.items[key]; queued {
				continue // its newest delta is in items: handled below
			}
			f.pushLocked(key, Delta[T]{Type: DeltaDeleted, Object: b.deltas[j].Object, FinalStateUnknown: true})
			seen[key] = struct{}{} // once, even if the bulk holds it twice
		}
	}
	for key, at := range f.items {
		if _, ok := seen[key]; ok {
			continue
		}
		p := &f.pend[at]
		last := p.deltas[len(p.deltas)-1]
		if last.Type != DeltaDeleted {
			f.pushLocked(key, Delta[T]{Type: DeltaDeleted, Object: last.Object, FinalStateUnknown: true})
		}
	}
	if f.known != nil {
		for key, obj := range f.known.All() {
			if _, ok := seen[key]; ok {
				continue
			}
			if _, queued := f.items[key]; queued {
				continue // handled above from its newest delta
			}
			f.pushLocked(key, Delta[T]{Type: DeltaDeleted, Object: obj, FinalStateUnknown: true})
		}
	}
	if !f.populated {
		f.populated = true
		f.checkSyncedLocked()
	}
	return nil
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
	for i := range f.queue.n {
		if b := f.queue.at(i).bulk; b != nil {
			for _, key := range b.keys[b.next:] {
				inBulk[key] = true
			}
		}
	}
	for key, obj := range f.known.All() {
		if _, queued := f.items[key]; !queued && !inBulk[key] {
			f.pushLocked(key, Delta[T]{Type: DeltaSync, Object: obj})
		}
	}
	return nil
}

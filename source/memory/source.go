package memory

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/informer-go/informer"
)

// Object is what a Source stores: an informer.Object whose resourceVersion
// the Source can set. Every Kubernetes type satisfies it through
// metav1.Object.
type Object interface {
	informer.Object
	SetResourceVersion(version string)
}

// Options configures a Source. The zero value means the documented defaults:
// no streaming lists, unlimited history, no page size cap, and a first write
// at resourceVersion 1.
type Options struct {
	// WatchList makes Watch honour SendInitialEvents (a streaming list).
	// When false, such a Watch returns an error wrapping
	// informer.ErrWatchListUnsupported, as an older API server does.
	WatchList bool
	// HistoryLimit, when positive, compacts the history after every write
	// so that it holds at most this many writes; resourceVersions and
	// continue tokens older than what it holds expire. 0 keeps every write
	// until Compact or CompactTo is called.
	HistoryLimit int
	// MaxPageSize, when positive, caps the number of items of one List page
	// even when ListOptions.Limit is larger or 0, as an API server may.
	MaxPageSize int
	// StartResourceVersion is the collection's resourceVersion before the
	// first write, which gets StartResourceVersion+1. It is also the first
	// compaction point: older versions are already expired, as if the
	// Source had been running for a while. Default 0.
	StartResourceVersion uint64
}

// Source is an in-memory informer.Source with a real resourceVersion history,
// for tests and for programs that produce their own objects. Create it with
// New; its methods are safe for concurrent use, including while lists and
// watches are in progress.
//
// Every write (Create, Update, Upsert, Delete) takes the next resourceVersion
// and is recorded in the history, from which watches and paginated lists are
// served, until it is compacted away.
//
// Objects handed to a write become owned by the Source: it sets their
// resourceVersion and then shares them, unchanged, with every List page,
// watch event and Get. Pass a fresh object to every write and never change an
// object after passing it, or after reading it back.
type Source[T Object] struct {
	opts Options
	id   uint64 // tells this Source's continue tokens from another's

	mu        sync.Mutex
	rv        uint64       // the current resourceVersion: the last write's
	compacted uint64       // the compaction point; history holds the writes after it
	objects   map[string]T // the current state
	history   []change[T]  // history[i] is the write at resourceVersion compacted+1+i
	// changed is closed, and cleared, whenever something a blocked Next may
	// wait for happens; a waiting Next creates it. Nil when nobody waits.
	changed  chan struct{}
	watchers map[*watcher[T]]struct{} // watchers not yet closed
	cache    *snapshot[T]             // the sorted state of the last paginated list
	epoch    uint64                   // continue tokens of older epochs are expired

	stalled     bool
	failLists   failure
	failWatches failure
	listCalls   int
	watchCalls  int
}

// change is one write in the history.
type change[T Object] struct {
	typ informer.EventType // EventAdded, EventModified or EventDeleted
	key string
	rv  string // the write's resourceVersion, shared with obj's
	obj T      // the new state; for EventDeleted, the last state
	old T      // for EventModified, the state before
}

// event returns the watch event for c.
func (c *change[T]) event() informer.Event[T] {
	return informer.Event[T]{Type: c.typ, Object: c.obj, ResourceVersion: c.rv}
}

var sourceIDs atomic.Uint64

// New returns an empty Source configured by opts. It starts no goroutine.
func New[T Object](opts Options) *Source[T] {
	opts.HistoryLimit = max(opts.HistoryLimit, 0)
	opts.MaxPageSize = max(opts.MaxPageSize, 0)
	return &Source[T]{
		opts:      opts,
		id:        sourceIDs.Add(1),
		rv:        opts.StartResourceVersion,
		compacted: opts.StartResourceVersion,
		objects:   make(map[string]T),
		watchers:  make(map[*watcher[T]]struct{}),
	}
}

// Create adds obj, which must not exist yet (ErrAlreadyExists), and sets
// its resourceVersion. Its key is informer.MetaKey's: "namespace/name", or
// "name" for a cluster-scoped object.
func (s *Source[T]) Create(obj T) error {
	key, err := informer.MetaKey(obj)
	if err != nil {
		return fmt.Errorf("memory: create: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[key]; ok {
		return fmt.Errorf("memory: create %q: %w", key, ErrAlreadyExists)
	}
	var zero T
	s.writeLocked(informer.EventAdded, key, obj, zero)
	return nil
}

// Update replaces the object stored under obj's key, which must exist
// (ErrNotFound), with obj, and sets obj's resourceVersion. The
// resourceVersion obj carries is ignored: there is no optimistic concurrency
// check.
func (s *Source[T]) Update(obj T) error {
	key, err := informer.MetaKey(obj)
	if err != nil {
		return fmt.Errorf("memory: update: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects[key]
	if !ok {
		return fmt.Errorf("memory: update %q: %w", key, ErrNotFound)
	}
	if sameObject(old, obj) {
		return fmt.Errorf("memory: update %q: %w", key, ErrObjectReused)
	}
	s.writeLocked(informer.EventModified, key, obj, old)
	return nil
}

// Upsert creates obj if its key does not exist and updates it otherwise.
func (s *Source[T]) Upsert(obj T) error {
	key, err := informer.MetaKey(obj)
	if err != nil {
		return fmt.Errorf("memory: upsert: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	typ := informer.EventAdded
	old, ok := s.objects[key]
	if ok {
		if sameObject(old, obj) {
			return fmt.Errorf("memory: upsert %q: %w", key, ErrObjectReused)
		}
		typ = informer.EventModified
	}
	s.writeLocked(typ, key, obj, old)
	return nil
}

// Delete removes the object stored under key ("namespace/name", or "name"),
// which must exist (ErrNotFound).
//
// The deletion takes a resourceVersion of its own, which watches see as the
// EventDeleted's ResourceVersion. The event's Object is the object's last
// stored state, unchanged: its own resourceVersion is that of its last write,
// not of the deletion (Kubernetes would set the deletion's; the Source cannot
// copy a T to do so).
func (s *Source[T]) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects[key]
	if !ok {
		return fmt.Errorf("memory: delete %q: %w", key, ErrNotFound)
	}
	var zero T
	s.writeLocked(informer.EventDeleted, key, old, zero)
	return nil
}

// Get returns the object stored under key, and whether there is one.
func (s *Source[T]) Get(key string) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects[key]
	return obj, ok
}

// Items returns the current objects sorted by key, in a new slice.
func (s *Source[T]) Items() []T {
	s.mu.Lock()
	entries := s.stateLocked(s.rv)
	s.mu.Unlock()
	sortEntries(entries)
	items := make([]T, len(entries))
	for i, e := range entries {
		items[i] = e.obj
	}
	return items
}

// Len returns the number of objects stored.
func (s *Source[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.objects)
}

// ResourceVersion returns the current resourceVersion, that of the last
// write, as a decimal string. Before the first write it is
// Options.StartResourceVersion ("0" by default).
func (s *Source[T]) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.FormatUint(s.rv, 10)
}

// CompareVersions orders two resourceVersions of the Source, which are
// numbers (informer.VersionComparer); false if either is not a number.
func (s *Source[T]) CompareVersions(a, b string) (int, bool) {
	return informer.CompareNumericVersions(a, b)
}

// writeLocked records one write at the next resourceVersion and wakes the
// watchers. For EventDeleted obj is the last state; for EventModified old is
// the state before.
func (s *Source[T]) writeLocked(typ informer.EventType, key string, obj, old T) {
	s.rv++
	rv := strconv.FormatUint(s.rv, 10)
	if typ == informer.EventDeleted {
		delete(s.objects, key)
	} else {
		obj.SetResourceVersion(rv)
		s.objects[key] = obj
	}
	s.history = append(s.history, change[T]{typ: typ, key: key, rv: rv, obj: obj, old: old})
	if limit := s.opts.HistoryLimit; limit > 0 && len(s.history) > limit {
		s.compactLocked(s.rv - uint64(limit))
	}
	s.broadcastLocked()
}

// compactLocked moves the compaction point to rv (no further than the
// current resourceVersion) and forgets the history up to it. Dropped entries
// are cleared so that the objects only they held can be freed, and a history
// left much smaller than its array is copied to a new one.
func (s *Source[T]) compactLocked(rv uint64) {
	rv = min(rv, s.rv)
	if rv <= s.compacted {
		return
	}
	n := int(rv - s.compacted)
	clear(s.history[:n])
	s.history = s.history[n:]
	if len(s.history) == 0 {
		s.history = nil
	} else if len(s.history) < cap(s.history)/4 {
		s.history = slices.Clone(s.history)
	}
	s.compacted = rv
	if s.cache != nil && s.cache.rv < rv {
		s.cache = nil
	}
}

// broadcastLocked wakes every Next that is waiting.
func (s *Source[T]) broadcastLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// parseVersionLocked parses a resourceVersion given to List or Watch. "" and "0"
// mean the current one.
func (s *Source[T]) parseVersionLocked(version string) (uint64, error) {
	if version == "" || version == "0" {
		return s.rv, nil
	}
	rv, err := strconv.ParseUint(version, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %q", ErrInvalidVersion, version)
	}
	if rv > s.rv {
		return 0, fmt.Errorf("%w: %d is newer than the current %d", ErrInvalidVersion, rv, s.rv)
	}
	return rv, nil
}

// expiredError reports a resourceVersion older than the compaction point.
func (s *Source[T]) expiredError(op string, rv uint64) error {
	return fmt.Errorf("memory: %s from resourceVersion %d: compacted up to %d: %w", op, rv, s.compacted, informer.ErrExpired)
}

// sameObject reports whether a and b are the same pointer.
func sameObject[T any](a, b T) bool {
	va, vb := reflect.ValueOf(any(a)), reflect.ValueOf(any(b))
	return va.Kind() == reflect.Pointer && vb.Kind() == reflect.Pointer && !va.IsNil() && va.Pointer() == vb.Pointer()
}

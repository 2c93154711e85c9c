package httpsrc

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"time"

	"github.com/informer-go/informer"
)

// snapshot is a complete list in poll mode: what the next poll is compared
// with.
type snapshot[T informer.Object] struct {
	version string
	etag    string // of the first page, for If-None-Match
	objs    map[string]polled[T]
}

// polled is an object of a snapshot and what tells its state apart.
type polled[T informer.Object] struct {
	obj     T
	version string // its resourceVersion, or a hash of its JSON
}

func hash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// stateOf is what a poll compares: the object's own version if it has
// one, else a hash of its JSON.
func stateOf[T informer.Object](obj T, h uint64) string {
	if v := obj.GetResourceVersion(); v != "" {
		return v
	}
	return "#" + strconv.FormatUint(h, 16)
}

// record adds a listed page to the snapshot being read (first: it starts
// one), and makes it the latest once its last page is in. It returns the
// version to report: the list's, or one made up when the service gives
// none.
func (s *Source[T]) record(first bool, r listed[T]) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if first || s.pending == nil {
		s.pending = &snapshot[T]{version: r.page.ResourceVersion, etag: r.etag, objs: map[string]polled[T]{}}
	}
	for i, obj := range r.page.Items {
		key, err := s.key(obj)
		if err == nil {
			s.pending.objs[key] = polled[T]{obj, stateOf(obj, r.hashes[i])}
		}
	}
	if r.page.Continue != "" {
		return s.pending.version
	}
	if s.pending.version == "" || s.last != nil && s.pending.version == s.last.version && !s.pending.same(s.last) {
		s.gen++
		s.pending.version = madeUpPrefix + strconv.FormatUint(s.gen, 10)
	}
	s.last, s.pending = s.pending, nil
	return s.last.version
}

// same reports whether two snapshots hold the same states.
func (a *snapshot[T]) same(b *snapshot[T]) bool {
	if len(a.objs) != len(b.objs) {
		return false
	}
	for k, p := range a.objs {
		if q, ok := b.objs[k]; !ok || q.version != p.version {
			return false
		}
	}
	return true
}

// poll returns a watcher that lists again every PollInterval and reports
// the differences from the snapshot at opts.ResourceVersion; a version
// other than the latest snapshot's is expired (the reflector lists).
func (s *Source[T]) poll(ctx context.Context, opts informer.WatchOptions) (informer.Watcher[T], error) {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == nil || last.version != opts.ResourceVersion {
		return nil, &StatusError{Op: "poll", Path: redact(s.opts.ListURL), Code: http.StatusGone, Expired: true}
	}
	ctx, cancel := context.WithCancel(ctx)
	return &pollWatcher[T]{s: s, ctx: ctx, cancel: cancel, base: last, heartbeat: opts.Heartbeat}, nil
}

// pollWatcher is the Watcher of poll mode. Every event of one poll
// carries the previous snapshot's version, and a bookmark with the new
// one ends them: a watch cut half way resumes from the previous snapshot
// and sees the same differences again, in order.
type pollWatcher[T informer.Object] struct {
	s      *Source[T]
	ctx    context.Context
	cancel context.CancelFunc
	base   *snapshot[T]
	queue  []informer.Event[T]
	next   *snapshot[T] // committed when its bookmark is handed out
	// errs are handed out before queue: duplicate keys found by a poll,
	// each reported once by this watcher (dups), as a list reports them.
	errs []error
	dups map[string]struct{}
	// heartbeat is WatchOptions.Heartbeat (nil: none), called for a poll
	// that finds nothing new: the service answers.
	heartbeat func()
}

func (w *pollWatcher[T]) Close() error {
	w.cancel()
	return nil
}

func (w *pollWatcher[T]) Next() (informer.Event[T], error) {
	for {
		if len(w.errs) > 0 {
			err := w.errs[0]
			w.errs = w.errs[1:]
			return informer.Event[T]{}, err
		}
		if len(w.queue) > 0 {
			ev := w.queue[0]
			w.queue = w.queue[1:]
			if len(w.queue) == 0 && w.next != nil {
				w.commit(w.next)
			}
			return ev, nil
		}
		t := time.NewTimer(w.s.opts.PollInterval)
		select {
		case <-w.ctx.Done():
			t.Stop()
			return informer.Event[T]{}, w.ctx.Err()
		case <-t.C:
		}
		if err := w.pollOnce(); err != nil {
			return informer.Event[T]{}, err
		}
	}
}

// commit makes next the snapshot later polls compare with (and the
// Source's latest, unless a list has replaced it meanwhile).
func (w *pollWatcher[T]) commit(next *snapshot[T]) {
	w.s.mu.Lock()
	if w.s.last == w.base {
		w.s.last = next
	}
	w.s.mu.Unlock()
	w.base, w.next = next, nil
}

// pollOnce lists (conditionally) and queues the differences.
func (w *pollWatcher[T]) pollOnce() error {
	header := http.Header{}
	if w.base.etag != "" {
		header.Set("If-None-Match", w.base.etag)
	}
	next := &snapshot[T]{objs: make(map[string]polled[T], len(w.base.objs))}
	cont := ""
	for first := true; ; first = false {
		r, err := w.s.list(w.ctx, cont, header)
		if err != nil {
			return err
		}
		if r.notModified {
			w.alive() // nothing changed
			return nil
		}
		if first {
			next.version, next.etag = r.page.ResourceVersion, r.etag
		}
		for i, obj := range r.page.Items {
			if key, err := w.s.key(obj); err == nil {
				if _, dup := next.objs[key]; dup {
					w.duplicate(key)
				}
				next.objs[key] = polled[T]{obj, stateOf(obj, r.hashes[i])}
			}
		}
		if r.page.Continue == "" {
			break
		}
		cont, header = r.page.Continue, nil
	}
	from := w.base.version
	for key, p := range next.objs {
		old, ok := w.base.objs[key]
		switch {
		case !ok:
			w.queue = append(w.queue, informer.Event[T]{Type: informer.EventAdded, Object: p.obj, ResourceVersion: from})
		case old.version != p.version:
			w.queue = append(w.queue, informer.Event[T]{Type: informer.EventModified, Object: p.obj, ResourceVersion: from})
		}
	}
	for key, old := range w.base.objs {
		if _, ok := next.objs[key]; !ok {
			w.queue = append(w.queue, informer.Event[T]{Type: informer.EventDeleted, Object: old.obj, ResourceVersion: from})
		}
	}
	if len(w.queue) == 0 {
		// The same objects in a new list: a create and a delete between
		// two polls, or a write that changed nothing. The new list is the
		// one to compare with from now on, or every later poll would be
		// a whole list again (its ETag is not the base's) and the version
		// would never reach the service's.
		if next.version == "" || next.version == from {
			next.version = from // nothing to tell: only the ETag moves
			w.commit(next)
			w.alive()
			return nil
		}
		w.queue = append(w.queue, informer.Event[T]{Type: informer.EventBookmark, ResourceVersion: next.version})
		w.next = next
		return nil
	}
	if next.version == "" || next.version == from {
		w.s.mu.Lock()
		w.s.gen++
		next.version = madeUpPrefix + strconv.FormatUint(w.s.gen, 10)
		w.s.mu.Unlock()
	}
	w.queue = append(w.queue, informer.Event[T]{Type: informer.EventBookmark, ResourceVersion: next.version})
	w.next = next
	return nil
}

// duplicate reports, once per watcher, a key that a poll's list holds
// twice: the later object is kept, as a List's is (the informer reports
// those with informer.ErrDuplicateKey too).
func (w *pollWatcher[T]) duplicate(key string) {
	if _, seen := w.dups[key]; seen {
		return
	}
	if w.dups == nil {
		w.dups = map[string]struct{}{}
	}
	w.dups[key] = struct{}{}
	w.errs = append(w.errs, fmt.Errorf("%w: %w", informer.ErrBadEvent, &DecodeError{Op: "poll", Where: redact(w.s.opts.ListURL),
		Reason: fmt.Sprintf("key %q twice in one list (the later object is kept)", key), Err: informer.ErrDuplicateKey}))
}

// alive reports a heartbeat, if the reflector asked for them.
func (w *pollWatcher[T]) alive() {
	if w.heartbeat != nil {
		w.heartbeat()
	}
}

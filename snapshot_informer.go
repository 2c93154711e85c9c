package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// snapshots is an informer's part in warm restarts.
type snapshots[T Object] struct {
	restored  bool   // Restore filled the cache; set before Run
	restoreRV string // the restored version
	replaying bool   // process loop: restored, not yet confirmed (a same-version update is a replay)
	confirmed atomic.Bool
	trusted   atomic.Bool // the relist after the restore is at a later version: equal versions are equal states
	// replace is 1 from a relist's BeginReplace to its EndReplace, 2 from
	// there until the reflector has moved its version on (Progress), 0
	// otherwise: the cache is at the reflector's version only at 0.
	replace atomic.Int32

	mu        sync.Mutex
	reqs      []chan snapshotView[T]
	want      atomic.Bool
	wake      chan struct{}
	stoppedRV string // after Run: the version of the drained cache; "" if not at one
}

// snapshotView is the cache at one version: what a snapshot writes.
type snapshotView[T Object] struct {
	rv   string
	objs []T
}

// WriteSnapshot writes the cache and the version it is current at to w,
// in the format of snapshot_format.go with each object in the Source's
// encoding (SnapshotSource; JSONCodec otherwise). While Run runs, it waits
// for a moment when the cache is exactly at the reflector's version: the
// queue empty, no relist half applied, no skipped event waiting for its
// repair; the objects are collected then (a pointer each) and encoded in
// the caller's goroutine. Before Run it writes a restored cache, after
// Run the cache as Run left it. It fails with ErrNoSnapshot when the
// informer has nothing to write (it never synced and restored nothing),
// and with ctx's error if no such moment comes first.
func (inf *Informer[T]) WriteSnapshot(ctx context.Context, w io.Writer) (SnapshotInfo, error) {
	v, err := inf.snapshotView(ctx)
	if err != nil {
		return SnapshotInfo{}, err
	}
	codec, scope := snapshotCodecOf(inf.refl.src)
	h := snapshotHeader{format: codec.Format(), typ: typeName[T](), scope: scope, rv: v.rv, written: time.Now(), count: len(v.objs)}
	n, err := writeSnapshot(w, h, v.objs, codec)
	info := SnapshotInfo{ResourceVersion: h.rv, Objects: h.count, Bytes: n, Written: h.written, Format: h.format, Type: h.typ, Scope: h.scope}
	return info, err
}

// snapshotView returns the cache at a version, from the process loop
// while Run runs.
func (inf *Informer[T]) snapshotView(ctx context.Context) (snapshotView[T], error) {
	inf.mu.Lock()
	switch inf.state {
	case stateIdle:
		inf.mu.Unlock()
		if !inf.snap.restored {
			return snapshotView[T]{}, fmt.Errorf("%w: not started, nothing restored", ErrNoSnapshot)
		}
		return snapshotView[T]{rv: inf.snap.restoreRV, objs: inf.cacheObjects()}, nil
	case stateStopped:
		inf.mu.Unlock()
		if inf.snap.stoppedRV == "" {
			return snapshotView[T]{}, fmt.Errorf("%w: stopped without a cache at a version", ErrNoSnapshot)
		}
		return snapshotView[T]{rv: inf.snap.stoppedRV, objs: inf.cacheObjects()}, nil
	}
	req := make(chan snapshotView[T], 1)
	inf.snap.mu.Lock()
	inf.snap.reqs = append(inf.snap.reqs, req)
	inf.snap.mu.Unlock()
	inf.snap.want.Store(true)
	inf.mu.Unlock()
	select {
	case inf.snap.wake <- struct{}{}:
	default:
	}
	select {
	case v := <-req:
		return v, nil
	case <-inf.stopped:
		return inf.snapshotView(ctx)
	case <-ctx.Done():
		return snapshotView[T]{}, waitError(ctx, inf.LastError)
	}
}

// cacheObjects returns every cached object.
func (inf *Informer[T]) cacheObjects() []T {
	objs := make([]T, 0, inf.ix.Len())
	for _, obj := range inf.ix.All() {
		objs = append(objs, obj)
	}
	return objs
}

// serveSnapshots answers the waiting WriteSnapshot calls, if the cache is
// at readRV: called by the process loop when a take found the queue empty.
func (inf *Informer[T]) serveSnapshots(readRV string) {
	if !inf.snap.want.Load() || !(inf.isSynced || inf.snap.restored) || readRV == "" {
		return
	}
	// In this order: a relist sets replace back to 0 only after it moved
	// the reflector's version on, so seeing 0 and then the same version
	// as before the take means the version is the cache's.
	if inf.snap.replace.Load() != 0 || inf.refl.LastSyncResourceVersion() != readRV || !inf.fifo.emptyNow() {
		return
	}
	if _, n := inf.refl.rep.skips.get(); n > 0 {
		return // the cache holds changes after readRV, and lacks one before
	}
	v := snapshotView[T]{rv: readRV, objs: inf.cacheObjects()}
	inf.snap.mu.Lock()
	reqs := inf.snap.reqs
	inf.snap.reqs = nil
	inf.snap.want.Store(false)
	inf.snap.mu.Unlock()
	for _, req := range reqs {
		req <- v
	}
}

// emptyNow reports whether nothing is queued and no replacement holds
// pops off.
func (f *DeltaFIFO[T]) emptyNow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queue.Len() == 0 && f.paused == 0
}

// Restore fills the cache from a snapshot read from r, before Run: Run then
// watches from the snapshot's version instead of listing. The whole
// snapshot is checked first (errors match ErrSnapshotTruncated,
// ErrSnapshotCorrupt, ErrSnapshotMismatch or ErrSnapshotNewerFormat); on
// any error the cache stays empty and Run starts with a list. Restored
// objects pass through Options.Transform and reach handlers as initial
// adds. HasSynced waits until the Source confirms the version (see
// ReflectorOptions.ResumeFrom), or for the relist if it has expired
// (ErrSnapshotExpired), unless Options.ServeRestored.
func (inf *Informer[T]) Restore(r io.Reader) (SnapshotInfo, error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.restoreLocked(r)
}

// restoreLocked is Restore with inf.mu held.
func (inf *Informer[T]) restoreLocked(r io.Reader) (SnapshotInfo, error) {
	info, err := inf.restore(r)
	if err != nil {
		inf.log.Warn("informer: snapshot not used; starting with a full list", "err", err)
		return info, err
	}
	inf.log.Info("informer: cache restored from a snapshot", "objects", info.Objects, "resourceVersion", info.ResourceVersion, "age", time.Since(info.Written).Round(time.Millisecond))
	return info, nil
}

func (inf *Informer[T]) restore(r io.Reader) (SnapshotInfo, error) {
	if inf.state != stateIdle || inf.snap.restored {
		return SnapshotInfo{}, fmt.Errorf("%w: Restore after Run started, or twice", ErrNoSnapshot)
	}
	codec, scope := snapshotCodecOf(inf.refl.src)
	want := snapshotHeader{format: codec.Format(), typ: typeName[T](), scope: scope}
	h, objs, n, err := readSnapshot(r, want, codec)
	info := SnapshotInfo{ResourceVersion: h.rv, Objects: h.count, Bytes: n, Written: h.written, Format: h.format, Type: h.typ, Scope: h.scope}
	if err != nil {
		return info, err
	}
	if h.rv == "" {
		return info, &SnapshotError{Op: "read", Offset: -1, Object: -1, Err: fmt.Errorf("%w: no resourceVersion", ErrSnapshotCorrupt)}
	}
	sink := informerSink[T]{inf}
	kept := objs[:0]
	for _, obj := range objs {
		out, err := sink.transform(obj)
		if err != nil {
			inf.report(err) // left out, as from a list
			continue
		}
		kept = append(kept, out)
	}
	clear(objs[len(kept):])
	if err := inf.ix.Replace(kept); err != nil || inf.ix.Len() != len(kept) {
		_ = inf.ix.Replace(nil)
		if err == nil {
			err = ErrDuplicateKey
		}
		return info, &SnapshotError{Op: "read", Offset: -1, Object: -1, Err: fmt.Errorf("%w: %w", ErrSnapshotCorrupt, errorsKinds(err))}
	}
	if inf.detect != nil {
		for key, obj := range inf.ix.All() {
			_ = inf.detect.handedOver(key, obj)
		}
	}
	inf.snap.restored, inf.snap.replaying, inf.snap.restoreRV = true, true, h.rv
	inf.refl.resumeFrom(h.rv)
	return info, nil
}

// errorsKinds keeps of a key or index failure only what it is, not the
// object it was about.
func errorsKinds(err error) error {
	switch {
	case errors.Is(err, ErrDuplicateKey):
		return errors.New("a key twice")
	case errors.Is(err, ErrEmptyName), errors.Is(err, ErrNilObject):
		return errors.New("an object without a key")
	}
	return fmt.Errorf("an object whose key or index values fail (%s)", errorKind(err))
}

// restoredStart hands the restored cache to the handlers registered
// before Run, as initial adds, and, with Options.ServeRestored, reports
// the informer synced. Called by Run before the process loop.
func (inf *Informer[T]) restoredStart() {
	if !inf.snap.restored {
		return
	}
	for _, l := range inf.snapshotListeners() {
		l.mu.Lock()
		for key, obj := range inf.ix.All() {
			l.pushLocked(key, notification[T]{new: obj, kind: notifyAdd, flag: true})
		}
		l.mu.Unlock()
		l.signal()
	}
}

// restoredSynced reports whether a restored cache counts as synced: with
// ServeRestored at once, else once the reflector confirmed its version
// and the queue is empty (what the watch read before is in).
func (inf *Informer[T]) restoredSynced(empty bool) bool {
	if !inf.snap.restored {
		return false
	}
	confirmed := empty && inf.snap.confirmed.Load()
	if confirmed || inf.fifo.HasSynced() {
		inf.snap.replaying = false
	}
	return inf.opts.ServeRestored || confirmed
}

// replayed reports whether a watch's update is the replay of the state the
// cache holds: a restored snapshot may be one event ahead of its version.
func (inf *Informer[T]) replayed(kd *KeyDeltas[T], d Delta[T], res *applyResult[T]) bool {
	return inf.snap.replaying && res.existed && !kd.fromBulk &&
		(d.Type == DeltaAdded || d.Type == DeltaUpdated) && sameVersion(res.old, d.Object)
}

// drainForSnapshot, after Run's goroutines have stopped, applies what is
// left in the queue to the cache if apply (no handler is called any more:
// after a restart they get the whole cache as initial adds) and records
// the version the cache is then at, if it is at one.
func (inf *Informer[T]) drainForSnapshot(apply bool) {
	if !inf.isSynced && !inf.snap.restored {
		return
	}
	buf := make([]KeyDeltas[T], 0, inf.opts.BatchSize)
	for apply {
		batch, initial, err := inf.fifo.take(buf[:0], inf.opts.BatchSize)
		if err != nil || len(batch) == 0 {
			break
		}
		clear(inf.ix.applyBatch(batch, inf.results[:0]))
		inf.fifo.done(batch, initial)
	}
	if _, n := inf.refl.rep.skips.get(); n > 0 || inf.snap.replace.Load() != 0 || !inf.fifo.emptyNow() {
		return
	}
	inf.snap.stoppedRV = inf.refl.LastSyncResourceVersion()
}

// sameState reports whether a relist's object is the restored one: after
// a restore, before the source confirmed it, equal versions do not prove
// it (a source that lost its history may give the same versions to other
// states), so a relist then compares the objects themselves, unless the
// list is at a version the Source orders after the snapshot's (its
// history went on: ListVersion; a streaming list says its version only at
// its end, so its objects are compared). The cost is paid only by such a
// relist. An embedded TypeMeta (apiVersion and kind) is left out: it says
// how the object travelled, not its state (kube-apiserver leaves it out of
// list items and protobuf objects, and sends it with watch events).
func sameState[T Object](restored, listed T) bool {
	if reflect.DeepEqual(restored, listed) {
		return true
	}
	a, b := reflect.ValueOf(restored), reflect.ValueOf(listed)
	if a.Kind() != reflect.Pointer || a.IsNil() || b.IsNil() || a.Elem().Kind() != reflect.Struct {
		return false
	}
	f, ok := a.Elem().Type().FieldByName("TypeMeta")
	if !ok || !f.Anonymous || len(f.Index) != 1 || !f.IsExported() {
		return false
	}
	// A shallow copy of the restored object with the listed one's
	// TypeMeta: the cached object itself is never written.
	c := reflect.New(a.Elem().Type())
	c.Elem().Set(a.Elem())
	c.Elem().Field(f.Index[0]).Set(b.Elem().Field(f.Index[0]))
	return reflect.DeepEqual(c.Interface(), any(listed))
}

// Confirmed wakes the process loop to mark a restored cache synced: the
// reflector's source confirmed its version.
func (s informerSink[T]) Confirmed() {
	s.inf.snap.confirmed.Store(true)
	select {
	case s.inf.progress <- struct{}{}:
	default:
	}
}

// ListVersion hears the version of a list that is to replace a restored
// cache not yet confirmed: when the Source orders it at or after the
// restored version, the server's history went on from the snapshot's, and
// equal versions name equal states again. (A server that lost its history
// lists at an older version; one that then went past the snapshot's
// version could not be told from one that did not: see Restore.)
func (s informerSink[T]) ListVersion(rv string) {
	inf := s.inf
	if order := inf.applied.order; inf.snap.restored && order != nil {
		if c, ok := order(inf.snap.restoreRV, rv); ok && c <= 0 {
			inf.snap.trusted.Store(true)
		}
	}
}

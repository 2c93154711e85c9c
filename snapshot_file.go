package informer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// SnapshotOptions configures an informer's warm restarts from a file. The
// zero value means none.
type SnapshotOptions struct {
	// Path is the snapshot file; its directory must exist (a write
	// fails otherwise, logged at Warn). When it is set, Run restores the cache
	// from it if it exists and is good (see Informer.Restore; a missing
	// file is a cold start, a bad one is logged and a cold start too),
	// writes it every Every, and writes it once more when Run ends, after
	// its goroutines stopped. Each write goes to a temporary file in the
	// same directory, synced, then renamed over Path: a crash leaves the
	// old snapshot or the new one, never a part of one.
	Path string
	// Every is how often Run writes the snapshot; 0 means only when Run
	// ends. A snapshot costs a pointer per object while the cache is held
	// still (for the collection, not the encoding), then the encoding in
	// its own goroutine: see BENCHMARKS.md for the time per object.
	Every time.Duration
}

// WriteSnapshotFile writes WriteSnapshot's snapshot to path, crash-safe:
// into a temporary file beside it, synced, then renamed over path. A
// failure leaves path as it was.
func (inf *Informer[T]) WriteSnapshotFile(ctx context.Context, path string) (SnapshotInfo, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return SnapshotInfo{}, &SnapshotError{Op: "write", Path: path, Offset: -1, Object: -1, Err: err}
	}
	tmp := f.Name()
	info, err := inf.WriteSnapshot(ctx, f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		var se *SnapshotError
		if errors.As(err, &se) {
			se.Path = path
			return info, se
		}
		return info, &SnapshotError{Op: "write", Path: path, Offset: -1, Object: -1, Err: err}
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself survives a crash
		_ = d.Close()
	}
	return info, nil
}

// RestoreFile is Restore from the file at path. A missing file fails with
// an error matching fs.ErrNotExist, and is not logged.
func (inf *Informer[T]) RestoreFile(path string) (SnapshotInfo, error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.restoreFileLocked(path)
}

// restoreFileLocked is RestoreFile with inf.mu held.
func (inf *Informer[T]) restoreFileLocked(path string) (SnapshotInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return SnapshotInfo{}, &SnapshotError{Op: "read", Path: path, Offset: -1, Object: -1, Err: err}
	}
	defer f.Close()
	info, err := inf.restoreLocked(f)
	var se *SnapshotError
	if errors.As(err, &se) {
		se.Path = path
	}
	return info, err
}

// snapshotAtStart restores Options.Snapshot.Path, if set, before Run
// starts anything; Run holds inf.mu.
func (inf *Informer[T]) snapshotAtStart() {
	path := inf.opts.Snapshot.Path
	if path == "" || inf.snap.restored {
		return
	}
	if _, err := inf.restoreFileLocked(path); errors.Is(err, fs.ErrNotExist) {
		inf.log.Info("informer: no snapshot; starting with a full list", "path", path)
	} else if err != nil && inf.opts.OnError != nil {
		inf.opts.OnError(err)
	}
}

// snapshotEvery writes Options.Snapshot.Path every Options.Snapshot.Every
// until ctx ends.
func (inf *Informer[T]) snapshotEvery(ctx context.Context) {
	t := time.NewTicker(inf.opts.Snapshot.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		wctx, cancel := context.WithTimeout(ctx, inf.opts.Snapshot.Every)
		info, err := inf.WriteSnapshotFile(wctx, inf.opts.Snapshot.Path)
		cancel()
		inf.logSnapshotWrite(info, err, ctx.Err() != nil)
	}
}

// snapshotAtEnd writes Options.Snapshot.Path when Run ends.
func (inf *Informer[T]) snapshotAtEnd() {
	if inf.opts.Snapshot.Path == "" {
		return
	}
	if inf.snap.stoppedRV == "" {
		inf.log.Info("informer: no snapshot written at the end: the cache was not at a version (never synced, or stopped during a relist)", "path", inf.opts.Snapshot.Path)
		return
	}
	info, err := inf.WriteSnapshotFile(context.Background(), inf.opts.Snapshot.Path)
	inf.logSnapshotWrite(info, err, false)
}

func (inf *Informer[T]) logSnapshotWrite(info SnapshotInfo, err error, stopping bool) {
	switch {
	case err == nil:
		inf.log.Debug("informer: snapshot written", "path", inf.opts.Snapshot.Path, "objects", info.Objects, "bytes", info.Bytes, "resourceVersion", info.ResourceVersion)
	case stopping:
	default:
		inf.log.Warn("informer: snapshot not written", "err", err)
		if inf.opts.OnError != nil {
			inf.opts.OnError(fmt.Errorf("informer: snapshot: %w", err))
		}
	}
}

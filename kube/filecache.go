package kube

import (
	"os"
	"slices"
	"sync"
	"time"
)

// fileRereadPeriod is the longest a reloadingFiles serves what it read
// without reading the files again, even when they look unchanged.
const fileRereadPeriod = time.Minute

// reloadingFiles holds a value parsed from one or more files, and parses
// the files again when one of them changes. Every get stats the files (one
// cheap system call each) and reads them again when a modification time or
// size differs from what was read, or when fileRereadPeriod has passed since
// the last read, or after invalidate. A read or parse that fails after a
// good one keeps the good value, and is tried again on the next get: a
// rotation caught half way heals itself.
//
// This is how a rotated service account token, or a renewed client
// certificate, reaches the next request.
type reloadingFiles[T any] struct {
	paths []string
	parse func(data [][]byte) (T, error)
	now   func() time.Time

	mu     sync.Mutex
	loaded bool
	value  T
	stamps []fileStamp
	readAt time.Time
}

// fileStamp is what tells that a file changed.
type fileStamp struct {
	modTime int64 // UnixNano
	size    int64
}

// newReloadingFiles returns a reloadingFiles over paths; now nil means
// time.Now.
func newReloadingFiles[T any](parse func([][]byte) (T, error), now func() time.Time, paths ...string) *reloadingFiles[T] {
	if now == nil {
		now = time.Now
	}
	return &reloadingFiles[T]{paths: paths, parse: parse, now: now}
}

// get returns the current value, reading the files first if they changed.
func (r *reloadingFiles[T]) get() (T, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.loaded && now.Sub(r.readAt) < fileRereadPeriod {
		if stamps, err := statFiles(r.paths); err == nil && slices.Equal(stamps, r.stamps) {
			return r.value, nil
		}
	}
	v, stamps, err := r.read()
	if err != nil {
		if r.loaded {
			return r.value, nil
		}
		var zero T
		return zero, err
	}
	r.loaded, r.value, r.stamps, r.readAt = true, v, stamps, now
	return v, nil
}

// invalidate makes the next get read the files again.
func (r *reloadingFiles[T]) invalidate() {
	r.mu.Lock()
	r.readAt = time.Time{}
	r.stamps = nil
	r.mu.Unlock()
}

// read stats, then reads and parses the files. Stat comes first: a file
// that changes in between gets a stamp older than its content, and is read
// once more on the next get, which is harmless.
func (r *reloadingFiles[T]) read() (T, []fileStamp, error) {
	var zero T
	stamps, err := statFiles(r.paths)
	if err != nil {
		return zero, nil, err
	}
	data := make([][]byte, len(r.paths))
	for i, p := range r.paths {
		if data[i], err = os.ReadFile(p); err != nil {
			return zero, nil, err
		}
	}
	v, err := r.parse(data)
	if err != nil {
		return zero, nil, err
	}
	return v, stamps, nil
}

// statFiles returns the stamps of paths.
func statFiles(paths []string) ([]fileStamp, error) {
	stamps := make([]fileStamp, len(paths))
	for i, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		stamps[i] = fileStamp{modTime: fi.ModTime().UnixNano(), size: fi.Size()}
	}
	return stamps, nil
}

package informer

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Snapshots: a warm restart saves an informer's cache and the version it
// is current at (WriteSnapshot), and a later process starts from them
// (Restore), watching from that version instead of listing everything
// again. The format is the library's own container (snapshot_format.go)
// around each object encoded in the Source's own wire format
// (SnapshotCodec), so that reading one back goes through the Source's
// decoders, structural sharing included.

// Sentinel errors of snapshots. A snapshot that fails with any of them is
// not used: the informer starts cold (a full list), as if there were none.
var (
	// ErrSnapshotTruncated: the snapshot ends before its last byte (a
	// write cut short, a partial copy).
	ErrSnapshotTruncated = errors.New("informer: snapshot truncated")
	// ErrSnapshotCorrupt: the snapshot is not one, its checksum does not
	// match, a length or count is impossible, or an object in it does not
	// decode or has no key, or a key twice.
	ErrSnapshotCorrupt = errors.New("informer: snapshot corrupt")
	// ErrSnapshotMismatch: the snapshot holds something else than this
	// informer caches: another Go type, another encoding, another
	// resource, namespace or selector (the Source's SnapshotScope).
	ErrSnapshotMismatch = errors.New("informer: snapshot of something else")
	// ErrSnapshotNewerFormat: the snapshot was written by a newer version
	// of the library, in a format this one cannot read.
	ErrSnapshotNewerFormat = errors.New("informer: snapshot format newer than this library")
	// ErrSnapshotExpired: the Source no longer has the history since the
	// snapshot's version (it answered ErrExpired, which the error also
	// matches). The restored cache is kept, and a relist tells handlers
	// only what changed since the snapshot.
	ErrSnapshotExpired = errors.New("informer: snapshot's resourceVersion expired at the source")
	// ErrNoSnapshot: there is nothing to snapshot yet (the informer has
	// neither synced nor restored one), or Restore was called after Run
	// started.
	ErrNoSnapshot = errors.New("informer: no snapshot possible")
)

// SnapshotError reports a snapshot that could not be written or read. It
// names where the fault is (a byte offset, an object's index), never what
// the snapshot holds.
type SnapshotError struct {
	// Op is "read" or "write" (or "restore" for a restored version the
	// source refused).
	Op string
	// Path is the file, when there is one.
	Path string
	// Offset is the byte offset where the fault was found; -1 if none.
	Offset int64
	// Object is the index of the object concerned; -1 if none.
	Object int
	Err    error
}

// Error describes the SnapshotError.
func (e *SnapshotError) Error() string {
	s := "informer: snapshot " + e.Op
	if e.Path != "" {
		s += " " + e.Path
	}
	if e.Object >= 0 {
		s += fmt.Sprintf(", object %d", e.Object)
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf(", at byte %d", e.Offset)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the reason, which matches ErrSnapshotTruncated,
// ErrSnapshotCorrupt, ErrSnapshotMismatch, ErrSnapshotNewerFormat or
// ErrSnapshotExpired (or is an I/O error).
func (e *SnapshotError) Unwrap() error { return e.Err }

// SnapshotInfo describes a snapshot.
type SnapshotInfo struct {
	// ResourceVersion is the version the snapshot is current at.
	ResourceVersion string
	// Objects is how many objects it holds.
	Objects int
	// Bytes is its size.
	Bytes int64
	// Written is when it was written.
	Written time.Time
	// Format is the SnapshotCodec's Format.
	Format string
	// Type is the Go type of the objects.
	Type string
	// Scope is the Source's SnapshotScope: what it serves.
	Scope string
}

// SnapshotCodec encodes objects into a snapshot and decodes them back. A
// Source that implements SnapshotSource supplies its own, in its wire
// format; otherwise snapshots use JSONCodec.
type SnapshotCodec[T Object] interface {
	// Format names the encoding ("json", "kube-protobuf"...). A snapshot
	// in another is refused with ErrSnapshotMismatch.
	Format() string
	// Append appends obj's encoding to dst.
	Append(dst []byte, obj T) ([]byte, error)
	// NewDecoder returns a decoder for the objects of one snapshot, used
	// by one goroutine, which may share values between the objects it
	// decodes (structural sharing). It must not keep data after it
	// returns, and never panic on hostile input.
	NewDecoder() func(data []byte) (T, error)
}

// SnapshotSource is an optional interface of a Source whose objects a
// snapshot stores in its own encoding, and which says what it serves.
type SnapshotSource[T Object] interface {
	// SnapshotCodec returns the codec of snapshots of this Source; nil
	// means JSONCodec.
	SnapshotCodec() SnapshotCodec[T]
	// SnapshotScope says what the Source serves (its resource,
	// namespace and selectors), so that a snapshot of another is refused.
	SnapshotScope() string
}

// JSONCodec returns the default SnapshotCodec: encoding/json, format
// "json". It works for any T that encoding/json can read back, which
// Kubernetes types and plain structs with exported fields can.
func JSONCodec[T Object]() SnapshotCodec[T] { return jsonCodec[T]{} }

type jsonCodec[T Object] struct{}

func (jsonCodec[T]) Format() string { return "json" }

func (jsonCodec[T]) Append(dst []byte, obj T) ([]byte, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func (jsonCodec[T]) NewDecoder() func([]byte) (T, error) {
	return func(data []byte) (T, error) {
		var obj T
		err := json.Unmarshal(data, &obj)
		return obj, err
	}
}

// snapshotCodecOf returns src's codec and scope, or JSONCodec and "".
func snapshotCodecOf[T Object](src Source[T]) (SnapshotCodec[T], string) {
	if ss, ok := any(src).(SnapshotSource[T]); ok {
		c := ss.SnapshotCodec()
		if c == nil {
			c = JSONCodec[T]()
		}
		return c, ss.SnapshotScope()
	}
	return JSONCodec[T](), ""
}

// typeName is the full name of T, pointer included: "*k8s.io/api/core/v1.Pod".
func typeName[T any]() string {
	t := reflect.TypeFor[T]()
	prefix := ""
	for t.Kind() == reflect.Pointer {
		prefix += "*"
		t = t.Elem()
	}
	if t.PkgPath() == "" {
		return prefix + t.String()
	}
	return prefix + t.PkgPath() + "." + t.Name()
}

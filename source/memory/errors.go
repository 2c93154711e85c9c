package memory

import "errors"

// Sentinel errors returned by a Source. Match them with errors.Is: the
// Source wraps them with the key or resourceVersion concerned.
//
// Expired resourceVersions and continue tokens are reported with
// informer.ErrExpired, and a streaming list that is switched off with
// informer.ErrWatchListUnsupported, as the informer.Source contract asks.
var (
	// ErrNotFound is returned by Update and Delete for a key the Source
	// does not hold.
	ErrNotFound = errors.New("memory: object not found")
	// ErrAlreadyExists is returned by Create for a key the Source already
	// holds.
	ErrAlreadyExists = errors.New("memory: object already exists")
	// ErrObjectReused is returned by Update and Upsert when they are given
	// the very object (the same pointer) the Source already stores for that
	// key: a write must bring a fresh object, because the stored one is
	// shared with every reader and must not change.
	ErrObjectReused = errors.New("memory: object already stored; write a fresh copy")
	// ErrInjected is the error of a List or Watch failed by FailLists or
	// FailWatches when they were given a nil error.
	ErrInjected = errors.New("memory: injected failure")
	// ErrInvalidVersion is returned for a resourceVersion that is not a
	// decimal number, or that is newer than the Source's current one.
	ErrInvalidVersion = errors.New("memory: invalid resourceVersion")
)

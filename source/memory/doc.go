// Package memory is an in-memory informer.Source: a collection of objects
// that lists and watches like a Kubernetes API server backed by etcd, with a
// resourceVersion history, compaction, and faults on demand.
//
// It serves two kinds of users. Tests of code built on informers (handlers,
// controllers, the informer machinery itself) use it as a fake API server
// they fully control: write objects, then watch the consumer react; drop the
// watch, compact the history or stall the stream, and check that the consumer
// recovers. Programs that produce their own objects can use it as a real
// Source, and run an informer over it.
//
// # Writes and resourceVersions
//
// Create, Update, Upsert and Delete change the collection. Every write takes
// the next resourceVersion, a decimal integer one greater than the last
// (ResourceVersion returns the current one), sets it on the object, and is
// appended to the history. Objects are keyed as informer.MetaKey keys them:
// "namespace/name", or "name" when cluster-scoped.
//
// An object passed to a write belongs to the Source from then on: the Source
// sets its resourceVersion once, and then shares it, unchanged, with every
// reader. Pass a fresh object to every write; never change one after writing
// it, or after reading it back from Get, Items, List or Watch.
//
// # Lists and watches
//
// List pages are consistent: every page of one list shows the collection as
// of the first page's resourceVersion, rebuilt from the history whatever was
// written in between. Watch replays the history after any resourceVersion it
// still holds, then follows new writes; with Options.WatchList it can also
// start with the current state (a streaming list).
//
// The history is kept until it is compacted, by Compact, CompactTo or
// Options.HistoryLimit. Lists, watches and continue tokens that need what was
// compacted fail with an error wrapping informer.ErrExpired, and so does an
// open watch that falls behind the compaction point, which is how a consumer
// learns it must list again. A continue token that this Source did not
// make is expired too; ExpireContinueTokens expires them all.
//
// # Faults
//
// DropWatches, Compact, FailLists, FailWatches, StallWatches,
// ExpireContinueTokens, Bookmark and InjectEvent reproduce what a real server
// and network do to a client; ListCalls, WatchCalls and OpenWatches count
// what the consumer did. All of them act immediately and may be called from
// any goroutine while the consumer runs.
//
// # Sharding
//
// A Source serves its whole collection to everyone. A replica that owns
// part of it wraps the Source in a shard.Filter (shard.NewFilter), which
// keeps the objects whose hash is in the replica's ranges.
//
// # Goroutines and time
//
// A Source starts no goroutine. A watcher reads the shared history through
// its own cursor, and a blocked Next waits on a channel that the next write
// closes. A watch timeout is a time.Timer, so testing/synctest's fake time
// drives it: inside a bubble, a consumer blocked in Next is durably blocked.
// Use a Source inside one bubble only.
package memory

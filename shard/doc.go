// Package shard splits a collection between the replicas of a
// controller by hash: each replica holds and works only the objects whose
// hash falls in its ranges, so that adding replicas divides the memory,
// the watch traffic and the work instead of copying them.
//
// The hash is kube-apiserver's (KEP-5866, feature gate
// ShardedListAndWatch, 1.36+): 64-bit FNV-1a of metadata.uid (FieldUID)
// or metadata.namespace (FieldNamespace), and a Set of ranges of it
// becomes the shardSelector parameter (Set.Selector), which the server
// applies to lists, watches and streaming lists.
//
// Where the ranges are applied:
//
//   - source/kube: its Options.Shard sends the selector and checks every
//     object received against the Set. A server that ignores it (gate off,
//     or older) sends everything; the Source then filters on the client
//     (correct, but each replica receives and decodes the whole
//     collection; its Source.ShardStats says which happened), or, with
//     Options.ShardStrict, fails with its ErrShardIgnored.
//   - Any other Source (source/memory, source/httpsrc): NewFilter wraps
//     it and keeps the objects whose hash (ByKey, ByUID, ByField...) is
//     in the Set, filtering on the client.
//
// Package shard/ring decides which replica owns which ranges, through
// coordination.k8s.io Leases, and hands ranges over without two replicas
// ever working the same object at once.
package shard

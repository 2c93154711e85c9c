package kube

// Sharing is Options.Sharing: whether decoded objects share their
// identical parts.
type Sharing uint8

const (
	// SharingDefault is the zero value: SharingOn.
	SharingDefault Sharing = iota
	// SharingOn decodes a slice, map or pointer to a struct (a container,
	// an env list, a volume, a toleration list, labels, annotations, an
	// owner reference, a managed-fields entry's fields) whose JSON or
	// protobuf is byte for byte that of one the Source decoded before,
	// and that an object still holds, into that same value; metadata only
	// (*metav1.PartialObjectMetadata) shares its labels, annotations,
	// owner references and managed fields the same way. The table that
	// finds them (one per Source, for both encodings) holds, per shared
	// value, a copy of its bytes and a weak pointer: it pins nothing
	// objects do not, and forgets everything past 64 MiB. What it saves:
	// 20,000 pods of one Deployment hold 1.6 KiB each instead of 12.2
	// KiB, 50,000 pods of 500 Deployments 3.1 KiB instead of 12.2
	// (client-go: 13.4; see BENCHMARKS.md, bench/scale); in protobuf,
	// 50,000 pods of 500 Deployments hold 3.4 KiB each instead of 12.1
	// (client-go: 13.3) and sync 1.7 to 3.3 times faster, since a value
	// found in the table is not decoded again (in JSON too: 20,000 pods
	// of one template allocate 23 times per pod instead of 158). What it
	// costs: a hash of each shareable value's bytes and a lookup, about
	// 10% more instructions per object on JSON with nothing to share
	// (bench/workload's BenchmarkSharingCost), about 6% in protobuf (the
	// table's share of a CPU profile of bench/workload's
	// BenchmarkPodProtobufSharing/unique/on), less than nothing when most
	// of it repeats (less to decode, allocate and collect).
	//
	// Shared values are read-only, like every cached object, and the
	// Source checks them: each value's fingerprint is taken when it
	// enters the table and compared each time its bytes come again,
	// before it is handed out. A value some program wrote into is never
	// handed out again: the object being decoded gets the bytes decoded
	// afresh (it equals what the server sent), the written value leaves
	// the table, and the write is reported (a *SharedWriteError,
	// ErrSharedValueWritten and informer.ErrObjectMutated, naming the
	// resource, the object being decoded and the field path, never the
	// value: to the informer's OnError and log at Warn, and in
	// Health.Mutations). So a write into a cached object changes what it
	// changes without sharing (that object, until its next change) plus
	// the objects that hold the written value at that moment (the other
	// pods of its Deployment, say), and nothing decoded after it. What
	// the check costs: a walk of each value found in the table (about
	// 25% more instructions per pod when nearly everything is found,
	// 2,000 pods of one Deployment: bench/workload's
	// BenchmarkSharingHits, still about half of SharingOff's), nothing
	// when nothing repeats, and 24 bytes per table entry.
	SharingOn
	// SharingOff gives every object values of its own, as client-go
	// does: a write into a cached object (which the informer's contract
	// forbids anyway) changes that object alone, until its next change
	// from the server.
	SharingOff
)

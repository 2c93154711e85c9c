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
	SharingOn
	// SharingOff gives every object values of its own, as client-go
	// does: for programs that write into the objects they get (which
	// the informer's contract forbids anyway).
	SharingOff
)

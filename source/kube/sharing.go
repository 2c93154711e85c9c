package kube

// Sharing is Options.Sharing: whether decoded objects share their
// identical parts.
type Sharing uint8

const (
	// SharingDefault is the zero value: SharingOn.
	SharingDefault Sharing = iota
	// SharingOn decodes a slice, map or pointer to a struct (a
	// container, an env list, a volume, a toleration list, labels,
	// annotations, an owner reference, a managed-fields entry's fields)
	// whose JSON is byte for byte that of one the Source decoded before,
	// and that an object still holds, into that same value. The table
	// that finds them holds, per shared value, a copy of its JSON and a
	// weak pointer: it pins nothing objects do not, and forgets
	// everything past 64 MiB of JSON. What it saves: 20,000 pods of one
	// Deployment hold 1.6 KiB each instead of 12.2 KiB, 50,000 pods of
	// 500 Deployments 3.1 KiB instead of 12.2 (client-go: 13.4; see
	// BENCHMARKS.md, bench/scale). What it costs: a hash of each
	// shareable value's JSON and a lookup, about 9% more CPU per object
	// on data with nothing to share (jsondec's TestSharedCPUTime), less
	// than nothing when most of it repeats (less to allocate and
	// collect). Objects decoded from Kubernetes protobuf are not shared
	// yet: with Options.Protobuf, only JSON responses (custom resources)
	// are.
	SharingOn
	// SharingOff gives every object values of its own, as client-go
	// does: for programs that write into the objects they get (which
	// the informer's contract forbids anyway).
	SharingOff
)

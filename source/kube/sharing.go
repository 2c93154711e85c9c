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
	// everything past 64 MiB of JSON. Data with nothing to share costs a
	// hash per slice, map and struct pointer (a few per cent of the
	// decoding time). Objects decoded from Kubernetes protobuf are not
	// shared yet.
	SharingOn
	// SharingOff gives every object values of its own, as client-go
	// does: for programs that write into the objects they get (which
	// the informer's contract forbids anyway).
	SharingOff
)

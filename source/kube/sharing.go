package kube

// Sharing is Options.Sharing: whether decoded objects share their
// identical parts.
type Sharing uint8

const (
	// SharingDefault is the zero value: SharingOn.
	SharingDefault Sharing = iota
	// SharingOn decodes a slice, map or pointer to a struct whose JSON or
	// protobuf is byte for byte that of one an object still holds into
	// that same value (containers, env, labels, owner references...), so
	// that 20,000 pods of one Deployment hold 1.6 KiB each instead of 12.2.
	// It costs about 10% more instructions per object with nothing to
	// share and saves work when most values repeat. Shared values are
	// read-only; a write into one is found, reported (*SharedWriteError)
	// and never handed out again. Measurements and the check: package
	// documentation ("Sharing") and BENCHMARKS.md.
	SharingOn
	// SharingOff gives every object values of its own, as client-go
	// does: a write into a cached object (which the informer's contract
	// forbids anyway) changes that object alone, until its next change
	// from the server.
	SharingOff
)

package informer

import (
	"cmp"
	"strconv"
)

// VersionComparer is an optional interface of a Source whose
// resourceVersions can be ordered. Versions are opaque strings in general:
// without it, an informer knows a version is reached only when it sees
// that very version. With it, WaitForResourceVersion returns once the
// cache has applied a version not older than the one asked for, and the
// applied version (AppliedResourceVersion) never moves backwards, but to
// a list's version (a service that restarted its versions). Without it, no
// event is out of order either: one rule orders versions for both.
//
// source/kube and source/memory implement it (their versions are
// numbers: Kubernetes' are in practice, though its API does not promise
// it); source/httpsrc does when its options say the service's versions
// are numbers.
type VersionComparer interface {
	// CompareVersions returns -1, 0 or +1 as version a is older than,
	// the same as, or newer than b, and true; or false when the two
	// cannot be ordered (one of them is not a version of the Source's
	// order, say). It must be safe for concurrent use and cheap: the
	// informer calls it at every applied change.
	CompareVersions(a, b string) (int, bool)
}

// CompareNumericVersions orders two versions that are both decimal
// numbers without sign (as Kubernetes' resourceVersions are in practice):
// it returns -1, 0 or +1 and true, or false if either is not such a
// number. A Source whose versions are numbers can implement
// VersionComparer with it.
func CompareNumericVersions(a, b string) (int, bool) {
	x, ok := parseDecimal(a)
	if !ok {
		return 0, false
	}
	y, ok := parseDecimal(b)
	if !ok {
		return 0, false
	}
	return cmp.Compare(x, y), true
}

// parseDecimal is strconv.ParseUint(s, 10, 64) without its error: a
// version is read at every event, and up to 19 digits cannot overflow,
// which a plain loop reads in a fraction of ParseUint's instructions.
func parseDecimal(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 19 {
		n, err := strconv.ParseUint(s, 10, 64)
		return n, err == nil
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + uint64(c)
	}
	return n, true
}

// versionOrder is how an informer orders versions: by its Source's
// VersionComparer if it has one, else only by equality.
type versionOrder func(a, b string) (int, bool)

func newVersionOrder(src any) versionOrder {
	if vc, ok := src.(VersionComparer); ok {
		return vc.CompareVersions
	}
	return nil
}

// reached reports whether applied version cur has reached want: the same
// version, or one the Source orders after it.
func (o versionOrder) reached(cur, want string) bool {
	if cur == "" {
		return false
	}
	if cur == want {
		return true
	}
	if o == nil {
		return false
	}
	c, ok := o(cur, want)
	return ok && c > 0
}

// older reports whether rv is a version the Source orders before last.
func (o versionOrder) older(rv, last string) bool {
	if o == nil || last == "" {
		return false
	}
	c, ok := o(rv, last)
	return ok && c < 0
}

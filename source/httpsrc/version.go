package httpsrc

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/informer-go/informer"
)

// CompareVersions orders two versions of the service, for the informer
// (informer.VersionComparer): as numbers when Options.NumericVersions says
// the service's are, and the versions poll mode makes up ("poll-1",
// "poll-2"...) by their number. Any other pair cannot be ordered (false):
// an informer then takes a version as reached only when it sees that very
// version.
func (s *Source[T]) CompareVersions(a, b string) (int, bool) {
	if x, ok := madeUp(a); ok {
		if y, ok := madeUp(b); ok {
			return cmp.Compare(x, y), true
		}
		return 0, false
	}
	if s.opts.NumericVersions {
		return informer.CompareNumericVersions(a, b)
	}
	return 0, false
}

// madeUpPrefix starts the versions poll mode makes up for lists without
// one of their own.
const madeUpPrefix = "poll-"

// madeUp returns the number of a version poll mode made up.
func madeUp(v string) (uint64, bool) {
	rest, ok := strings.CutPrefix(v, madeUpPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

// etagValue returns the opaque value of an entity tag: without its
// quotes, and without the W/ of a weak one (RFC 9110, section 8.8.3). A
// version taken from an ETag is that value: it goes back to the service as
// a query parameter and in Last-Event-ID, where the quotes are not
// wanted. A tag that is not quoted (not valid, but seen) is taken as it is.
func etagValue(tag string) string {
	tag = strings.TrimSpace(tag)
	v := strings.TrimPrefix(tag, "W/")
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return tag
}

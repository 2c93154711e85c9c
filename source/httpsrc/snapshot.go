package httpsrc

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/informer-go/informer"
)

// SnapshotCodec returns nil: snapshots of a Source store its objects with
// informer.JSONCodec (encoding/json, which reads back what the Source's
// decoder, with encoding/json's semantics, decoded). It makes Source an
// informer.SnapshotSource. A restored informer resumes its watch from the
// snapshot's version (Options.VersionParam and Last-Event-ID); in poll mode,
// or when the service no longer has that version (410), it lists once and
// tells handlers only what changed.
func (s *Source[T]) SnapshotCodec() informer.SnapshotCodec[T] { return nil }

// SnapshotScope names what the Source serves: its list URL without query
// or credentials, and a hash of both URLs whole (their queries may select,
// and may hold tokens, which a snapshot must not).
func (s *Source[T]) SnapshotScope() string {
	h := sha256.Sum256([]byte(s.opts.ListURL + "\n" + s.opts.WatchURL))
	return "httpsrc " + redact(s.opts.ListURL) + " " + hex.EncodeToString(h[:8])
}

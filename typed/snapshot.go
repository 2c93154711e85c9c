package typed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/informer-go/informer"
)

// snapshotOptions are the informer.SnapshotOptions of the informer key
// names.
func (f *Factory) snapshotOptions(key entryKey) informer.SnapshotOptions {
	return informer.SnapshotOptions{Path: f.snapshotPath(key), Every: f.opts.SnapshotEvery}
}

// snapshotPath returns the file in FactoryOptions.SnapshotDir of the
// informer key names ("" without SnapshotDir): the resource and
// namespace, readable, then a hash of everything that tells shared
// informers apart (Go type, resource, namespace, selectors, transform),
// so that no two informers share a file and an informer of another
// selection never finds one it would have to refuse.
func (f *Factory) snapshotPath(key entryKey) string {
	if f.opts.SnapshotDir == "" {
		return ""
	}
	h := sha256.Sum256([]byte(strings.Join([]string{key.typ.String(), key.typ.PkgPath(), key.resource, key.namespace, key.labels, key.fields, key.transform}, "\x00")))
	name := key.resource
	if key.namespace != "" {
		name += "." + key.namespace
	}
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, name)
	return filepath.Join(f.opts.SnapshotDir, name+"."+hex.EncodeToString(h[:6])+".snap")
}

// WriteSnapshots writes the snapshot file of every informer of the factory
// that has something to write (see informer.Informer.WriteSnapshot), for a
// planned restart; each informer also writes its own when it stops. It
// returns the errors joined, each naming its informer; informers that
// never synced are left out without an error.
func (f *Factory) WriteSnapshots(ctx context.Context) error {
	if f.opts.SnapshotDir == "" {
		return errors.New("typed: WriteSnapshots: FactoryOptions.SnapshotDir is not set")
	}
	f.mu.Lock()
	entries := make([]*entry, 0, len(f.entries))
	for _, e := range f.entries {
		entries = append(entries, e)
	}
	f.mu.Unlock()
	var errs []error
	for _, e := range entries {
		if e.snap == nil {
			continue
		}
		if _, err := e.snap(ctx); err != nil && !errors.Is(err, informer.ErrNoSnapshot) {
			errs = append(errs, fmt.Errorf("typed: %s: %w", e.name, err))
		}
	}
	return errors.Join(errs...)
}

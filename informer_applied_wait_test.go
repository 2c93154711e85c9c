package informer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// unordered is a Source whose versions cannot be ordered: it hides the
// memory Source's CompareVersions, as an ETag-versioned service has none.
type unordered struct{ informer.Source[*item] }

// A wait for a version the informer never sees ends only with its
// context when the Source cannot order versions; the error says so, and
// names the version applied, instead of a bare "context deadline
// exceeded".
func TestWaitForAnUnseenVersionSaysWhy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New[*item](memory.Options{})
		seedItems(t, mem, "ns", 1)
		for _, tt := range []struct {
			name    string
			src     informer.Source[*item]
			ordered bool
		}{{"unordered", unordered{mem}, false}, {"ordered", mem, true}} {
			inf := informer.New[*item](tt.src, quiet[*item](t, nil))
			stop := runInformer(t, inf)
			synctest.Wait()
			applied := inf.AppliedResourceVersion()
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			err := inf.WaitForResourceVersion(ctx, "skipped-by-a-poll")
			cancel()
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(msg, `applied "`+applied+`"`) ||
				strings.Contains(msg, "does not order its versions") == tt.ordered {
				t.Errorf("%s: %v; want DeadlineExceeded, naming the applied version %q, and (only when unordered) why it may never be reached", tt.name, err, applied)
			}
			stop()
		}
	})
}

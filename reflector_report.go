package informer

import (
	"context"
	"errors"
	"sync/atomic"
)

// Report hands err, a problem that a Source found and worked around
// without failing the call it is serving, to the reflector that made the
// call with ctx (List's, or Watch's for what its Watcher's Next finds):
// the reflector logs it at Warn and passes it to OnError, wrapped in a
// *SourceError, and an err matching ErrObjectMutated (source/kube's
// sharing guard: a value that cached objects share was found written
// into) is counted in Health.Mutations and kept as Health.LastMutation.
// It reports whether a reflector took it; a Source called by other code
// should log err itself. Call it from within the call that ctx was given
// to (List, or the Watcher's Next), never later.
func Report(ctx context.Context, err error) bool {
	f, _ := ctx.Value(reportKey{}).(func(error))
	if f == nil || err == nil {
		return false
	}
	f(err)
	return true
}

type reportKey struct{}

// reports is what a reflector keeps of the errors Report handed it.
type reports struct {
	mutations atomic.Int64
	last      atomic.Pointer[SourceError]
}

// withReports returns ctx for a Source call of op from version rv, whose
// Report calls reach r.
func (r *Reflector[T]) withReports(ctx context.Context, op, rv string) context.Context {
	return context.WithValue(ctx, reportKey{}, func(err error) {
		se := &SourceError{Op: op, ResourceVersion: rv, Err: err}
		if errors.Is(err, ErrObjectMutated) {
			r.reports.last.Store(se)
			r.reports.mutations.Add(1)
		}
		r.report(se)
	})
}

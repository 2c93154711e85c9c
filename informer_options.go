package informer

import (
	"log/slog"
	"time"
)

// Options configures an Informer. The zero value means the documented
// defaults.
type Options[T Object] struct {
	// Name identifies the informer in every log record (the "informer"
	// attribute); "" means the Source's String(), if it has one.
	Name string
	// KeyFunc computes an object's key; nil means the Source's, when it
	// keys its objects itself (KeyedSource), else MetaKey. With such a
	// Source, set the key in its options instead: the two must agree.
	KeyFunc KeyFunc[T]
	// Indexers are indexes of the cache, by name, in addition to
	// NamespaceIndex, which is always present (an entry with that name
	// replaces the default). More can be added at any time with AddIndex.
	Indexers map[string]IndexFunc[T]
	// Transform, if set, is applied to every object from the Source before
	// it enters the cache, for example to drop fields the program does not
	// need. It may change its argument in place only if the Source does not
	// keep it (source/memory does: return a copy there), and then only by
	// replacing the object's own fields (obj.ManagedFields = nil): the
	// values they point to may be shared between objects (see Handler).
	// An error (or a nil result: ErrNilObject) is reported as an
	// *ObjectError with Op "transform" and leaves the object out, as if
	// the Source had not sent it; a deletion is still applied.
	Transform func(T) (T, error)
	// ResyncPeriod is the resync period of handlers whose HandlerOptions
	// leave it zero; 0 means no resync. See HandlerOptions.ResyncPeriod.
	ResyncPeriod time.Duration
	// Reflector configures listing and watching. Its OnError and Logger
	// default to the informer's.
	Reflector ReflectorOptions
	// OnError, if set, is called with every error the informer meets: from
	// the reflector (*SourceError, *ObjectError), from key and index
	// functions (*KeyError, *IndexError), and panics recovered from handlers
	// (*HandlerPanicError). It is user code called from the informer's
	// goroutines, never under a lock; it must not block for long.
	OnError func(error)
	// Logger receives the same errors; nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives the informer's measurements: events, lists and
	// why, watch restarts, handlers' latency and panics. Its zero value
	// measures nothing and costs nothing. It is the reflector's too,
	// unless the Reflector field's Metrics sets any callback.
	Metrics Metrics
	// BatchSize is the most keys the process loop takes from the queue at
	// once; 0 means 128.
	BatchSize int
	// DetectMutations turns on the mutation detector, for tests and
	// debugging: the informer keeps a deep copy of every cached object and
	// reports a *MutationError (ErrObjectMutated) when the object differs
	// from it at its key's next change or when Run ends (see Handler). It
	// doubles the cache's memory and costs a deep copy per change.
	// MutationDetectorEnv turns it on for every informer of a process.
	DetectMutations bool
	// Snapshot configures warm restarts from a file: see SnapshotOptions
	// and Restore. The zero value means none.
	Snapshot SnapshotOptions
	// ServeRestored makes a cache restored from a snapshot count as
	// synced as soon as Run starts, before the source has confirmed its
	// version: the program serves a possibly stale cache at once, and
	// Health reports Unconfirmed (and since when), and not Healthy, until
	// the confirmation. By default (false) HasSynced waits for it.
	ServeRestored bool
}

// HandlerOptions configures one handler.
type HandlerOptions struct {
	// Name identifies the handler in logs, errors and Metrics'
	// HandlerLatency and HandlerPanic (the handler label of
	// metrics/prometheus); "" leaves it unnamed.
	Name string
	// ResyncPeriod, when positive, sends the handler an OnUpdate(obj, obj)
	// for every cached object this often; 0 means the informer's
	// ResyncPeriod; a negative value means never.
	ResyncPeriod time.Duration
	// CoalesceAbove picks what a slow handler costs in memory. 0 (the
	// default) queues every notification: memory grows with the backlog,
	// as in client-go. A positive value bounds it by keys: above
	// CoalesceAbove queued notifications, a new one for a key already
	// queued is folded into it (the handler gets the newest state of each
	// key, never reordered; a deletion is never dropped).
	CoalesceAbove int
	// RelistUnchanged makes a relist send OnUpdate(old, new) also for
	// objects whose resourceVersion did not change, as client-go does. By
	// default a relist tells a handler only what changed (objects without
	// a resourceVersion always count as changed). Resyncs are sent either
	// way.
	RelistUnchanged bool
}

package informer

import (
	"log/slog"
	"time"
)

// Options configures an Informer. The zero value means the documented
// defaults.
type Options[T Object] struct {
	// Name identifies the informer in every log record (the "informer"
	// attribute), so a program with ten informers can tell them apart; ""
	// means the Source's String method's result when it has one
	// (source/kube's and source/httpsrc's name their resource or URL),
	// else nothing.
	Name string
	// KeyFunc computes an object's key; nil means the Source's, when it
	// keys its objects itself (KeyedSource), else MetaKey. With such a
	// Source, set the key in its options and leave KeyFunc nil: a
	// different one here would make the Source and the cache disagree
	// about which objects are the same.
	KeyFunc KeyFunc[T]
	// Indexers are indexes of the cache, by name, in addition to
	// NamespaceIndex, which is always present (an entry with that name
	// replaces the default). More can be added at any time with AddIndex.
	Indexers map[string]IndexFunc[T]
	// Transform, if set, is applied to every object from the Source before
	// it enters the cache, for example to drop fields the program does not
	// need. It may change its argument in place only if the Source does not
	// keep it (a Kubernetes source decodes a new object for every event;
	// source/memory shares its objects, so return a copy there), and then
	// only by replacing the object's own fields (obj.ManagedFields = nil,
	// obj.Annotations = trimmed copy): a Kubernetes source shares the
	// values those fields point to between objects (its Sharing option),
	// so deleting a map key or writing into a slice element or a
	// pointed-to struct would change the objects that hold them (the
	// Source then decodes later objects afresh and reports the write:
	// see Handler). Copy, then write: obj.Annotations =
	// maps.Clone(obj.Annotations) before a delete. When
	// Transform fails (a nil result without an error fails too, with
	// ErrNilObject) the error is reported as an *ObjectError with Op
	// "transform" and the object is left out of a list or an add or
	// update, as if the Source had not sent it; a deletion is still
	// applied, with the last cached state.
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
	// debugging (it doubles the cache's memory and costs a deep copy per
	// change): the informer keeps a deep copy of every object it puts in
	// the cache and compares the object with it when a later change for
	// its key replaces or deletes it, and for every key when Run ends. A
	// difference means someone wrote into a read-only object (see
	// Handler); it is reported as a *MutationError (ErrObjectMutated) to
	// OnError and the log. It catches what source/kube's sharing guard
	// (always on, with sharing) does not: a write into any part of any
	// object, shared or not (a name, a status, a value only this object
	// holds), and which object was written (the guard names only the
	// object whose decode met the written value, when that value's bytes
	// come again, if ever); with "panic", the first one stops the test. The environment variable
	// INFORMER_MUTATION_DETECTOR (MutationDetectorEnv) turns it on for
	// every informer whose DetectMutations is false: "1" reports, "panic"
	// panics at the first mutation found, as the project's tests do;
	// client-go's KUBE_CACHE_MUTATION_DETECTOR=true is read as "1".
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
	// Name identifies the handler in logs and errors.
	Name string
	// ResyncPeriod, when positive, sends the handler an OnUpdate(obj, obj)
	// for every cached object this often; 0 means the informer's
	// ResyncPeriod; a negative value means never.
	ResyncPeriod time.Duration
	// CoalesceAbove picks what a slow handler costs in memory. 0 (the
	// default) queues every notification: memory grows with the backlog,
	// as in client-go. A positive value bounds the backlog by keys: once
	// more than CoalesceAbove notifications are queued, a new notification
	// for a key that already has one queued since then is folded into it,
	// so the handler gets only the newest pending state of each key and
	// memory is O(keys), not O(events). Folding never reorders a key's
	// states and never drops a deletion: add or update followed by update
	// becomes one add or update (with the first notification's old
	// object); add or update followed by delete becomes the delete; a
	// delete followed by a new add stays two notifications.
	CoalesceAbove int
	// RelistUnchanged makes a relist (after an expired resourceVersion or
	// a failed watch) send OnUpdate(old, new) for every object it finds
	// at the resourceVersion the cache already had, as client-go does. By
	// default a relist tells a handler only what changed: objects with
	// another resourceVersion (OnUpdate), new ones (OnAdd) and vanished
	// ones (OnDelete with FinalStateUnknown). An object without a
	// resourceVersion (as many HTTP services serve them) cannot be told
	// unchanged: a relist sends every such object as OnUpdate either way.
	// Periodic resyncs (ResyncPeriod) are sent either way.
	RelistUnchanged bool
}

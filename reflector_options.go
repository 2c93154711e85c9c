package informer

import (
	"fmt"
	"log/slog"
	"time"
)

// Sink is what a Reflector writes into. *DeltaFIFO satisfies it. A sink
// that also has a method Progress() is called each time the reflector's
// version (LastSyncResourceVersion) has moved on: after the write that
// moved it, or for a bookmark, without one. It must be cheap: it is called
// once per event.
//
// A relist arrives as BeginReplace, any number of ReplaceItems (one per
// page), then EndReplace: the items are the complete state, and whatever the
// sink held that is not among them has vanished. A relist that fails half
// way is followed by a new BeginReplace.
type Sink[T Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	BeginReplace()
	ReplaceItems(items []T) error
	EndReplace() error
}

// ReflectorOptions configures a Reflector. The zero value means the
// documented defaults.
type ReflectorOptions struct {
	// Name identifies the reflector in logs and errors.
	Name string
	// PageSize is the Limit of each List call. 0 (the default) leaves it
	// to the source: source/kube pages by its kube.Options.PageSize (by
	// default the first list, ListOptions.Initial, in one response and
	// relists in pages growing from 500 to 2,000 objects; its doc weighs
	// the choices against a real kube-apiserver), source/memory does not
	// page.
	// A positive value overrides
	// the source's; a negative one asks for the whole collection in one
	// response.
	PageSize int64
	// ListResourceVersion is the ResourceVersion of the first list: ""
	// (default) for the most recent state, or "0" to accept a possibly stale
	// one that is cheaper for the server. A relist after an expired version
	// always uses "".
	ListResourceVersion string
	// ResumeFrom, when set, makes Run start with a watch from this
	// version instead of a list, for a sink that already holds the state
	// at it (a cache restored from a snapshot: Informer.Restore sets it).
	// Until the source confirms it, Health reports Unconfirmed and Synced
	// is false: confirmed means the watch from it opened and went quiet
	// (confirmQuiet, 100 ms, without an event, or a second after it opened
	// while events keep coming), so the source accepted the version and
	// sent what changed since. If the source answers ErrExpired the
	// reflector relists at once (the error, reported, also matches
	// ErrSnapshotExpired); if watches from it fail three times in a row
	// without delivering (a server that lost its history may say
	// something else), it relists too. Either list confirms the cache.
	ResumeFrom string
	// WatchList says whether the reflector syncs with a streaming list (a
	// watch with SendInitialEvents) instead of List. The default,
	// WatchListAuto, follows the source: on for a source that says it
	// prefers streaming lists (source/kube does), off otherwise. When the
	// source cannot serve one (ErrWatchListUnsupported, or a stream that
	// shows the server ignored the request) the reflector falls back to
	// List for good.
	WatchList WatchListMode
	// MinWatchTimeout is the shortest server-side timeout asked of a watch;
	// each watch asks for a random value in [MinWatchTimeout,
	// 2×MinWatchTimeout), so that many clients do not reconnect at once.
	// Default 5m. A watch still open a minute past its timeout is closed:
	// as a normal end if events or heartbeats came, as stalled (an error, then backoff)
	// if it stayed silent.
	MinWatchTimeout time.Duration
	// Backoff paces retries after errors.
	Backoff Backoff
	// OnError, if set, is called with every error the reflector meets:
	// *SourceError for failed calls and *ObjectError for rejected objects and
	// events. It is called from the reflector's goroutine and must not block
	// for long.
	OnError func(error)
	// Logger receives the same errors; nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives the reflector's measurements (events, lists and
	// why, watch restarts); its zero value measures nothing.
	Metrics Metrics
}

// WatchListMode says whether a Reflector syncs with a streaming list. See
// ReflectorOptions.WatchList.
type WatchListMode int8

const (
	// WatchListAuto uses a streaming list when the Source implements
	// WatchListPreferrer and prefers one.
	WatchListAuto WatchListMode = iota
	// WatchListOn tries a streaming list first, whatever the source says.
	WatchListOn
	// WatchListOff always lists.
	WatchListOff
)

// String returns "Auto", "On" or "Off".
func (m WatchListMode) String() string {
	switch m {
	case WatchListAuto:
		return "Auto"
	case WatchListOn:
		return "On"
	case WatchListOff:
		return "Off"
	}
	return fmt.Sprintf("WatchListMode(%d)", int8(m))
}

// WatchListPreferrer may be implemented by a Source to say whether a
// reflector left at WatchListAuto should sync from a streaming list. A
// source that prefers one must still answer a refusal of its server with
// ErrWatchListUnsupported, so that the reflector falls back to List.
type WatchListPreferrer interface {
	PrefersWatchList() bool
}

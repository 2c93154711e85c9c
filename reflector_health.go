package informer

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Health is a snapshot of how well an informer (or a Reflector) keeps up
// with its Source: what /healthz handlers and alerts read. See Healthy for
// what "healthy" means.
type Health struct {
	// Synced: the first full list is in the cache (Informer.HasSynced; for a
	// Reflector on its own, a list completed).
	Synced bool
	// State is what the reflector is doing: listing, watching, backing off.
	State HealthState
	// Since is when it entered State.
	Since time.Time
	// BackoffUntil is, in StateBackingOff, when the next attempt starts.
	BackoffUntil time.Time
	// LastActivity is when the source last showed it was alive and the
	// cache current: a completed list, the confirmation of a restored
	// version, or on a watch an event, a bookmark or a heartbeat (see
	// WatchOptions.Heartbeat); zero if never. While events arrive back to back it may trail the
	// last one by up to 100 ms: the clock is read for the first event of
	// each such interval, not for every event.
	LastActivity time.Time
	// SinceActivity is how long ago LastActivity was, at the snapshot;
	// 0 if never. A quiet resource is quiet: this alone means nothing
	// is wrong, unless the source sends heartbeats or bookmarks.
	SinceActivity time.Duration
	// ConsecutiveFailures counts the failed calls to the Source since it
	// last answered well (a list completed, or a watch delivered or stayed
	// open for a second).
	ConsecutiveFailures int
	// LastError is the last error from the Source (a *SourceError) since
	// it last answered well, as Informer.LastError; nil if none. While
	// SkippedEvents is not 0 and no other error is to be told (such as
	// the failure of the relist that would repair them), it is the error
	// of the first of them (wrapping ErrSkippedEvents and the Source's
	// error, which names where the event was, never what it held).
	LastError error
	// SkippedEvents counts the unreadable events that watches skipped
	// since the last list: each may have been a change the cache lacks.
	// The reflector lists again within a second of the first (see
	// ErrSkippedEvents), and the list sets it back to 0.
	SkippedEvents int
	// Mutations counts the writes into cached objects that the Source
	// found since Run started (source/kube's sharing guard: a value that
	// cached objects share no longer matched the bytes it was decoded
	// from; the Source decoded those bytes afresh, evicted the written
	// value and reported it through Report). Objects decoded after it
	// hold what the server sent; those that held the written value when
	// it was written (the one written into, and any sharing the value)
	// keep it until their next change. The cache stays current, so it
	// does not make Healthy false; a program that writes into cached
	// objects has a bug to fix (copy, then write).
	Mutations int
	// LastMutation is the error of the last of them (a *SourceError
	// wrapping an error that matches ErrObjectMutated and names the
	// resource, the object being decoded and the field path, never the
	// value); nil if none.
	LastMutation error
	// Unconfirmed: the cache was restored from a snapshot and the source
	// has not yet confirmed its version (see ReflectorOptions.ResumeFrom);
	// an informer with Options.ServeRestored is Synced meanwhile.
	// UnconfirmedSince is when the restored cache started waiting.
	Unconfirmed      bool
	UnconfirmedSince time.Time
}

// HealthState is what a reflector is doing; see Health.
type HealthState uint8

// The states of Health.
const (
	// StateStarting: Run has not started yet.
	StateStarting HealthState = iota
	// StateListing: a List, or a streaming list, is under way.
	StateListing
	// StateWatching: a watch is open.
	StateWatching
	// StateBackingOff: waiting before the next attempt, until BackoffUntil.
	StateBackingOff
	// StateStopped: Run has returned.
	StateStopped
)

var healthStateNames = [...]string{"starting", "listing", "watching", "backing off", "stopped"}

// String returns "starting", "listing", "watching", "backing off" or
// "stopped".
func (s HealthState) String() string {
	if int(s) < len(healthStateNames) {
		return healthStateNames[s]
	}
	return fmt.Sprintf("HealthState(%d)", uint8(s))
}

// unhealthyAfter is how many consecutive failures make a synced informer
// unhealthy.
const unhealthyAfter = 3

// Healthy reports whether the cache can be trusted to be current, as far as
// the informer can tell: it has synced, it is running, its source has not
// failed unhealthyAfter (3) times in a row, no change it skipped
// (SkippedEvents) waits for the relist that brings it back, and a cache
// restored from a snapshot is no longer Unconfirmed. A single
// failure is routine (a reset, a 500 during a rollout) and retried at once
// or within a fraction of a second; three in a row mean the cache may be
// falling behind, and LastError says why.
func (h Health) Healthy() bool {
	return h.Synced && h.State != StateStarting && h.State != StateStopped &&
		h.ConsecutiveFailures < unhealthyAfter && h.SkippedEvents == 0 && !h.Unconfirmed
}

// String describes the snapshot in one line, for logs and /healthz bodies.
func (h Health) String() string {
	s := fmt.Sprintf("synced=%t state=%q", h.Synced, h.State.String())
	if !h.Since.IsZero() { // zero before Run's first state
		s += fmt.Sprintf(" for %s", time.Since(h.Since).Round(time.Millisecond))
	}
	if h.State == StateBackingOff {
		s += fmt.Sprintf(" (next attempt in %s)", time.Until(h.BackoffUntil).Round(time.Millisecond))
	}
	if !h.LastActivity.IsZero() {
		s += fmt.Sprintf(" last_activity=%s ago", h.SinceActivity.Round(time.Millisecond))
	}
	if h.ConsecutiveFailures > 0 {
		s += fmt.Sprintf(" failures=%d", h.ConsecutiveFailures)
	}
	if h.SkippedEvents > 0 {
		s += fmt.Sprintf(" skipped_events=%d", h.SkippedEvents)
	}
	if h.Mutations > 0 {
		s += fmt.Sprintf(" mutations=%d", h.Mutations)
	}
	if h.Unconfirmed {
		s += fmt.Sprintf(" restored_unconfirmed_for=%s", time.Since(h.UnconfirmedSince).Round(time.Millisecond))
	}
	if h.LastError != nil {
		s += fmt.Sprintf(" last_error=%q", h.LastError.Error())
	}
	return s
}

// published is what a reflector's readers see of its progress: its
// version, lists and Health's state, guarded by mu, and its last activity.
type published struct {
	mu     sync.Mutex
	lastRV string
	lists  uint64 // completed lists
	health health

	onProgress func()        // the sink's Progress, if it has one
	wake       *progressWake // the informer's, instead of onProgress (no call through the sink per event)
	activity   atomic.Int64  // unix nanoseconds of the last event or heartbeat
}

// health is what the reflector records for Health; guarded by
// published.mu.
type health struct {
	state    HealthState
	since    time.Time
	until    time.Time
	failures int
	synced   bool
}

// progress returns the version and how many lists had completed.
func (p *published) progress() (string, uint64) {
	// The process loop reads this once per batch, and the reflector
	// writes it once per event: tried rather than waited for (lockSpin).
	lockSpin(&p.mu)
	defer p.mu.Unlock()
	return p.lastRV, p.lists
}

// setLastRV publishes the version the sink has reached, and calls the
// sink's Progress.
func (p *published) setLastRV(rv string) {
	p.mu.Lock()
	p.lastRV = rv
	p.mu.Unlock()
	if p.wake != nil {
		p.wake.progress()
	} else if p.onProgress != nil {
		p.onProgress()
	}
}

// setHealth records the state the reflector enters.
func (p *published) setHealth(st HealthState, until time.Time, failures int) {
	now := time.Now()
	p.mu.Lock()
	if p.health.state != st || st == StateBackingOff {
		p.health.state, p.health.since = st, now
	}
	p.health.until, p.health.failures = until, failures
	p.mu.Unlock()
}

// listed records a list that completed at version rv: the source is
// alive and the cache current, as after an event. The version and the
// count of lists move together, and then the sink's Progress is called
// once: a reader of progress never sees the list's version with the count
// before it (the informer would take the list as applied but not as a
// list, and wait for nothing).
func (p *published) listed(rv string) {
	p.mu.Lock()
	p.health.synced, p.health.failures = true, 0
	p.lastRV = rv
	p.lists++
	p.mu.Unlock()
	p.activity.Store(time.Now().UnixNano())
	if p.wake != nil {
		p.wake.progress()
	} else if p.onProgress != nil {
		p.onProgress()
	}
}

// setHealth records the state the reflector enters.
func (r *Reflector[T]) setHealth(st HealthState, until time.Time, failures int) {
	r.pub.setHealth(st, until, failures)
}

// listed records a list that completed at version rv, and publishes rv.
func (r *Reflector[T]) listed(rv string) {
	r.resume.unconfirmed.Store(0) // a list confirms a restored cache
	r.rep.listed()
	r.pub.listed(rv)
}

// Health returns a snapshot of the reflector's health. Synced is whether
// a list completed.
func (r *Reflector[T]) Health() Health {
	now := time.Now()
	r.pub.mu.Lock()
	h := Health{
		Synced:              r.pub.health.synced,
		State:               r.pub.health.state,
		Since:               r.pub.health.since,
		BackoffUntil:        r.pub.health.until,
		ConsecutiveFailures: r.pub.health.failures,
	}
	r.pub.mu.Unlock()
	if t := r.unconfirmedSince(); !t.IsZero() {
		h.Unconfirmed, h.UnconfirmedSince = true, t
	}
	if ns := r.pub.activity.Load(); ns != 0 {
		h.LastActivity = time.Unix(0, ns)
		h.SinceActivity = now.Sub(h.LastActivity)
	}
	if h.State == StateWatching && now.Sub(h.Since) >= productiveAfter {
		// A watch open for a while works, until it says otherwise.
		h.ConsecutiveFailures = 0
	} else {
		h.LastError = r.rep.lastErr.get()
	}
	if n := r.rep.reports.mutations.Load(); n > 0 {
		h.Mutations, h.LastMutation = int(n), r.rep.reports.last.Load()
	}
	if first, n := r.rep.skips.get(); first != nil && n > 0 {
		// The cache may lack changes until the relist under way; a
		// failure of that relist says more, and stays LastError.
		h.SkippedEvents = n
		if h.LastError == nil {
			h.LastError = first
		}
	}
	return h
}

// lastError is the last error of Health, or nil.
func (r *Reflector[T]) lastError() error { return r.Health().LastError }

// Health returns a snapshot of the informer's health: whether it synced,
// what its reflector is doing, and how its source has answered lately.
// Health.Healthy says whether the cache can be trusted to be current.
func (inf *Informer[T]) Health() Health {
	h := inf.refl.Health()
	h.Synced = inf.HasSynced()
	return h
}

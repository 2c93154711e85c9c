package ring

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/shard"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Defaults of Options, those of the leader election.
const (
	DefaultLeaseDuration = leaderelection.DefaultLeaseDuration
	DefaultRenewDeadline = leaderelection.DefaultRenewDeadline
	DefaultRetryPeriod   = leaderelection.DefaultRetryPeriod
	// LeaveTimeout bounds the deletion of a member's Lease when Run ends.
	LeaveTimeout = 2 * time.Second
)

var (
	// ErrInvalidOptions reports Options that New cannot use.
	ErrInvalidOptions = errors.New("ring: invalid options")
	// ErrLeaseLost is the cause of a work function's context when the
	// member could not renew its Lease within RenewDeadline: it stops
	// before another member may take its ranges.
	ErrLeaseLost = errors.New("ring: lease not renewed in time")
	// ErrEvicted is the cause when another member evicted this one
	// (deleted its Lease after seeing it unchanged for LeaseDuration).
	ErrEvicted = errors.New("ring: evicted")
	// ErrHandoff is the cause when the member's ranges change: its work
	// stops, then starts again over the new ranges.
	ErrHandoff = errors.New("ring: ranges change")
	// ErrStopped is the cause when Run's context ended.
	ErrStopped = errors.New("ring: stopped")
)

// Options configures a Member. Namespace and Name are required; the zero
// value of every other field means its documented default.
type Options struct {
	// Namespace holds the members' Leases; Name names the ring (a label
	// value: the leases carry it as LabelRing, and their names start with
	// it).
	Namespace, Name string
	// Identity names this member; it must differ between members. ""
	// means the host name, "_" and random hex. A member that restarts
	// with the identity of a Lease still present waits until that Lease
	// expires (LeaseDuration unchanged) before taking it over: the old
	// process may only be paused.
	Identity string
	// LeaseDuration is how long the others wait, after they last saw a
	// member's Lease change, before they evict it and take its ranges:
	// the longest a dead member's ranges go unworked. 0 means 15 s.
	LeaseDuration time.Duration
	// RenewDeadline is how long a member may go without renewing its
	// Lease: then its work's context is cancelled (ErrLeaseLost). It must
	// be shorter than LeaseDuration; the difference is what the work has
	// to stop in. 0 means 10 s.
	RenewDeadline time.Duration
	// RetryPeriod is the time between renewals, which are also when a
	// member reads the others' Leases (sooner when one would expire, and
	// every RetryPeriod/4 while a handoff is under way). 0 means 2 s.
	RetryPeriod time.Duration
	// Incremental runs the work once per piece of the member's ranges,
	// several at once, each with its own Assignment: a change then stops
	// only the pieces that lose ranges (the others go on working) and
	// starts one more over what the member gains. Off, the work runs once
	// over all the member's ranges and any change restarts it. On, each
	// piece needs its own informers, queue and workers (not PruneQueue's
	// shared queue), and a source sharded on the server keeps one watch
	// per piece.
	Incremental bool
	// Logger receives membership and range changes at Info, failed
	// requests at Debug; nil means slog.Default().
	Logger *slog.Logger
}

// Assignment is what a member's work function is given: the ranges it
// owns until its context ends.
type Assignment struct {
	// Identity is the member's.
	Identity string
	// Epoch counts the member's assignments, from 1: Identity and Epoch
	// name this assignment uniquely (a fencing token to record beside
	// writes).
	Epoch uint64
	// Ranges are the hashes the work owns; sources filter by them
	// (the Shard option of source/kube, typed.FactoryOptions.Shard,
	// shard.NewFilter).
	Ranges shard.Set

	synced *atomic.Bool
	log    *slog.Logger
}

// Synced marks the assignment's caches as synced, for Health.
func (a Assignment) Synced() {
	if a.synced != nil {
		a.synced.Store(true)
	}
}

// Health is a snapshot of a member, for health checks and status pages.
type Health struct {
	// Identity is the member's.
	Identity string
	// Running: Run has been called and has not returned.
	Running bool
	// Members are the live members' identities, sorted, this one
	// included once it has joined.
	Members []string
	// Ranges are what the member works now (empty while handing off),
	// Claim what its Lease claims (Ranges and what it is taking).
	Ranges, Claim shard.Set
	// Epoch is the current or last assignment's.
	Epoch uint64
	// Synced is true once the current assignment's work called Synced.
	Synced bool
	// Renewed is when the Lease was last renewed.
	Renewed time.Time
	// LastError is the last failed request, nil after a success.
	LastError error

	renewDeadline time.Duration
}

// Healthy reports whether the member is not running, or renews its
// Lease: its last renewal is less than RenewDeadline old.
func (h Health) Healthy() bool {
	return !h.Running || time.Since(h.Renewed) < h.renewDeadline
}

// Err returns nil when Healthy, else an error matching ErrLeaseLost that
// says when the Lease was last renewed and wraps LastError.
func (h Health) Err() error {
	if h.Healthy() {
		return nil
	}
	if h.Renewed.IsZero() {
		return fmt.Errorf("%w: never renewed: %w", ErrLeaseLost, h.LastError)
	}
	return fmt.Errorf("%w: last renewed %s ago: %w", ErrLeaseLost, time.Since(h.Renewed).Round(time.Millisecond), h.LastError)
}

// Member joins a ring of members that share the hash space: it holds a
// Lease of its own, reads the others', and runs a work function over the
// ranges it owns. Create one with New; its methods other than Run never
// block.
type Member struct {
	client LeaseClient
	opts   Options
	log    *slog.Logger
	lease  string // its Lease's name
	base   time.Time

	running  atomic.Bool
	deadline atomic.Int64 // the fence: nanoseconds after base when work must stop

	mu     sync.Mutex
	status Health
	gens   []*generation
}

// New returns a Member of the ring in opts, reading and writing Leases
// through client. It checks the options and sends nothing.
func New(client LeaseClient, opts Options) (*Member, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil LeaseClient", ErrInvalidOptions)
	}
	if opts.Namespace == "" || opts.Name == "" {
		return nil, fmt.Errorf("%w: the ring needs a namespace and a name", ErrInvalidOptions)
	}
	if errs := validation.IsValidLabelValue(opts.Name); len(errs) > 0 {
		return nil, fmt.Errorf("%w: ring name %q: %s", ErrInvalidOptions, opts.Name, errs[0])
	}
	if opts.Identity == "" {
		opts.Identity = defaultIdentity()
	}
	if opts.LeaseDuration == 0 {
		opts.LeaseDuration = DefaultLeaseDuration
	}
	if opts.RenewDeadline == 0 {
		opts.RenewDeadline = DefaultRenewDeadline
	}
	if opts.RetryPeriod == 0 {
		opts.RetryPeriod = DefaultRetryPeriod
	}
	switch {
	case opts.RenewDeadline <= 0 || opts.RenewDeadline >= opts.LeaseDuration:
		return nil, fmt.Errorf("%w: RenewDeadline %s must be positive and shorter than LeaseDuration %s", ErrInvalidOptions, opts.RenewDeadline, opts.LeaseDuration)
	case opts.RetryPeriod <= 0 || opts.RetryPeriod >= opts.RenewDeadline:
		return nil, fmt.Errorf("%w: RetryPeriod %s must be positive and shorter than RenewDeadline %s", ErrInvalidOptions, opts.RetryPeriod, opts.RenewDeadline)
	}
	name := leaseName(opts.Name, opts.Identity)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("%w: lease name %q: %s", ErrInvalidOptions, name, errs[0])
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("ring", opts.Namespace+"/"+opts.Name, "identity", opts.Identity)
	m := &Member{client: client, opts: opts, log: log, lease: name, base: time.Now()}
	m.status.Identity = opts.Identity
	return m, nil
}

// defaultIdentity is the host name, "_" and 8 random hex digits.
func defaultIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "member"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return host + "_" + hex.EncodeToString(b)
}

// Identity returns the member's identity.
func (m *Member) Identity() string { return m.opts.Identity }

// Health returns a snapshot of the member: its ranges, whether their
// caches synced, the live members, the last renewal and error. It never
// blocks on Run.
func (m *Member) Health() Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.status
	s.Running, s.renewDeadline = m.running.Load(), m.opts.RenewDeadline
	s.Synced = len(m.gens) > 0
	for _, g := range m.gens {
		s.Synced = s.Synced && g.synced.Load()
	}
	return s
}

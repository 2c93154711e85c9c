package leaderelection

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options, those of client-go's leader election.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// ReleaseTimeout bounds the request that releases the lease when Run
// stops (or RenewDeadline, if shorter): a server that does not answer
// delays the end of Run by this much at most, and the lease then expires
// after LeaseDuration instead.
const ReleaseTimeout = 2 * time.Second

// Errors of New, Run and OnStoppedLeading.
var (
	// ErrInvalidOptions wraps what New finds wrong with the Options.
	ErrInvalidOptions = errors.New("leaderelection: invalid options")
	// ErrRunning is returned by Run while another Run of the same Elector
	// has not returned.
	ErrRunning = errors.New("leaderelection: already running")
	// ErrLeaseLost is the cause of a leader's context when the lease was
	// not renewed within RenewDeadline, or another candidate holds it.
	ErrLeaseLost = errors.New("leaderelection: leadership lost")
	// ErrStopped is the cause of a leader's context when Run's context
	// ended.
	ErrStopped = errors.New("leaderelection: stopped")
)

// Options configures an Elector. Namespace and Name are required; the
// zero value of every other field means its documented default.
type Options struct {
	// Namespace and Name name the Lease that the candidates share. It is
	// created if it does not exist.
	Namespace, Name string
	// Identity names this candidate in the lease; it must differ between
	// candidates. "" means the host name followed by "_" and random hex.
	Identity string
	// LeaseDuration is how long candidates wait, after they last saw the
	// lease change, before they take it from a holder that stopped
	// renewing it: the longest a crashed leader is not replaced. 0 means
	// DefaultLeaseDuration (15 s). It is written to the lease in whole
	// seconds.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader may go without renewing: it
	// steps down (its context is cancelled) when RenewDeadline has passed
	// since the start of its last successful renewal. It must be shorter
	// than LeaseDuration, so that a leader cut off from the server stops
	// before another candidate may take over. 0 means
	// DefaultRenewDeadline (10 s).
	RenewDeadline time.Duration
	// RetryPeriod is the time between renewals, and between a candidate's
	// attempts to acquire (with up to 20% jitter). 0 means
	// DefaultRetryPeriod (2 s).
	RetryPeriod time.Duration
	// Logger receives the transitions (this candidate leads, loses or
	// releases the lease; another leads) at Info, and attempts to acquire
	// or renew the lease that fail (a 403 without RBAC on leases, a server
	// out of reach) at Warn, summarised: the first at once, then one line
	// a minute while they go on, then the recovery at Info. Every line
	// names the lease and the identity. nil means slog.Default().
	Logger *slog.Logger
	// OnNewLeader, when set, is called with the identity of the holder
	// each time this candidate sees it change, its own included, "" when
	// the lease was released. It runs on the goroutine of Run: it must
	// return quickly.
	OnNewLeader func(identity string)
	// OnStoppedLeading, when set, is called when this candidate has
	// stopped leading (its function has returned), with the reason:
	// ErrLeaseLost, ErrStopped, or nil when the function returned on its
	// own. It runs on the goroutine of Run, before the lease is released.
	OnStoppedLeading func(reason error)
	// Metrics receives measurements: leading or not, transitions, and
	// the latency of each attempt; its zero value measures nothing.
	Metrics Metrics
}

// Elector campaigns for a Lease and runs a function while it holds it.
// Create one with New; it is safe for concurrent use, and its methods
// other than Run never block.
//
// Safety rests on time, as in client-go: a leader stops (cancels its
// function's context) RenewDeadline after the start of its last
// successful renewal, and the other candidates wait LeaseDuration after
// they last saw the lease change before taking it. Clocks need not agree,
// only tick at the same rate; RenewDeadline < LeaseDuration leaves the
// margin. A function that ignores its context, or a process paused for
// longer than the margin (a stop signal, a VM migration), defeats it: for
// strict fencing, make writes conditional on the lease's state.
type Elector struct {
	client LeaseClient
	opts   Options
	log    *slog.Logger

	running atomic.Bool

	// Of the goroutine of Run only.
	observed     *Lease    // the lease as last seen
	observedTime time.Time // when it was last seen to change, by our clock
	until        time.Time // when leading, the end of our leadership
	// The last summary of a run of failures that was logged, and the
	// number of failures then.
	loggedAt       time.Time
	loggedFailures int

	mu           sync.Mutex
	leader       string // the holder last seen
	leads        bool
	failures     int       // attempts failed in a row
	failingSince time.Time // when the first of them failed
	lastErr      error     // the error of the last of them
}

// New returns an Elector for the lease in opts, reading and writing it
// through client. It checks the options and sends nothing.
func New(client LeaseClient, opts Options) (*Elector, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: nil LeaseClient", ErrInvalidOptions)
	}
	if opts.Namespace == "" || opts.Name == "" {
		return nil, fmt.Errorf("%w: the lease needs a namespace and a name", ErrInvalidOptions)
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
	case opts.LeaseDuration < time.Second:
		return nil, fmt.Errorf("%w: LeaseDuration %s is under a second", ErrInvalidOptions, opts.LeaseDuration)
	case opts.RenewDeadline <= 0 || opts.RenewDeadline >= opts.LeaseDuration:
		return nil, fmt.Errorf("%w: RenewDeadline %s must be positive and shorter than LeaseDuration %s", ErrInvalidOptions, opts.RenewDeadline, opts.LeaseDuration)
	case opts.RetryPeriod <= 0 || opts.RetryPeriod >= opts.RenewDeadline:
		return nil, fmt.Errorf("%w: RetryPeriod %s must be positive and shorter than RenewDeadline %s", ErrInvalidOptions, opts.RetryPeriod, opts.RenewDeadline)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("lease", opts.Namespace+"/"+opts.Name, "identity", opts.Identity)
	return &Elector{client: client, opts: opts, log: log}, nil
}

// defaultIdentity is the host name, "_" and 8 random hex digits.
func defaultIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "candidate"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return host + "_" + hex.EncodeToString(b[:])
}

// Identity returns this candidate's identity.
func (e *Elector) Identity() string { return e.opts.Identity }

// Leader returns the identity of the holder this candidate last saw, ""
// when none.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leader
}

// IsLeader reports whether this candidate leads now: its function runs
// with a context that is not cancelled.
func (e *Elector) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leads
}

// Run campaigns for the lease until ctx ends. Each time it acquires the
// lease it calls fn with a context that is cancelled the moment the lease
// is lost or could not be renewed within RenewDeadline (cause
// ErrLeaseLost), or ctx ends (cause ErrStopped); fn must then return
// promptly. After fn has returned, Run campaigns again if the lease was
// lost; if ctx ended, or fn returned on its own while leading, Run
// releases the lease (so that another candidate takes over at once,
// without waiting LeaseDuration; waiting ReleaseTimeout at most for the
// server) and returns: ctx's error, or nil.
//
// Run calls fn on a goroutine of its own and returns only after fn has
// returned. A panic in fn is recovered, logged, and ends the term as if
// fn had returned.
func (e *Elector) Run(ctx context.Context, fn func(ctx context.Context)) error {
	if !e.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer e.running.Store(false)
	for {
		if !e.acquire(ctx) {
			return ctx.Err()
		}
		if again := e.lead(ctx, fn); !again {
			return ctx.Err()
		}
	}
}

package leaderelection

import (
	"fmt"
	"time"
)

// unhealthyAfter is how many attempts in a row must fail before Health
// reports the campaign unhealthy: one failed request is routine.
const unhealthyAfter = 3

// failureLogEvery is how often a run of failures is logged again while it
// lasts: the first failure is logged at once, then one summary line per
// interval, then the recovery.
const failureLogEvery = time.Minute

// Health is a snapshot of an Elector's campaign: what a /healthz handler
// reads. A candidate that waits while another leads is healthy; one whose
// requests fail (a 403 for want of RBAC on leases, a server it cannot
// reach) is not, and LastError says why.
type Health struct {
	// Running: Run has been called and has not returned.
	Running bool
	// Leading: this candidate leads (IsLeader).
	Leading bool
	// Leader is the holder this candidate last saw (Leader), "" if none.
	Leader string
	// ConsecutiveFailures counts the attempts to acquire or renew the
	// lease that failed in a row, since one last got an answer (a lease
	// acquired or renewed, held by another, or a race lost to another).
	ConsecutiveFailures int
	// FailingSince is when the first of those failures happened; zero
	// when ConsecutiveFailures is 0.
	FailingSince time.Time
	// LastError is the error of the last of those failures (LastError);
	// nil when ConsecutiveFailures is 0.
	LastError error
}

// Healthy reports whether the campaign works: Run is not running, or
// fewer than 3 attempts in a row have failed.
func (h Health) Healthy() bool {
	return !h.Running || h.ConsecutiveFailures < unhealthyAfter
}

// Err returns nil when Healthy, else an error that says how long and how
// often the campaign has failed, wrapping LastError (errors.Is matches
// kube.ErrForbidden for a missing RBAC grant, for example).
func (h Health) Err() error {
	if h.Healthy() {
		return nil
	}
	return fmt.Errorf("leaderelection: %d attempts to acquire or renew the lease failed since %s: %w",
		h.ConsecutiveFailures, h.FailingSince.UTC().Format(time.RFC3339), h.LastError)
}

// Health returns a snapshot of the campaign. It never blocks on Run.
func (e *Elector) Health() Health {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Health{
		Running:             e.running.Load(),
		Leading:             e.leads,
		Leader:              e.leader,
		ConsecutiveFailures: e.failures,
		FailingSince:        e.failingSince,
		LastError:           e.lastErr,
	}
}

// LastError returns the error of the last attempt to acquire or renew the
// lease, if it failed: nil before any attempt, and again once one gets an
// answer (the lease acquired or renewed, or seen held by another). It is
// Health().LastError.
func (e *Elector) LastError() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastErr
}

// answered records an attempt that the server answered, and logs the end
// of a run of failures.
func (e *Elector) answered() {
	e.mu.Lock()
	n, since := e.failures, e.failingSince
	e.failures, e.failingSince, e.lastErr = 0, time.Time{}, nil
	e.mu.Unlock()
	if n > 0 {
		e.log.Info("leaderelection: the lease is reachable again", "failedAttempts", n, "failingFor", time.Since(since).Round(time.Millisecond))
	}
	e.loggedAt, e.loggedFailures = time.Time{}, 0
}

// failedAttempt records a failed attempt, and logs it at Warn: the first
// of a run at once, then a summary at most every failureLogEvery. leading
// says whether it was a renewal.
func (e *Elector) failedAttempt(err error, leading bool) {
	now := time.Now()
	e.mu.Lock()
	if e.failures == 0 {
		e.failingSince = now
	}
	e.failures++
	e.lastErr = err
	n, since := e.failures, e.failingSince
	e.mu.Unlock()
	what := "leaderelection: cannot acquire the lease; retrying"
	if leading {
		what = "leaderelection: cannot renew the lease; retrying until the renew deadline"
	}
	switch {
	case n == 1:
		e.log.Warn(what, "err", err)
	case now.Sub(e.loggedAt) >= failureLogEvery:
		e.log.Warn(what, "err", err, "failedAttempts", n, "failedSinceLastLog", n-e.loggedFailures, "failingFor", now.Sub(since).Round(time.Millisecond))
	default:
		e.log.Debug(what, "err", err, "failedAttempts", n)
		return
	}
	e.loggedAt, e.loggedFailures = now, n
}

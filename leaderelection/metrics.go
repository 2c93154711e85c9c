package leaderelection

import "time"

// Metrics receives an Elector's measurements through callbacks, so that
// any metrics system can record them without this package depending on
// one. Nil fields are not called. Callbacks run on the goroutine of Run,
// never under the Elector's lock; they must be quick.
type Metrics struct {
	// Leading is called with true when this candidate starts leading, and
	// with false when it has stopped (client-go's
	// leader_election_master_status).
	Leading func(leading bool)
	// Transition is called each time this candidate sees the lease change
	// hands: a new holder, itself included, or the lease released.
	Transition func(holder string)
	// Attempt is called after each attempt to acquire (renewing false) or
	// renew (renewing true) the lease, with how long it took and its
	// error: nil when the server answered (acquired, renewed, held by
	// another, or a race lost to another candidate).
	Attempt func(renewing bool, d time.Duration, err error)
}

func (m *Metrics) leading(v bool) {
	if m.Leading != nil {
		m.Leading(v)
	}
}

func (m *Metrics) transition(holder string) {
	if m.Transition != nil {
		m.Transition(holder)
	}
}

func (m *Metrics) attempt(renewing bool, start time.Time, out outcome, err error) {
	if m.Attempt == nil {
		return
	}
	if out != failed {
		err = nil
	}
	m.Attempt(renewing, time.Since(start), err)
}

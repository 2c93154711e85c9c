package events

// Why an event was not written, as Metrics.Dropped reports it.
const (
	// DropQueueFull: the queue held QueueSize events (Stats.Dropped).
	DropQueueFull = "queue_full"
	// DropSpam: the spam filter refused it (Stats.Filtered).
	DropSpam = "spam"
	// DropInvalid: a missing or invalid type, reason or action
	// (Stats.Invalid).
	DropInvalid = "invalid"
	// DropFailed: its writes were given up after MaxAttempts, or refused
	// (Stats.Failed).
	DropFailed = "failed"
)

// Metrics receives a Recorder's counts through callbacks, as they happen,
// so that any metrics system can record them without this package
// depending on one (Stats has the same counts as totals). Nil fields are
// not called. Callbacks run on the goroutine of Eventf or of Run, never
// under the Recorder's lock; they must be quick and safe for concurrent
// use.
type Metrics struct {
	// Recorded is called for each event written as a new Event.
	Recorded func()
	// Aggregated is called for each repeat counted into the series of an
	// earlier event instead of being written as an event of its own.
	Aggregated func()
	// Dropped is called for each event that will not be written, with
	// why: DropQueueFull, DropSpam, DropInvalid or DropFailed.
	Dropped func(reason string)
}

func (m *Metrics) recorded() {
	if m.Recorded != nil {
		m.Recorded()
	}
}

func (m *Metrics) aggregated() {
	if m.Aggregated != nil {
		m.Aggregated()
	}
}

func (m *Metrics) dropped(reason string) {
	if m.Dropped != nil {
		m.Dropped(reason)
	}
}

package events

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/informer-go/informer/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Run writes the queued events until ctx ends, then writes what is still
// queued (and the counts not yet written) for up to FlushTimeout, and
// returns ctx's error. It is the Recorder's only goroutine.
func (r *Recorder) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer r.running.Store(false)
	tick := time.NewTicker(min(r.opts.SeriesInterval, 5*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.flush(ctx, nil)
			return ctx.Err()
		case e := <-r.queue:
			if ctx.Err() != nil || !r.write(ctx, e, r.opts.MaxAttempts) && ctx.Err() != nil {
				// Stopped before or while writing e: e goes with the flush.
				r.flush(ctx, e)
				return ctx.Err()
			}
		case now := <-tick.C:
			r.sweep(now)
		}
	}
}

// flush writes, once each, first (unless nil), what is queued and the
// series whose counts are not written, within FlushTimeout.
func (r *Recorder) flush(ctx context.Context, first *entry) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.FlushTimeout)
	defer cancel()
	if first != nil {
		r.write(fctx, first, 1)
	}
	r.sweepDue(time.Now(), true)
	for fctx.Err() == nil {
		select {
		case e := <-r.queue:
			r.write(fctx, e, 1)
		default:
			return
		}
	}
}

// sweep queues the series due for a write, forgets finished series and
// spam buckets that have refilled (a full bucket is the same as none), and
// logs drops.
func (r *Recorder) sweep(now time.Time) {
	r.sweepDue(now, false)
	refill := time.Duration(r.opts.Burst) * r.opts.RefillInterval
	r.mu.Lock()
	for k, b := range r.buckets {
		if now.Sub(b.last) >= refill {
			delete(r.buckets, k)
		}
	}
	dropped := r.stats.Dropped - r.logged
	r.logged = r.stats.Dropped
	r.mu.Unlock()
	if dropped > 0 {
		r.log.Warn("events: events dropped, the queue was full", "dropped", dropped, "queueSize", r.opts.QueueSize)
	}
}

// sweepDue queues the series whose counts are due (all of them when
// force), and forgets series not observed for SeriesExpiry.
func (r *Recorder) sweepDue(now time.Time, force bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.cache {
		if e.queued || !e.created {
			continue
		}
		if e.count != e.written && (force || now.Sub(e.lastSent) >= r.opts.SeriesInterval) {
			r.enqueueLocked(e, false)
			continue
		}
		if e.count == e.written && now.Sub(e.last) >= r.opts.SeriesExpiry {
			r.forgetLocked(e)
		}
	}
}

// write creates e's event, or patches its series, trying up to attempts
// times, and reports whether it succeeded. A write cut short by the end of
// ctx is neither counted nor logged as failed: the flush writes it.
func (r *Recorder) write(ctx context.Context, e *entry, attempts int) bool {
	backoff := 500 * time.Millisecond
	for try := 1; ; try++ {
		err := r.writeOnce(ctx, e)
		if err == nil {
			return true
		}
		if ctx.Err() != nil && attempts > 1 {
			return false
		}
		r.mu.Lock()
		ev := e.ev
		r.mu.Unlock()
		retry := try < attempts && ctx.Err() == nil && retriable(err)
		if !retry {
			r.mu.Lock()
			r.stats.Failed++
			if !e.created {
				r.forgetLocked(e)
			}
			r.mu.Unlock()
			r.opts.Metrics.dropped(DropFailed)
			r.log.Warn("events: could not write an event", "regarding", ev.Regarding.String(), "reason", ev.Reason, "attempts", try, "err", err)
			return false
		}
		r.log.Debug("events: write failed, retrying", "regarding", ev.Regarding.String(), "reason", ev.Reason, "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// retriable reports whether a failed write may succeed later: not a
// request the server refused as invalid or forbidden.
func retriable(err error) bool {
	var e *kube.APIError
	if errors.As(err, &e) {
		return e.Code == 0 || e.Code == 429 || e.Code >= 500 || e.Code == 409
	}
	return true
}

// writeOnce makes one write of e: a create the first time (with the
// series when it has repeats already), a patch of the series after.
func (r *Recorder) writeOnce(ctx context.Context, e *entry) error {
	r.mu.Lock()
	e.queued = false
	created, count, last, ev := e.created, e.count, e.last, e.ev
	r.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, r.opts.RequestTimeout)
	defer cancel()
	series := &EventSeries{Count: count, LastObservedTime: microTime(last)}
	if created {
		patch, _ := json.Marshal(map[string]any{"series": series})
		_, err := r.client.Patch(wctx, ev.Namespace, ev.Name, patch)
		switch {
		case err == nil:
			r.sent(e, count, "")
			r.log.Debug("events: counted", "regarding", ev.Regarding.String(), "reason", ev.Reason, "count", count)
			return nil
		case !errors.Is(err, kube.ErrNotFound):
			return err
		}
		// The event expired on the server: write it anew, with its count.
	}
	r.mu.Lock()
	ev.ObjectMeta = r.objectMetaLocked(ev.Namespace, ev.Regarding.Name, time.Now())
	r.mu.Unlock()
	if count > 1 {
		ev.Series = series
	}
	got, err := r.client.Create(wctx, &ev)
	if err != nil {
		// A conflict means the name, made of the object's name and the
		// time, is taken: the next attempt makes another.
		return err
	}
	r.sent(e, count, got.Name)
	if !created {
		r.mu.Lock()
		r.stats.Recorded++
		r.mu.Unlock()
		r.opts.Metrics.recorded()
	}
	r.log.Debug("events: recorded", "regarding", ev.Regarding.String(), "reason", ev.Reason, "event", got.Name)
	return nil
}

// sent notes that the server has count occurrences of e, under name when
// it was created.
func (r *Recorder) sent(e *entry, count int32, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name != "" {
		e.ev.Name = name
		e.created = true
	}
	e.written = max(e.written, count)
	e.lastSent = time.Now()
}

func microTime(t time.Time) metav1.MicroTime { return metav1.NewMicroTime(t) }

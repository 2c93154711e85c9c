package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/informer-go/informer"
)

// Recorder is a handler that keeps its own view of the objects (key →
// resourceVersion) from what it is told, and counts what it should never
// be told: a state older than one it already saw for the key (reordered),
// and an update that changes nothing (spurious: same resourceVersion).
// Slow makes every call take that long; PanicEvery makes every n-th call
// panic after it is recorded.
type Recorder[T informer.Object] struct {
	Name       string
	Slow       time.Duration
	PanicEvery int

	mu        sync.Mutex
	view      map[string]int64
	last      map[string]int64 // last version told, deletions included
	calls     int
	reordered int
	spurious  int
	panics    int
	bad       []string // the first few problems, for the report
}

// NewRecorder returns an empty Recorder.
func NewRecorder[T informer.Object](name string) *Recorder[T] {
	return &Recorder[T]{Name: name, view: map[string]int64{}, last: map[string]int64{}}
}

func rvOf[T informer.Object](o T) int64 {
	n, _ := strconv.ParseInt(o.GetResourceVersion(), 10, 64)
	return n
}

func keyOf[T informer.Object](o T) string {
	k, _ := informer.MetaKey(o)
	return k
}

// tell records one call; del is a deletion.
func (r *Recorder[T]) tell(key string, rv int64, del bool) {
	r.mu.Lock()
	r.calls++
	if last, ok := r.last[key]; ok && (rv < last || (rv == last && !del)) {
		if rv < last {
			r.reordered++
			if len(r.bad) < 5 {
				r.bad = append(r.bad, fmt.Sprintf("%s: told %d after %d", key, rv, last))
			}
		}
	}
	r.last[key] = max(r.last[key], rv)
	if del {
		delete(r.view, key)
	} else {
		r.view[key] = rv
	}
	n := r.calls
	r.mu.Unlock()
	if r.Slow > 0 {
		time.Sleep(r.Slow)
	}
	if r.PanicEvery > 0 && n%r.PanicEvery == 0 {
		r.mu.Lock()
		r.panics++
		r.mu.Unlock()
		panic(fmt.Sprintf("chaos: handler %s panics on purpose", r.Name))
	}
}

// OnAdd records an add.
func (r *Recorder[T]) OnAdd(o T, _ bool) { r.tell(keyOf(o), rvOf(o), false) }

// OnUpdate records an update, and counts it as spurious when old and new
// have the same resourceVersion.
func (r *Recorder[T]) OnUpdate(old, o T) {
	if old.GetResourceVersion() == o.GetResourceVersion() {
		r.mu.Lock()
		r.spurious++
		if len(r.bad) < 5 {
			r.bad = append(r.bad, fmt.Sprintf("%s: update without a change at %s", keyOf(o), o.GetResourceVersion()))
		}
		r.mu.Unlock()
	}
	r.tell(keyOf(o), rvOf(o), false)
}

// OnDelete records a deletion.
func (r *Recorder[T]) OnDelete(d informer.Deleted[T]) { r.tell(keyOf(d.Object), rvOf(d.Object), true) }

// View returns the recorder's view of the objects.
func (r *Recorder[T]) View() map[string]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps(r.view)
}

func maps(m map[string]int64) map[string]int64 {
	c := make(map[string]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Diff counts how want (the server) and got (a cache or a handler's view)
// differ: keys missing from got (lost), keys got has that want has not
// (invented; for a handler, a deletion it was not told), and keys at
// another version (stale).
type Diff struct {
	Lost, Invented, Stale int
	Examples              []string
}

// Clean reports whether got matched want.
func (d Diff) Clean() bool { return d.Lost+d.Invented+d.Stale == 0 }

// Compare returns how got differs from want.
func Compare(want, got map[string]int64) Diff {
	var d Diff
	ex := func(f string, a ...any) {
		if len(d.Examples) < 5 {
			d.Examples = append(d.Examples, fmt.Sprintf(f, a...))
		}
	}
	for k, v := range want {
		g, ok := got[k]
		switch {
		case !ok:
			d.Lost++
			ex("lost %s@%d", k, v)
		case g != v:
			d.Stale++
			ex("stale %s@%d, want @%d", k, g, v)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			d.Invented++
			ex("invented %s@%d", k, g)
		}
	}
	return d
}

// Lag measures how long after each write the cache applied it: writes
// are fed in order by Wrote, and one goroutine (Run) waits for each with
// the informer's WaitForResourceVersion.
//
// It keeps at most lagSamples lags (a uniform sample of all, by reservoir
// sampling, past that), so that a soak's memory does not grow with its
// writes; the maximum and the last are exact.
type Lag struct {
	writes chan write
	mu     sync.Mutex
	lags   []time.Duration
	seen   int           // lags measured
	max    time.Duration // the largest
	last   time.Duration // of the last write
	rng    *rand.Rand
}

// lagSamples bounds the lags a Lag keeps: the scenarios' few thousand
// writes are all kept; a soak's millions are sampled.
const lagSamples = 1 << 16

type write struct {
	rv int64
	at time.Time
}

// NewLag returns a Lag for up to n writes in flight.
func NewLag(n int) *Lag { return &Lag{writes: make(chan write, n), rng: rand.New(rand.NewPCG(1, 2))} }

// Wrote records a write at rv, done at time at.
func (l *Lag) Wrote(rv int64, at time.Time) {
	select {
	case l.writes <- write{rv, at}:
	default: // the waiter is far behind: skip this sample
	}
}

// Close ends the feed; Run returns once it waited for every write.
func (l *Lag) Close() { close(l.writes) }

// Run waits for each write in turn until the feed is closed or ctx ends.
func (l *Lag) Run(ctx context.Context, waitFor func(ctx context.Context, rv string) error) {
	for w := range l.writes {
		if err := waitFor(ctx, strconv.FormatInt(w.rv, 10)); err != nil {
			return
		}
		d := time.Since(w.at)
		l.mu.Lock()
		if l.seen++; len(l.lags) < lagSamples {
			l.lags = append(l.lags, d)
		} else if i := l.rng.IntN(l.seen); i < lagSamples {
			l.lags[i] = d
		}
		l.max = max(l.max, d)
		l.last = d
		l.mu.Unlock()
	}
}

// Stats returns the median, 99th percentile and maximum lag, and that of
// the last write.
func (l *Lag) Stats() (p50, p99, maxLag, last time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lags) == 0 {
		return
	}
	s := slices.Clone(l.lags)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*99/100], l.max, l.last
}

// Mutator changes objects at random: creates (up to Objects live), updates
// and deletes, in namespaces ns-0..ns-3, through Write.
type Mutator struct {
	Objects int           // how many objects at most
	Every   time.Duration // one write about this often
	Pad     int           // bytes of padding per object
	// Write applies one change and returns its resourceVersion, or 0 if it
	// did not apply.
	Write func(typ, namespace, name string, value int64, pad string) int64
	// Live lists the live keys.
	Live func() []string

	Writes, Creates, Updates, Deletes int
}

// Run writes until ctx ends, reporting each applied write to lag (nil:
// none).
func (m *Mutator) Run(ctx context.Context, rng *rand.Rand, lag *Lag) {
	pad := strings.Repeat("x", m.Pad)
	value := int64(0)
	live := m.Live()
	start, due := time.Now(), 0
	for {
		if due <= 0 {
			// Catch up with the rate in batches: a sleep of Every may
			// well last longer on a busy machine.
			select {
			case <-ctx.Done():
				return
			case <-time.After(m.Every):
			}
			due = min(int(time.Since(start)/m.Every)-m.Writes, 100)
			if due <= 0 {
				continue
			}
		}
		due--
		if m.Writes%50 == 0 {
			live = m.Live()
		}
		value++
		var typ, ns, name string
		switch p := rng.Float64(); {
		case len(live) < m.Objects/2 || (p < 0.3 && len(live) < m.Objects):
			typ, ns, name = "ADDED", fmt.Sprint("ns-", rng.IntN(4)), fmt.Sprint("w-", rng.IntN(m.Objects*2))
		case p < 0.45 && len(live) > 0:
			typ = "DELETED"
			ns, name, _ = strings.Cut(live[rng.IntN(len(live))], "/")
		case len(live) > 0:
			typ = "MODIFIED"
			ns, name, _ = strings.Cut(live[rng.IntN(len(live))], "/")
		default:
			continue
		}
		rv := m.Write(typ, ns, name, value, pad)
		if rv == 0 {
			continue
		}
		at := time.Now()
		m.Writes++
		switch typ {
		case "ADDED":
			m.Creates++
			live = append(live, ns+"/"+name)
		case "DELETED":
			m.Deletes++
			live = slices.DeleteFunc(live, func(k string) bool { return k == ns+"/"+name })
		default:
			m.Updates++
		}
		if lag != nil {
			lag.Wrote(rv, at)
		}
	}
}

// Leftover returns the stacks of goroutines still running code of this
// module (other than the caller's and the test runner's), waiting up to
// wait for them to end.
func Leftover(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		var left []string
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			ours := strings.Contains(g, "informer-go/informer.") ||
				strings.Contains(g, "informer-go/informer/source/") ||
				strings.Contains(g, "informer-go/informer/internal/chaos.(*")
			if !ours || strings.Contains(g, "chaos.Leftover") {
				continue
			}
			left = append(left, g)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package kubefixture

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
)

// CountingBody is a response body that adds the bytes read through it to
// N.
type CountingBody struct {
	io.ReadCloser
	N *atomic.Int64
}

// Read reads from the body and counts what it read.
func (b *CountingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.N.Add(int64(n))
	return n, err
}

// RestartLog records what a handler of a warm-restarted informer is told:
// the restored objects' initial adds apart from the changes after them.
type RestartLog[T informer.Object] struct {
	mu       sync.Mutex
	restored map[string]string // name → resourceVersion in the snapshot
	initial  int
	changes  map[string]int // name → calls
}

// NewRestartLog returns a log of inf's handler; inf holds what it
// restored (or nothing, for a cold start) and has not run yet.
func NewRestartLog[T informer.Object](inf *informer.Informer[T]) *RestartLog[T] {
	l := &RestartLog[T]{restored: map[string]string{}, changes: map[string]int{}}
	for _, o := range inf.Lister().List(nil) {
		l.restored[o.GetName()] = o.GetResourceVersion()
	}
	return l
}

// Handler is the handler that writes the log.
func (l *RestartLog[T]) Handler() informer.HandlerFuncs[T] {
	note := func(name string) {
		l.mu.Lock()
		l.changes[name]++
		l.mu.Unlock()
	}
	return informer.HandlerFuncs[T]{
		AddFunc: func(o T, initial bool) {
			l.mu.Lock()
			defer l.mu.Unlock()
			if initial && l.restored[o.GetName()] == o.GetResourceVersion() {
				l.initial++
				return
			}
			l.changes[o.GetName()]++
		},
		UpdateFunc: func(_, o T) { note(o.GetName()) },
		DeleteFunc: func(d informer.Deleted[T]) { note(d.Object.GetName()) },
	}
}

// Check waits until inf applied version last, then checks that the
// handler got the n restored objects as initial adds and then one call
// for each of want keys.
func (l *RestartLog[T]) Check(t testing.TB, inf *informer.Informer[T], last string, want, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := inf.WaitForResourceVersion(ctx, last); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		l.mu.Lock()
		calls, keys := 0, len(l.changes)
		for _, c := range l.changes {
			calls += c
		}
		initial := l.initial
		l.mu.Unlock()
		if calls >= want || time.Now().After(deadline) {
			if calls != want || keys != want || initial != n {
				t.Errorf("handlers: %d initial adds (want %d), %d calls for %d keys after them, want one for each of %d", initial, n, calls, keys, want)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

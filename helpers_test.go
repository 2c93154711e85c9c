package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// item is a small ConfigMap-like object for informer tests.
type item struct {
	metav1.ObjectMeta
	Data string
}

func newItem(ns, name, data string) *item {
	return &item{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "a"}}, Data: data}
}

// rec is one handler call as a recorder saw it.
type rec struct {
	Kind    string // add, update, delete
	Key     string
	RV      string
	Data    string
	OldRV   string
	Initial bool
	Unknown bool
}

func (r rec) String() string {
	return fmt.Sprintf("%s %s rv=%s data=%s initial=%v unknown=%v", r.Kind, r.Key, r.RV, r.Data, r.Initial, r.Unknown)
}

// recorder is a Handler that records every call.
type recorder struct {
	mu   sync.Mutex
	recs []rec
	// hook, if set, runs inside each call, before it is recorded.
	hook func(r rec)
}

func itemKey(o *item) string { k, _ := informer.MetaKey(o); return k }

func (h *recorder) add(r rec) {
	if h.hook != nil {
		h.hook(r)
	}
	h.mu.Lock()
	h.recs = append(h.recs, r)
	h.mu.Unlock()
}

func (h *recorder) OnAdd(o *item, initial bool) {
	h.add(rec{Kind: "add", Key: itemKey(o), RV: o.ResourceVersion, Data: o.Data, Initial: initial})
}

func (h *recorder) OnUpdate(old, o *item) {
	h.add(rec{Kind: "update", Key: itemKey(o), RV: o.ResourceVersion, Data: o.Data, OldRV: old.ResourceVersion})
}

func (h *recorder) OnDelete(d informer.Deleted[*item]) {
	h.add(rec{Kind: "delete", Key: itemKey(d.Object), RV: d.Object.ResourceVersion, Data: d.Object.Data, Unknown: d.FinalStateUnknown})
}

func (h *recorder) all() []rec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]rec(nil), h.recs...)
}

// state replays the recorded calls into the state a handler would build.
func (h *recorder) state() map[string]string {
	m := map[string]string{}
	for _, r := range h.all() {
		if r.Kind == "delete" {
			delete(m, r.Key)
		} else {
			m[r.Key] = r.Data
		}
	}
	return m
}

// checkOrder fails if, for some key, a handler saw a resourceVersion older
// than one it had seen before (guarantee 1). A delete followed by a re-add
// is fine, as long as versions keep increasing.
func checkOrder(t *testing.T, recs []rec) {
	t.Helper()
	last := map[string]uint64{}
	for i, r := range recs {
		rv, err := strconv.ParseUint(r.RV, 10, 64)
		if err != nil {
			t.Fatalf("call %d (%v): bad rv: %v", i, r, err)
		}
		if rv < last[r.Key] {
			t.Fatalf("call %d (%v): rv %d after %d for the same key", i, r, rv, last[r.Key])
		}
		last[r.Key] = rv
	}
}

// cacheState returns the informer's cache as key → data.
func cacheState(inf *informer.Informer[*item]) map[string]string {
	m := map[string]string{}
	for k, o := range inf.Lister().All() {
		m[k] = o.Data
	}
	return m
}

func sourceState(src *memory.Source[*item]) map[string]string {
	m := map[string]string{}
	for _, o := range src.Items() {
		m[itemKey(o)] = o.Data
	}
	return m
}

// runInformer starts inf.Run in a goroutine and returns a stop func that
// cancels it, waits for Run to return, and checks that no goroutine of the
// package is left (guarantee 6's leak check). It must run in a synctest
// bubble.
func runInformer(t *testing.T, inf *informer.Informer[*item]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != context.Canceled {
				t.Errorf("Run returned %v, want context.Canceled", err)
			}
			synctest.Wait() // goroutines that called wg.Done finish exiting
			checkNoLeaks(t)
		})
	}
	t.Cleanup(stop)
	return stop
}

// cutOff makes the changes of change while mem's watches are stalled, then
// drops them (as a reset connection): since a reflector resumes a dropped
// watch at once, this is how a test makes the resume start from before the
// changes (and, if change compacts, expire) whatever the scheduling.
func cutOff(mem *memory.Source[*item], change func()) {
	mem.StallWatches()
	change()
	mem.DropWatches(errReset)
	mem.ResumeWatches()
}

// runSyncedOne runs an informer over a source holding ns/a (data v1) and
// waits for its sync. cancel stops Run, whose result arrives on done.
func runSyncedOne(t *testing.T) (*memory.Source[*item], *informer.Informer[*item], context.Context, context.CancelFunc, <-chan error) {
	t.Helper()
	src := memory.New[*item](memory.Options{})
	src.Create(newItem("ns", "a", "v1"))
	inf := informer.New(src, informer.Options[*item]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	return src, inf, ctx, cancel, done
}

// checkNoLeaks fails if a goroutine is running code of this module (other
// than the test itself). Inside a synctest bubble, call it after
// synctest.Wait so exiting goroutines are gone.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/informer-go/informer.") && !strings.Contains(g, "_test.") && !strings.Contains(g, "testing.tRunner") {
			t.Errorf("goroutine left after Run returned:\n%s", g)
		}
	}
}

// quiet is Options whose errors go to the test log instead of slog.
func quiet[T informer.Object](t *testing.T, errs *errList) informer.Options[T] {
	return informer.Options[T]{
		OnError: func(err error) {
			if errs != nil {
				errs.add(err)
			}
		},
		Logger: discardLogger(),
	}
}

type errList struct {
	mu   sync.Mutex
	errs []error
}

func (e *errList) add(err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
}

func (e *errList) all() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.errs...)
}

package ring_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/shard/ring"
	kubesrc "github.com/informer-go/informer/source/kube"
	"github.com/informer-go/informer/workqueue"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// Durations of the integration tests: shorter than the defaults, in the
// same proportions.
const (
	itLease = 4 * time.Second
	itRenew = 3 * time.Second
	itRetry = 500 * time.Millisecond
)

type configMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

var configMaps = kube.Resource{Version: "v1", Resource: "configmaps"}

// gate is a member's network to its Leases: open, hung (a partition:
// requests wait until their context ends) or dead (a killed process).
type gate struct {
	base http.RoundTripper
	mode atomic.Int32
}

const (
	open int32 = iota
	hang
	dead
)

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	switch g.mode.Load() {
	case hang:
		<-req.Context().Done()
		return nil, req.Context().Err()
	case dead:
		return nil, errors.New("gate: killed")
	}
	return g.base.RoundTrip(req)
}

// ledger records every reconcile, and fails when two members (or two
// assignments of one) reconcile a key at once.
type ledger struct {
	mu        sync.Mutex
	active    map[string]string // key → member#epoch reconciling it
	done      map[string]string // key → the data version last reconciled
	overlaps  []string
	reconcile atomic.Int64
}

func newLedger() *ledger {
	return &ledger{active: map[string]string{}, done: map[string]string{}}
}

func (l *ledger) begin(key, who string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o, ok := l.active[key]; ok {
		l.overlaps = append(l.overlaps, fmt.Sprintf("%s reconciled by %s and %s at once", key, o, who))
	}
	l.active[key] = who
}

func (l *ledger) end(key, who, version string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active[key] == who {
		delete(l.active, key)
	}
	if version != "" {
		l.done[key] = version
	}
	l.reconcile.Add(1)
}

// behind counts the keys whose last reconciled version is not want.
func (l *ledger) behind(keys []string, want string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, k := range keys {
		if l.done[k] != want {
			n++
		}
	}
	return n
}

func (l *ledger) check(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.overlaps) > 0 {
		t.Fatalf("%d overlapping reconciles, first: %s", len(l.overlaps), l.overlaps[0])
	}
}

// liveMember is one member against the real kube-apiserver.
type liveMember struct {
	id     string
	gate   *gate
	m      *ring.Member
	cancel context.CancelFunc
	done   chan error

	mu      sync.Mutex
	listers map[uint64]informer.Lister[*configMap] // by epoch: one per piece
}

type cluster struct {
	t       *testing.T
	cfg     *kube.Config
	ns      string
	led     *ledger
	spans   *recorder
	members map[string]*liveMember
	// incremental starts the members with Options.Incremental.
	incremental bool

	mu     sync.Mutex
	phases []phase
}

// phase is one assignment's start: when its work was called and when its
// informer had synced.
type phase struct {
	who            string
	called, synced time.Time
	ranges         shard.Set
}

// phasesSince returns the phases that started after t, as durations
// since t.
func (c *cluster) phasesSince(t time.Time) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.phases {
		if p.called.After(t) {
			out = append(out, fmt.Sprintf("%s %v: called +%s, synced +%s", p.who, p.ranges, p.called.Sub(t).Round(time.Millisecond), p.synced.Sub(t).Round(time.Millisecond)))
		}
	}
	return out
}

func (c *cluster) start(id string) *liveMember {
	t := c.t
	hc, err := c.cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{base: hc.Transport}
	lc, err := ring.NewLeaseClient(c.cfg, kube.ClientOptions{HTTPClient: &http.Client{Transport: g}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ring.New(lc, ring.Options{Namespace: c.ns, Name: "ctl", Identity: id,
		LeaseDuration: itLease, RenewDeadline: itRenew, RetryPeriod: itRetry, Incremental: c.incremental})
	if err != nil {
		t.Fatal(err)
	}
	lm := &liveMember{id: id, gate: g, m: m, done: make(chan error, 1), listers: map[uint64]informer.Lister[*configMap]{}}
	ctx, cancel := context.WithCancel(context.Background())
	lm.cancel = cancel
	go func() { lm.done <- m.Run(ctx, func(ctx context.Context, a ring.Assignment) { c.work(ctx, lm, a) }) }()
	c.members[id] = lm
	return lm
}

// work is a member's controller over its ranges: a sharded informer, a
// queue and 4 workers that record each reconcile.
func (c *cluster) work(ctx context.Context, lm *liveMember, a ring.Assignment) {
	who := fmt.Sprintf("%s#%d", a.Identity, a.Epoch)
	called := time.Now()
	src, err := kubesrc.New[*configMap](c.cfg, configMaps, kubesrc.Options{Namespace: c.ns, Shard: a.Ranges})
	if err != nil {
		c.t.Error(err)
		return
	}
	defer src.Close()
	inf := informer.New(src, informer.Options[*configMap]{})
	q := workqueue.New[string](workqueue.Options[string]{})
	if _, err := workqueue.Enqueue(inf, q, workqueue.EnqueueOptions[*configMap]{}); err != nil {
		c.t.Error(err)
		return
	}
	infDone := make(chan struct{})
	go func() { defer close(infDone); _ = inf.Run(ctx) }()
	defer func() { <-infDone }()
	if inf.WaitForSync(ctx) != nil {
		return
	}
	a.Synced()
	c.mu.Lock()
	c.phases = append(c.phases, phase{who: who, called: called, synced: time.Now(), ranges: a.Ranges})
	c.mu.Unlock()
	c.spans.run(a, func() {
		l := inf.Lister()
		lm.mu.Lock()
		lm.listers[a.Epoch] = l
		lm.mu.Unlock()
		_ = q.Run(ctx, 4, func(ctx context.Context, key string) error {
			c.led.begin(key, who)
			time.Sleep(time.Millisecond)
			v := ""
			if cm, ok := l.Get(key); ok {
				v = cm.Data["v"]
			}
			c.led.end(key, who, v)
			return nil
		})
		lm.mu.Lock()
		delete(lm.listers, a.Epoch)
		lm.mu.Unlock()
	})
}

func (c *cluster) stop(id string) {
	lm := c.members[id]
	lm.cancel()
	<-lm.done
	delete(c.members, id)
}

func (c *cluster) kill(id string) {
	lm := c.members[id]
	lm.gate.mode.Store(dead)
	lm.cancel()
	<-lm.done
	delete(c.members, id)
}

// settled reports whether the live members' synced work covers the
// space, one assignment each, and every object is held by exactly one.
func (c *cluster) settled(total int) string {
	if !c.spans.covered() {
		return "not covered"
	}
	held := map[string]string{}
	for id, lm := range c.members {
		st := lm.m.Health()
		if !st.Synced || len(st.Members) != len(c.members) {
			return id + " not synced"
		}
		lm.mu.Lock()
		var cms []*configMap
		for _, l := range lm.listers {
			cms = append(cms, l.List(nil)...)
		}
		lm.mu.Unlock()
		for _, cm := range cms {
			if o, dup := held[cm.Name]; dup {
				return fmt.Sprintf("%s held by %s and %s", cm.Name, o, id)
			}
			if !st.Ranges.Contains(shard.Hash(string(cm.UID))) {
				return fmt.Sprintf("%s held by %s outside its ranges", cm.Name, id)
			}
			held[cm.Name] = id
		}
	}
	if len(held) != total {
		return fmt.Sprintf("%d held of %d", len(held), total)
	}
	return ""
}

func (c *cluster) waitSettled(total int, limit time.Duration) time.Duration {
	c.t.Helper()
	start := time.Now()
	for {
		why := c.settled(total)
		if why == "" {
			return time.Since(start)
		}
		c.led.check(c.t)
		c.check()
		if time.Since(start) > limit {
			c.t.Fatalf("not settled after %s: %s", limit, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *cluster) check() {
	c.t.Helper()
	if o := c.spans.overlaps(); o != "" {
		c.t.Fatalf("two members worked the same hashes at once: %s", o)
	}
}

// TestIntegrationRing: members over many ConfigMaps on a real
// kube-apiserver, with the ShardedListAndWatch gate on and off, and on
// with Options.Incremental: 3 members hold every object exactly once;
// scaling 3 → 5, a kill, and 4 → 2, each while objects change, never has
// a key reconciled by two members at once, every change is reconciled,
// and with the gate on a killed member's range is covered again within
// LeaseDuration + 2 s.
func TestIntegrationRing(t *testing.T) {
	kubetest.Need(t)
	total := 1000
	if v, err := strconv.Atoi(os.Getenv("RING_OBJECTS")); err == nil {
		total = v
	}
	for _, tc := range []struct{ gateOn, incremental bool }{{true, false}, {false, false}, {true, true}} {
		gateOn := tc.gateOn
		name := fmt.Sprintf("gate=%v", gateOn)
		if tc.incremental {
			name += "/incremental"
		}
		t.Run(name, func(t *testing.T) {
			var cfg *kube.Config
			if gateOn {
				cfg = kubetest.StartConfig(t, kubetest.ShardedGate)
			} else {
				cfg = kubetest.Config(t)
			}
			r := kubetest.NewREST(t, cfg)
			ns := fmt.Sprintf("ring-%d", time.Now().UnixNano()%1e9)
			r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
			keys := writeAll(t, r, ns, total, "0", true)
			c := &cluster{t: t, cfg: cfg, ns: ns, led: newLedger(), spans: &recorder{}, members: map[string]*liveMember{}, incremental: tc.incremental}
			defer func() {
				for id := range c.members {
					c.stop(id)
				}
			}()
			for _, id := range []string{"a", "b", "c"} {
				c.start(id)
			}
			t.Logf("3 members synced in %s", c.waitSettled(total, 60*time.Second))
			step := func(name, version string, change func()) {
				done := make(chan struct{})
				go func() { defer close(done); writeAll(t, r, ns, total, version, false) }()
				start := time.Now()
				change()
				d := c.waitSettled(total, 60*time.Second)
				<-done
				for c.led.behind(keys, version) > 0 {
					c.led.check(t)
					if time.Since(start) > 90*time.Second {
						t.Fatalf("%s: %d changes not reconciled", name, c.led.behind(keys, version))
					}
					time.Sleep(50 * time.Millisecond)
				}
				c.led.check(t)
				c.check()
				t.Logf("%s: covered in %s, every change reconciled in %s; assignments: %v", name, d, time.Since(start), c.phasesSince(start))
				// Without the gate every member lists the whole collection
				// again for its new range, which under this write load can
				// take longer than the margin: only logged then.
				if bound := itLease + 2*time.Second; name == "kill c" && d > bound && gateOn {
					t.Errorf("kill c: covered again after %s, want at most LeaseDuration + 2 s = %s", d, bound)
				}
			}
			step("3→5", "1", func() { c.start("d"); c.start("e") })
			step("kill c", "2", func() { c.kill("c") })
			step("4→2", "3", func() { c.stop("d"); c.stop("e") })
			t.Logf("%d reconciles, no overlap", c.led.reconcile.Load())
		})
	}
}

// TestIntegrationRingKillCoverage measures the time from a kill to full
// coverage: at most LeaseDuration + 2 s. With 3 members the survivors
// only grow into the dead member's range; with 5, a middle one's death
// moves every boundary, so some members wait for a neighbour to release
// a range first.
func TestIntegrationRingKillCoverage(t *testing.T) {
	kubetest.Need(t)
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	total := 300
	if v, err := strconv.Atoi(os.Getenv("RING_OBJECTS")); err == nil {
		total = v
	}
	for _, tt := range []struct {
		members     []string
		kill        string
		incremental bool
	}{
		{[]string{"a", "b", "c"}, "b", false},
		{[]string{"a", "b", "c", "d", "e"}, "c", false},
		{[]string{"a", "b", "c"}, "b", true},
		{[]string{"a", "b", "c", "d", "e"}, "c", true},
	} {
		t.Run(fmt.Sprintf("%d members incremental=%v", len(tt.members), tt.incremental), func(t *testing.T) {
			ns := fmt.Sprintf("ringkill-%d", time.Now().UnixNano()%1e9)
			r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
			writeAll(t, r, ns, total, "0", true)
			c := &cluster{t: t, cfg: cfg, ns: ns, led: newLedger(), spans: &recorder{}, members: map[string]*liveMember{}, incremental: tt.incremental}
			defer func() {
				for id := range c.members {
					c.stop(id)
				}
			}()
			for _, id := range tt.members {
				c.start(id)
			}
			c.waitSettled(total, 60*time.Second)
			killed := time.Now()
			c.kill(tt.kill)
			c.waitSettled(total, itLease+10*time.Second)
			d := time.Since(killed)
			t.Logf("covered again %s after the kill (LeaseDuration %s, %d objects); the survivors' assignments: %v", d, itLease, total, c.phasesSince(killed))
			if d > itLease+2*time.Second {
				t.Fatalf("covered again after %s, want at most LeaseDuration + 2 s", d)
			}
			c.led.check(t)
			c.check()
		})
	}
}

// TestIntegrationRingPartition: a member cut off from its Lease (its
// watch still works) stops working before another takes its range.
func TestIntegrationRingPartition(t *testing.T) {
	kubetest.Need(t)
	cfg := kubetest.Config(t)
	r := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("ringcut-%d", time.Now().UnixNano()%1e9)
	r.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": ns}})
	const total = 300
	writeAll(t, r, ns, total, "0", true)
	c := &cluster{t: t, cfg: cfg, ns: ns, led: newLedger(), spans: &recorder{}, members: map[string]*liveMember{}}
	defer func() {
		for id := range c.members {
			c.stop(id)
		}
	}()
	for _, id := range []string{"a", "b", "c"} {
		c.start(id)
	}
	c.waitSettled(total, 60*time.Second)
	b := c.members["b"]
	b.gate.mode.Store(hang)
	cut := time.Now()
	for b.m.Health().Ranges != nil {
		if time.Since(cut) > itLease+5*time.Second {
			t.Fatalf("b still works %s after the cut", time.Since(cut))
		}
		c.check()
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("b stopped %s after the cut (RenewDeadline %s)", time.Since(cut), itRenew)
	delete(c.members, "b")
	d := c.waitSettled(total, itLease+10*time.Second)
	t.Logf("a and c cover b's range %s after the cut", time.Since(cut))
	_ = d
	c.check()
	c.led.check(t)
	b.gate.mode.Store(open)
	c.members["b"] = b
	t.Logf("b back: settled in %s", c.waitSettled(total, 30*time.Second))
	c.check()
	c.led.check(t)
}

// writeAll creates (or updates) ConfigMaps cm-0… with data v=version, 16
// at a time, and returns their keys.
func writeAll(t *testing.T, r *kubetest.REST, ns string, n int, version string, create bool) []string {
	keys := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range n {
		name := fmt.Sprintf("cm-%d", i)
		keys[i] = ns + "/" + name
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			body := map[string]any{"metadata": map[string]any{"name": name}, "data": map[string]string{"v": version}}
			if create {
				r.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", body)
			} else {
				code, data := r.Do("PATCH", "/api/v1/namespaces/"+ns+"/configmaps/"+name, "application/merge-patch+json", []byte(`{"data":{"v":"`+version+`"}}`))
				if code != 200 {
					t.Errorf("patch %s: %d %.200s", name, code, data)
				}
			}
		}()
	}
	wg.Wait()
	return keys
}

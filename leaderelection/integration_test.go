package leaderelection_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// Durations of the integration tests: shorter than the defaults, to keep
// the tests quick, with the same proportions.
const (
	itLease = 6 * time.Second
	itRenew = 4 * time.Second
	itRetry = time.Second
)

// gate is a candidate's network: open, hung (requests wait until their
// context ends, as on a partitioned connection) or dead (requests fail at
// once, as for a killed process).
type gate struct {
	base http.RoundTripper
	mode atomic.Int32
}

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	switch mode(g.mode.Load()) {
	case hang:
		<-req.Context().Done()
		return nil, req.Context().Err()
	case fail:
		return nil, errors.New("gate: this candidate was killed")
	}
	return g.base.RoundTrip(req)
}

// liveCandidate is one Elector against the real kube-apiserver, with its
// own connection pool behind a gate.
type liveCandidate struct {
	id     string
	gate   *gate
	el     *leaderelection.Elector
	cancel context.CancelFunc
	done   chan error
}

func startLive(t *testing.T, f *fence, lease, id string) *liveCandidate {
	t.Helper()
	cfg := kubetest.Config(t)
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hc.CloseIdleConnections)
	g := &gate{base: hc.Transport}
	hc.Transport = g
	lc, err := leaderelection.NewLeaseClient(cfg, kube.ClientOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	el, err := leaderelection.New(lc, leaderelection.Options{
		Namespace: "default", Name: lease, Identity: id,
		LeaseDuration: itLease, RenewDeadline: itRenew, RetryPeriod: itRetry,
		Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &liveCandidate{id: id, gate: g, el: el, cancel: cancel, done: make(chan error, 1)}
	go func() { c.done <- el.Run(ctx, f.run(id)) }()
	t.Cleanup(func() { cancel(); <-c.done })
	return c
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}

func startThree(t *testing.T, f *fence, lease string) map[string]*liveCandidate {
	cs := map[string]*liveCandidate{}
	for i := range 3 {
		id := fmt.Sprintf("%s-%d", lease, i)
		cs[id] = startLive(t, f, lease, id)
	}
	waitFor(t, 30*time.Second, "first leader", func() bool { return f.leader() != "" })
	return cs
}

// TestLiveKillLeader: the leader of three candidates is killed (its
// requests fail and it stops without releasing); another takes over
// within LeaseDuration plus one jittered RetryPeriod of the kill.
func TestLiveKillLeader(t *testing.T) {
	kubetest.Need(t)
	var f fence
	cs := startThree(t, &f, "kill")
	time.Sleep(2 * itRetry)
	old := f.leader()
	killed := time.Now()
	cs[old].gate.mode.Store(int32(fail))
	cs[old].cancel()
	waitFor(t, 2*itLease, "takeover", func() bool { l := f.leader(); return l != "" && l != old })
	took := time.Since(killed)
	t.Logf("%s killed; %s took over after %s (LeaseDuration %s)", old, f.leader(), took.Round(time.Millisecond), itLease)
	if lim := itLease + itRetry*12/10 + 500*time.Millisecond; took > lim {
		t.Errorf("takeover after %s, over %s", took, lim)
	}
	f.check(t)
}

// TestLivePauseLeader: the leader's network hangs; it steps down before
// any other candidate leads (the fence never sees two), and rejoins as a
// follower when the network comes back.
func TestLivePauseLeader(t *testing.T) {
	kubetest.Need(t)
	var f fence
	cs := startThree(t, &f, "pause")
	time.Sleep(2 * itRetry)
	old := f.leader()
	paused := time.Now()
	cs[old].gate.mode.Store(int32(hang))
	waitFor(t, 3*itLease, "takeover", func() bool { l := f.leader(); return l != "" && l != old })
	terms := f.all()
	stepped, next := terms[0], terms[len(terms)-1]
	t.Logf("%s paused; it stepped down after %s (%v); %s led after %s", old,
		stepped.end.Sub(paused).Round(time.Millisecond), stepped.cause, next.id, next.start.Sub(paused).Round(time.Millisecond))
	if !stepped.end.Before(next.start) {
		t.Errorf("%s led from %s, before %s stepped down at %s", next.id, next.start, old, stepped.end)
	}
	if !errors.Is(stepped.cause, leaderelection.ErrLeaseLost) {
		t.Errorf("cause %v, want ErrLeaseLost", stepped.cause)
	}
	cs[old].gate.mode.Store(int32(up))
	waitFor(t, 3*itLease, "the paused candidate to follow", func() bool { return cs[old].el.Leader() == next.id })
	if cs[old].el.IsLeader() {
		t.Errorf("%s leads after the pause", old)
	}
	f.check(t)
}

// TestLiveAPIServerRestart: kube-apiserver stops for longer than
// RenewDeadline under three candidates: the leader steps down, there is
// never more than one leader, and one leads within LeaseDuration of the
// server's return.
func TestLiveAPIServerRestart(t *testing.T) {
	env := kubetest.Need(t)
	var f fence
	startThree(t, &f, "restart")
	time.Sleep(2 * itRetry)
	before := f.leader()
	scripts, err := apiserver.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	cmd := exec.Command(filepath.Join(scripts, "restart"), env["KUBE_APISERVER_DIR"])
	cmd.Env = append(os.Environ(), fmt.Sprintf("KUBE_APISERVER_DOWN_SECONDS=%d", int(itRenew/time.Second)+2))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
	back := time.Now()
	t.Logf("kube-apiserver down and back in %s", back.Sub(began).Round(time.Millisecond))
	waitFor(t, itLease+2*itRetry, "a leader after the restart", func() bool { return f.leader() != "" })
	t.Logf("a leader %s after the server's return", time.Since(back).Round(time.Millisecond))
	time.Sleep(2 * itRetry)
	terms := f.all()
	t.Logf("leader before %s, after %s; %d terms", before, f.leader(), len(terms))
	if len(terms) < 2 || !errors.Is(terms[0].cause, leaderelection.ErrLeaseLost) {
		t.Errorf("the leader did not step down while the server was down: %+v", terms)
	}
	f.check(t)
}

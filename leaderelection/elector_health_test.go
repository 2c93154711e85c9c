package leaderelection_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
)

// forbidding is a LeaseClient that answers 403 while forbid is set, as
// kube-apiserver does without an RBAC grant on leases.
type forbidding struct {
	leaderelection.LeaseClient
	forbid atomic.Bool
}

func (f *forbidding) Get(ctx context.Context, ns, name string) (*leaderelection.Lease, error) {
	if f.forbid.Load() {
		return nil, &kube.APIError{Op: "get", Code: http.StatusForbidden, Reason: "Forbidden"}
	}
	return f.LeaseClient.Get(ctx, ns, name)
}

func (f *forbidding) Update(ctx context.Context, l *leaderelection.Lease) (*leaderelection.Lease, error) {
	if f.forbid.Load() {
		return nil, &kube.APIError{Op: "update", Code: http.StatusForbidden, Reason: "Forbidden"}
	}
	return f.LeaseClient.Update(ctx, l)
}

// logLines is an slog handler's output, safe for concurrent use.
type logLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logLines) lines(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for line := range strings.Lines(l.b.String()) {
		if strings.Contains(line, substr) {
			n++
		}
	}
	return n
}

// A candidate whose requests are forbidden says so at the default log
// level, once and then once a minute (not once per retry), and through
// LastError and Health; once allowed it leads and says it recovered.
func TestForbiddenCandidateSaysWhy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logLines
		client := &forbidding{LeaseClient: &leaseClient{s: &leaseServer{}}}
		client.forbid.Store(true)
		el, err := leaderelection.New(client, leaderelection.Options{
			Namespace: "ns", Name: "lease", Identity: "a",
			Logger: slog.New(slog.NewTextHandler(&logs, nil)), // Info: the default level
		})
		if err != nil {
			t.Fatal(err)
		}
		if h := el.Health(); !h.Healthy() || h.Running || el.LastError() != nil {
			t.Fatalf("before Run: %+v, LastError %v", h, el.LastError())
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		led := make(chan struct{})
		go func() {
			done <- el.Run(ctx, func(ctx context.Context) { close(led); <-ctx.Done() })
		}()
		synctest.Wait()
		if n := logs.lines("level=WARN msg=\"leaderelection: cannot acquire the lease"); n != 1 {
			t.Errorf("after the first attempt: %d warnings, want 1:\n%s", n, logs.b.String())
		}
		time.Sleep(90 * time.Second) // about 40 attempts, every 2-2.4 s
		synctest.Wait()
		h := el.Health()
		if h.Healthy() || !h.Running || h.Leading || h.ConsecutiveFailures < 30 {
			t.Errorf("after 90 s forbidden: %+v, want unhealthy after 30+ failures", h)
		}
		if !errors.Is(el.LastError(), kube.ErrForbidden) || !errors.Is(h.Err(), kube.ErrForbidden) {
			t.Errorf("LastError %v, Health.Err %v: want both to match kube.ErrForbidden", el.LastError(), h.Err())
		}
		if n := logs.lines("cannot acquire the lease"); n != 2 {
			t.Errorf("after 90 s: %d warnings, want 2 (the first, a summary after a minute):\n%s", n, logs.b.String())
		}
		if n := logs.lines("failedAttempts="); n != 1 {
			t.Errorf("%d summaries with failedAttempts, want 1", n)
		}

		client.forbid.Store(false)
		<-led
		h = el.Health()
		if !h.Healthy() || !h.Leading || h.ConsecutiveFailures != 0 || h.LastError != nil || h.Err() != nil {
			t.Errorf("leading: %+v", h)
		}
		if n := logs.lines("the lease is reachable again"); n != 1 {
			t.Errorf("%d recovery lines, want 1:\n%s", n, logs.b.String())
		}
		cancel()
		<-done
		if el.Health().Running {
			t.Error("Health.Running after Run returned")
		}
	})
}

// A leader whose renewals fail warns at once, and the reason it stops
// leading names the last failure.
func TestFailedRenewalsWarnAndExplainTheLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logLines
		client := &forbidding{LeaseClient: &leaseClient{s: &leaseServer{}}}
		var reason atomic.Value
		el, err := leaderelection.New(client, leaderelection.Options{
			Namespace: "ns", Name: "lease", Identity: "a",
			Logger:           slog.New(slog.NewTextHandler(&logs, nil)),
			OnStoppedLeading: func(err error) { reason.Store(err) },
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() { _ = el.Run(ctx, func(ctx context.Context) { <-ctx.Done() }) }()
		synctest.Wait()
		if !el.IsLeader() {
			t.Fatal("not leading")
		}
		client.forbid.Store(true)
		time.Sleep(11 * time.Second) // past RenewDeadline (10 s)
		synctest.Wait()
		if n := logs.lines("level=WARN msg=\"leaderelection: cannot renew the lease"); n != 1 {
			t.Errorf("%d renewal warnings, want 1:\n%s", n, logs.b.String())
		}
		r, _ := reason.Load().(error)
		if !errors.Is(r, leaderelection.ErrLeaseLost) || !errors.Is(r, kube.ErrForbidden) {
			t.Errorf("stopped leading with %v, want ErrLeaseLost wrapping the 403", r)
		}
		cancel()
	})
}

package leaderelection_test

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
)

// leaseServer is an in-memory API server of one lease: resourceVersions,
// 404 before creation and 409 on a stale write, as kube-apiserver answers.
type leaseServer struct {
	mu     sync.Mutex
	lease  *leaderelection.Lease
	rv     int
	writes int
}

// get returns a copy of the stored lease, or nil.
func (s *leaseServer) get() *leaderelection.Lease {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease.DeepCopy()
}

// set stores l as another writer would, bumping the resourceVersion.
func (s *leaseServer) set(l *leaderelection.Lease) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	l = l.DeepCopy()
	l.ResourceVersion = strconv.Itoa(s.rv)
	s.lease = l
}

// mode is what a candidate's connection to the server does.
type mode int32

const (
	up   mode = iota // requests are answered
	hang             // requests wait until their context ends (a partition)
	fail             // requests fail at once with a 500
	slow             // requests are answered after leaseClient.delay
)

// leaseClient is one candidate's connection to a leaseServer.
type leaseClient struct {
	s     *leaseServer
	mode  atomic.Int32
	calls atomic.Int64
	delay time.Duration // in mode slow; set before the candidate starts
	// onGet, when set, runs in each Get once it is answered (before it
	// returns): a test's hook into the candidate's goroutine.
	onGet atomic.Pointer[func()]
}

func (c *leaseClient) set(m mode) { c.mode.Store(int32(m)) }

func (c *leaseClient) enter(ctx context.Context, op string) error {
	c.calls.Add(1)
	switch mode(c.mode.Load()) {
	case hang:
		<-ctx.Done()
		return context.Cause(ctx)
	case fail:
		return &kube.APIError{Op: op, Code: http.StatusInternalServerError}
	case slow:
		t := time.NewTimer(c.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return ctx.Err()
}

func (c *leaseClient) Get(ctx context.Context, ns, name string) (*leaderelection.Lease, error) {
	if err := c.enter(ctx, "get"); err != nil {
		return nil, err
	}
	if l := c.s.get(); l != nil {
		if f := c.onGet.Load(); f != nil {
			(*f)()
		}
		return l, nil
	}
	return nil, &kube.APIError{Op: "get", Code: http.StatusNotFound}
}

func (c *leaseClient) Create(ctx context.Context, l *leaderelection.Lease) (*leaderelection.Lease, error) {
	if err := c.enter(ctx, "create"); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.s.lease != nil {
		return nil, &kube.APIError{Op: "create", Code: http.StatusConflict, Reason: "AlreadyExists"}
	}
	c.s.rv++
	c.s.writes++
	l = l.DeepCopy()
	l.ResourceVersion = strconv.Itoa(c.s.rv)
	c.s.lease = l
	return l.DeepCopy(), nil
}

func (c *leaseClient) Update(ctx context.Context, l *leaderelection.Lease) (*leaderelection.Lease, error) {
	if err := c.enter(ctx, "update"); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.s.lease == nil {
		return nil, &kube.APIError{Op: "update", Code: http.StatusNotFound}
	}
	if l.ResourceVersion != c.s.lease.ResourceVersion {
		return nil, &kube.APIError{Op: "update", Code: http.StatusConflict, Reason: "Conflict"}
	}
	c.s.rv++
	c.s.writes++
	l = l.DeepCopy()
	l.ResourceVersion = strconv.Itoa(c.s.rv)
	c.s.lease = l
	return l.DeepCopy(), nil
}

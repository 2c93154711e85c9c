package leaderelection

import (
	"context"
	"fmt"
	"net/http"

	"github.com/informer-go/informer/internal/rest"
	"github.com/informer-go/informer/source/kube"
)

// LeaseClient reads and writes Leases: all an Elector needs of the API
// server. NewLeaseClient returns one for a Kubernetes API server; tests can
// use their own.
//
// Contract: Get of a lease that does not exist returns an error matching
// kube.ErrNotFound. Create of a name that exists and Update of a lease
// whose ResourceVersion is not the current one return a *kube.APIError
// with code 409 (a conflict, or a name that exists): the Elector takes it as a race
// lost to another candidate. Every call returns what the server stored.
// Calls honour ctx, and are made from one goroutine at a time.
type LeaseClient interface {
	Get(ctx context.Context, namespace, name string) (*Lease, error)
	Create(ctx context.Context, lease *Lease) (*Lease, error)
	Update(ctx context.Context, lease *Lease) (*Lease, error)
}

// ClientOptions configures NewLeaseClient.
type ClientOptions struct {
	// HTTPClient sends the requests; nil means cfg.HTTPClient().
	HTTPClient *http.Client
	// RateLimiter, when set, paces the requests (share the one of the
	// factory or the Sources of the same server).
	RateLimiter *kube.RateLimiter
}

// NewLeaseClient returns a LeaseClient for the coordination.k8s.io/v1
// Leases of cfg's server. It sends nothing until used.
func NewLeaseClient(cfg *kube.Config, opts ClientOptions) (LeaseClient, error) {
	c, err := rest.New(cfg, opts.HTTPClient, opts.RateLimiter)
	if err != nil {
		return nil, err
	}
	return &leaseClient{c: c}, nil
}

// leaseClient is the LeaseClient of NewLeaseClient.
type leaseClient struct{ c *rest.Client }

func leasePath(ns, name string) string {
	return rest.Path("coordination.k8s.io", "v1", ns, "leases", name)
}

func (c *leaseClient) Get(ctx context.Context, ns, name string) (*Lease, error) {
	var out Lease
	if err := c.c.Do(ctx, "get", http.MethodGet, leasePath(ns, name), "", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (c *leaseClient) Create(ctx context.Context, l *Lease) (*Lease, error) {
	return c.write(ctx, "create", http.MethodPost, leasePath(l.Namespace, ""), l)
}

func (c *leaseClient) Update(ctx context.Context, l *Lease) (*Lease, error) {
	if l.ResourceVersion == "" {
		return nil, fmt.Errorf("leaderelection: update of lease %s/%s without a resourceVersion", l.Namespace, l.Name)
	}
	return c.write(ctx, "update", http.MethodPut, leasePath(l.Namespace, l.Name), l)
}

func (c *leaseClient) write(ctx context.Context, op, method, path string, l *Lease) (*Lease, error) {
	in := *l
	in.APIVersion, in.Kind = "coordination.k8s.io/v1", "Lease"
	var out Lease
	if err := c.c.Do(ctx, op, method, path, "", &in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

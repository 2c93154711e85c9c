package leaderelection

import (
	"context"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
)

// Leases describes coordination.k8s.io/v1 Leases as *Lease, for
// typed.NewClient (and typed.Informer, to watch who leads).
var Leases = typed.Resource[*Lease]{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true}

// LeaseClient reads and writes Leases: all an Elector needs of the API
// server. NewLeaseClient and LeaseClientOf return one for a Kubernetes API
// server; tests can use their own.
//
// Contract: Get of a lease that does not exist returns an error matching
// kube.ErrNotFound. Update of a lease whose ResourceVersion is not the
// current one returns an error matching kube.ErrConflict, and Create of a
// name that exists one matching kube.ErrAlreadyExists: the Elector takes
// either as a race lost to another candidate. Every call returns what the
// server stored. Calls honour ctx, and are made from one goroutine at a
// time.
type LeaseClient interface {
	Get(ctx context.Context, namespace, name string) (*Lease, error)
	Create(ctx context.Context, lease *Lease) (*Lease, error)
	Update(ctx context.Context, lease *Lease) (*Lease, error)
}

// NewLeaseClient returns a LeaseClient for the Leases of cfg's server,
// through a kube.Client made with opts. It sends nothing until used.
//
// Give the lease a rate limiter of its own: leave opts.RateLimiter nil
// (the client then makes one, of opts.QPS and opts.Burst) and share only
// the connection pool (opts.HTTPClient). A renewal queued behind a burst
// of the program's own writes on a shared limiter can miss RenewDeadline,
// and the leader then steps down for nothing.
func NewLeaseClient(cfg *kube.Config, opts kube.ClientOptions) (LeaseClient, error) {
	c, err := kube.NewClient[*Lease](cfg, kube.Resource{Group: Leases.Group, Version: Leases.Version, Resource: Leases.Resource, Kind: Leases.Kind}, opts)
	if err != nil {
		return nil, err
	}
	return LeaseClientOf(c), nil
}

// LeaseClientOf returns the LeaseClient of a kube.Client of Leases. The
// client should have a rate limiter of its own, not one shared with the
// program's other requests (as typed.NewClient's clients share the
// factory's): see NewLeaseClient, which makes such a client.
func LeaseClientOf(c *kube.Client[*Lease]) LeaseClient { return leaseClient{c} }

type leaseClient struct{ c *kube.Client[*Lease] }

func (c leaseClient) Get(ctx context.Context, ns, name string) (*Lease, error) {
	return c.c.Get(ctx, ns, name, kube.GetOptions{})
}

func (c leaseClient) Create(ctx context.Context, l *Lease) (*Lease, error) {
	return c.c.Create(ctx, l, kube.WriteOptions{})
}

func (c leaseClient) Update(ctx context.Context, l *Lease) (*Lease, error) {
	return c.c.Update(ctx, l, kube.WriteOptions{})
}

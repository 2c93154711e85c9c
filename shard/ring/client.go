package ring

import (
	"context"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
)

// LeaseClient reads and writes the members' Leases: the leader election's
// LeaseClient (Get, Create, Update, with its contract), plus List of a
// ring's leases and a conditional Delete. NewLeaseClient returns one for
// a Kubernetes API server; tests can use their own.
//
// Contract, beyond leaderelection.LeaseClient's: List returns the leases
// of namespace that match labelSelector, read from the server's current
// state (not a cache that may be older than a write this process saw
// succeed). Delete deletes a lease only if its resourceVersion is still
// resourceVersion, and returns an error matching kube.ErrConflict
// otherwise, and one matching kube.ErrNotFound when it is gone.
type LeaseClient interface {
	leaderelection.LeaseClient
	List(ctx context.Context, namespace, labelSelector string) ([]*leaderelection.Lease, error)
	Delete(ctx context.Context, namespace, name, resourceVersion string) error
}

// NewLeaseClient returns a LeaseClient for the Leases of cfg's server,
// through a kube.Client made with opts. It sends nothing until used.
func NewLeaseClient(cfg *kube.Config, opts kube.ClientOptions) (LeaseClient, error) {
	res := leaderelection.Leases
	c, err := kube.NewClient[*leaderelection.Lease](cfg, kube.Resource{Group: res.Group, Version: res.Version, Resource: res.Resource, Kind: res.Kind}, opts)
	if err != nil {
		return nil, err
	}
	return LeaseClientOf(c), nil
}

// LeaseClientOf returns the LeaseClient of a kube.Client of Leases.
func LeaseClientOf(c *kube.Client[*leaderelection.Lease]) LeaseClient {
	return leaseClient{LeaseClient: leaderelection.LeaseClientOf(c), c: c}
}

type leaseClient struct {
	leaderelection.LeaseClient
	c *kube.Client[*leaderelection.Lease]
}

func (c leaseClient) List(ctx context.Context, ns, selector string) ([]*leaderelection.Lease, error) {
	var out []*leaderelection.Lease
	for l, err := range c.c.All(ctx, ns, kube.ListOptions{LabelSelector: selector}) {
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func (c leaseClient) Delete(ctx context.Context, ns, name, rv string) error {
	_, err := c.c.Delete(ctx, ns, name, kube.DeleteOptions{ResourceVersion: rv})
	return err
}

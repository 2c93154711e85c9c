package ring_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
	"k8s.io/apimachinery/pkg/labels"
)

// store is an in-memory, linearizable Lease store, as the API server is.
type store struct {
	mu     sync.Mutex
	rv     int
	leases map[string]*leaderelection.Lease
}

func newStore() *store { return &store{leases: map[string]*leaderelection.Lease{}} }

var errDown = errors.New("fake: unreachable")

// client is one member's view of the store; down makes every call fail
// (a partition, or a process that no longer sends anything).
type client struct {
	s    *store
	down atomic.Bool
	// listDown fails only List (the member can renew but not see others).
	listDown atomic.Bool
	// onList, if set, is called with the count of List calls (from 1)
	// before each List reads the store.
	onList func(n int)
	lists  atomic.Int64
}

func (c *client) check() error {
	if c.down.Load() {
		return errDown
	}
	return nil
}

func (c *client) Get(_ context.Context, ns, name string) (*leaderelection.Lease, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	l, ok := c.s.leases[ns+"/"+name]
	if !ok {
		return nil, fmt.Errorf("get %s: %w", name, kube.ErrNotFound)
	}
	return l.DeepCopy(), nil
}

func (c *client) Create(_ context.Context, l *leaderelection.Lease) (*leaderelection.Lease, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	k := l.Namespace + "/" + l.Name
	if _, ok := c.s.leases[k]; ok {
		return nil, fmt.Errorf("create %s: %w", l.Name, kube.ErrAlreadyExists)
	}
	c.s.rv++
	n := l.DeepCopy()
	n.ResourceVersion = strconv.Itoa(c.s.rv)
	c.s.leases[k] = n
	return n.DeepCopy(), nil
}

func (c *client) Update(_ context.Context, l *leaderelection.Lease) (*leaderelection.Lease, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	k := l.Namespace + "/" + l.Name
	cur, ok := c.s.leases[k]
	if !ok {
		return nil, fmt.Errorf("update %s: %w", l.Name, kube.ErrNotFound)
	}
	if cur.ResourceVersion != l.ResourceVersion {
		return nil, fmt.Errorf("update %s: %w", l.Name, kube.ErrConflict)
	}
	c.s.rv++
	n := l.DeepCopy()
	n.ResourceVersion = strconv.Itoa(c.s.rv)
	c.s.leases[k] = n
	return n.DeepCopy(), nil
}

func (c *client) List(_ context.Context, ns, selector string) ([]*leaderelection.Lease, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.listDown.Load() {
		return nil, errDown
	}
	if n := c.lists.Add(1); c.onList != nil {
		c.onList(int(n))
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	var out []*leaderelection.Lease
	for _, l := range c.s.leases {
		if l.Namespace == ns && sel.Matches(labels.Set(l.Labels)) {
			out = append(out, l.DeepCopy())
		}
	}
	slices.SortFunc(out, func(a, b *leaderelection.Lease) int { return compare(a.Name, b.Name) })
	return out, nil
}

func (c *client) Delete(_ context.Context, ns, name, rv string) error {
	if err := c.check(); err != nil {
		return err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	k := ns + "/" + name
	cur, ok := c.s.leases[k]
	if !ok {
		return fmt.Errorf("delete %s: %w", name, kube.ErrNotFound)
	}
	if rv != "" && cur.ResourceVersion != rv {
		return fmt.Errorf("delete %s: %w", name, kube.ErrConflict)
	}
	delete(c.s.leases, k)
	return nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

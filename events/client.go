package events

import (
	"context"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	"k8s.io/apimachinery/pkg/types"
)

// Events describes events.k8s.io/v1 Events as *Event, for typed.NewClient
// (and typed.Informer).
var Events = typed.Resource[*Event]{Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true}

// EventClient writes Events: all a Recorder needs of the API server.
// NewEventClient and EventClientOf return one for a Kubernetes API
// server; tests can use their own.
//
// Contract: Create returns the event the server stored, or for a name that
// exists an error matching kube.ErrAlreadyExists; Patch applies a JSON
// merge patch to an event, or returns an error matching kube.ErrNotFound
// when it no longer exists (events expire, an hour after their last write
// by default). Calls honour ctx and come from one goroutine at a time.
type EventClient interface {
	Create(ctx context.Context, ev *Event) (*Event, error)
	Patch(ctx context.Context, namespace, name string, mergePatch []byte) (*Event, error)
}

// NewEventClient returns an EventClient for the Events of cfg's server,
// through a kube.Client made with opts (set opts.HTTPClient and
// opts.RateLimiter to share those of the rest of the program). It sends
// nothing until used.
func NewEventClient(cfg *kube.Config, opts kube.ClientOptions) (EventClient, error) {
	c, err := kube.NewClient[*Event](cfg, kube.Resource{Group: Events.Group, Version: Events.Version, Resource: Events.Resource, Kind: Events.Kind}, opts)
	if err != nil {
		return nil, err
	}
	return EventClientOf(c), nil
}

// EventClientOf returns the EventClient of a kube.Client of Events, such
// as typed.NewClient(f, Events) makes on a factory's connection pool and
// rate limiter.
func EventClientOf(c *kube.Client[*Event]) EventClient { return eventClient{c} }

type eventClient struct{ c *kube.Client[*Event] }

func (c eventClient) Create(ctx context.Context, ev *Event) (*Event, error) {
	return c.c.Create(ctx, ev, kube.WriteOptions{})
}

func (c eventClient) Patch(ctx context.Context, ns, name string, patch []byte) (*Event, error) {
	return c.c.Patch(ctx, ns, name, types.MergePatchType, patch, kube.PatchOptions{})
}

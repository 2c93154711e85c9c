package events

import (
	"context"
	"net/http"

	"github.com/informer-go/informer/internal/rest"
	"github.com/informer-go/informer/source/kube"
)

// EventClient writes Events: all a Recorder needs of the API server.
// NewEventClient returns one for a Kubernetes API server; tests can use
// their own.
//
// Contract: Create returns the event the server stored, or for a name that
// exists a *kube.APIError with code 409; Patch applies a JSON merge patch
// to an event, or returns an error matching kube.ErrNotFound when it no
// longer exists (events expire, an hour after their last write by
// default). Calls honour ctx and come from one goroutine at a time.
type EventClient interface {
	Create(ctx context.Context, ev *Event) (*Event, error)
	Patch(ctx context.Context, namespace, name string, mergePatch []byte) (*Event, error)
}

// ClientOptions configures NewEventClient.
type ClientOptions struct {
	// HTTPClient sends the requests; nil means cfg.HTTPClient().
	HTTPClient *http.Client
	// RateLimiter, when set, paces the requests (share the one of the
	// factory or the Sources of the same server).
	RateLimiter *kube.RateLimiter
}

// NewEventClient returns an EventClient for the events.k8s.io/v1 Events of
// cfg's server. It sends nothing until used.
func NewEventClient(cfg *kube.Config, opts ClientOptions) (EventClient, error) {
	c, err := rest.New(cfg, opts.HTTPClient, opts.RateLimiter)
	if err != nil {
		return nil, err
	}
	return &eventClient{c: c}, nil
}

type eventClient struct{ c *rest.Client }

func eventPath(ns, name string) string { return rest.Path("events.k8s.io", "v1", ns, "events", name) }

func (c *eventClient) Create(ctx context.Context, ev *Event) (*Event, error) {
	in := *ev
	in.APIVersion, in.Kind = "events.k8s.io/v1", "Event"
	var out Event
	if err := c.c.Do(ctx, "create", http.MethodPost, eventPath(ev.Namespace, ""), "", &in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (c *eventClient) Patch(ctx context.Context, ns, name string, patch []byte) (*Event, error) {
	var out Event
	if err := c.c.Do(ctx, "patch", http.MethodPatch, eventPath(ns, name), "application/merge-patch+json", patch, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

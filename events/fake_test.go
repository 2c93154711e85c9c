package events_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/informer-go/informer/events"
	"github.com/informer-go/informer/kube"
)

type mode int32

const (
	up   mode = iota // answered
	hang             // wait until the request's context ends
	fail             // 500 at once
)

// eventStore is an in-memory events API: creates, merge patches of the
// series, 404 for a missing event, 409 for a name that exists.
type eventStore struct {
	mu      sync.Mutex
	events  map[string]*events.Event // by namespace/name
	creates int
	patches int
	mode    atomic.Int32
	// take, when above 0, is how many of the next creates find their
	// name taken, as by another writer: an event of another controller is
	// stored under it and the create is answered 409 AlreadyExists.
	take atomic.Int32
}

func newStore() *eventStore { return &eventStore{events: map[string]*events.Event{}} }

func (s *eventStore) set(m mode) { s.mode.Store(int32(m)) }

func (s *eventStore) enter(ctx context.Context, op string) error {
	switch mode(s.mode.Load()) {
	case hang:
		<-ctx.Done()
		return ctx.Err()
	case fail:
		return &kube.APIError{Op: op, Code: http.StatusInternalServerError}
	}
	return nil
}

func (s *eventStore) Create(ctx context.Context, ev *events.Event) (*events.Event, error) {
	if err := s.enter(ctx, "create"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := ev.Namespace + "/" + ev.Name
	if s.take.Load() > 0 {
		s.take.Add(-1)
		s.events[k] = &events.Event{ObjectMeta: ev.ObjectMeta, ReportingController: "example.com/other"}
	}
	if _, ok := s.events[k]; ok {
		return nil, &kube.APIError{Op: "create", Code: http.StatusConflict, Reason: "AlreadyExists"}
	}
	c := *ev
	if ev.Series != nil {
		ser := *ev.Series
		c.Series = &ser
	}
	s.events[k] = &c
	s.creates++
	out := c
	return &out, nil
}

func (s *eventStore) Patch(ctx context.Context, ns, name string, patch []byte) (*events.Event, error) {
	if err := s.enter(ctx, "patch"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.events[ns+"/"+name]
	if !ok {
		return nil, &kube.APIError{Op: "patch", Code: http.StatusNotFound}
	}
	var p struct{ Series *events.EventSeries }
	if err := json.Unmarshal(patch, &p); err != nil || p.Series == nil {
		return nil, &kube.APIError{Op: "patch", Code: http.StatusBadRequest}
	}
	ev.Series = p.Series
	s.patches++
	out := *ev
	return &out, nil
}

// all returns copies of the stored events.
func (s *eventStore) all() []events.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []events.Event
	for _, e := range s.events {
		out = append(out, *e)
	}
	return out
}

func (s *eventStore) counts() (creates, patches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creates, s.patches
}

// expire deletes every stored event, as the server's TTL does.
func (s *eventStore) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.events)
}

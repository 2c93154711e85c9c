package events_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer/events"
)

// eventAPI serves events.k8s.io/v1 Events over HTTP as kube-apiserver does
// for what a Recorder sends: POST to create (409 AlreadyExists for a name
// taken), PATCH with a JSON merge patch (404 for a missing event). delay
// slows every answer, status makes every answer that error.
type eventAPI struct {
	mu     sync.Mutex
	events map[string]*events.Event // by namespace/name
	delay  atomic.Int64             // nanoseconds
	status atomic.Int32
}

func newEventAPI() (*httptest.Server, *eventAPI) {
	api := &eventAPI{events: map[string]*events.Event{}}
	return httptest.NewServer(api), api
}

func (a *eventAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d := time.Duration(a.delay.Load()); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if code := int(a.status.Load()); code != 0 {
		writeStatus(w, code, http.StatusText(code))
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/apis/events.k8s.io/v1/namespaces/"), "/")
	if len(parts) < 2 || parts[1] != "events" {
		writeStatus(w, http.StatusNotFound, "NotFound")
		return
	}
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && len(parts) == 2:
		var ev events.Event
		if err := json.Unmarshal(body, &ev); err != nil || ev.Kind != "Event" || ev.APIVersion != "events.k8s.io/v1" {
			writeStatus(w, http.StatusBadRequest, "BadRequest")
			return
		}
		k := parts[0] + "/" + ev.Name
		if _, ok := a.events[k]; ok {
			writeStatus(w, http.StatusConflict, "AlreadyExists")
			return
		}
		a.events[k] = &ev
		reply(w, http.StatusCreated, &ev)
	case r.Method == http.MethodPatch && len(parts) == 3:
		ev, ok := a.events[parts[0]+"/"+parts[2]]
		if !ok {
			writeStatus(w, http.StatusNotFound, "NotFound")
			return
		}
		if r.Header.Get("Content-Type") != "application/merge-patch+json" || json.Unmarshal(body, ev) != nil {
			writeStatus(w, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
			return
		}
		reply(w, http.StatusOK, ev)
	default:
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed")
	}
}

func (a *eventAPI) all() []events.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []events.Event
	for _, e := range a.events {
		c := *e
		if e.Series != nil {
			ser := *e.Series // a patch decodes into the stored one
			c.Series = &ser
		}
		out = append(out, c)
	}
	return out
}

func writeStatus(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":%d,"reason":%q}`, code, reason)
}

func reply(w http.ResponseWriter, code int, ev *events.Event) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(ev)
}

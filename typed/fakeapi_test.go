package typed_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Gadget is a custom resource of the factory's unit tests, served by
// fakeAPI.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Color string `json:"color"`
	} `json:"spec"`
}

var gadgets = typed.Resource[*Gadget]{Group: "example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true}

// GadgetView is another Go type for the same resource.
type GadgetView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
}

var gadgetViews = typed.Resource[*GadgetView]{Group: "example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true}

// fakeAPI is just enough of a Kubernetes API server for the factory: it
// lists the gadgets of a namespace (or all), filtered by a label
// selector, each with managedFields; it refuses streaming lists as a
// server without WatchList does; a watch stays open, silent, until the
// client goes; a namespace in forbidden answers 403. It counts the lists
// and the open watches of each collection (path and selectors).
type fakeAPI struct {
	mu        sync.Mutex
	gadgets   []gadgetState
	forbidden map[string]bool
	lists     map[string]int
	watches   map[string]int // open now
}

type gadgetState struct{ ns, name, color, app string }

func newFakeAPI(gs ...gadgetState) *fakeAPI {
	return &fakeAPI{gadgets: gs, forbidden: map[string]bool{}, lists: map[string]int{}, watches: map[string]int{}}
}

// collection names what a request lists or watches: its path and
// selectors.
func collection(r *http.Request) string {
	q := r.URL.Query()
	s := r.URL.Path
	if l := q.Get("labelSelector"); l != "" {
		s += " labels " + l
	}
	if f := q.Get("fieldSelector"); f != "" {
		s += " fields " + f
	}
	return s
}

// path returns the collection path of gadgets in ns ("" for all).
func gadgetPath(ns string) string {
	if ns == "" {
		return "/apis/example.com/v1/gadgets"
	}
	return "/apis/example.com/v1/namespaces/" + ns + "/gadgets"
}

func (a *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ns, ok := strings.CutPrefix(r.URL.Path, "/apis/example.com/v1/")
	switch {
	case r.URL.Path == "/apis/example.com/v1/gadgets":
		ns = ""
	case ok && strings.HasPrefix(ns, "namespaces/") && strings.HasSuffix(ns, "/gadgets"):
		ns = strings.TrimSuffix(strings.TrimPrefix(ns, "namespaces/"), "/gadgets")
	default:
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource", "")
		return
	}
	q := r.URL.Query()
	a.mu.Lock()
	forbidden := a.forbidden[ns]
	a.mu.Unlock()
	if forbidden {
		status(w, http.StatusForbidden, "Forbidden", fmt.Sprintf("gadgets is forbidden in namespace %q", ns), "")
		return
	}
	if q.Get("watch") == "" {
		a.list(w, r, ns)
		return
	}
	if q.Get("sendInitialEvents") == "true" {
		status(w, http.StatusUnprocessableEntity, "Invalid", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled", "sendInitialEvents")
		return
	}
	c := collection(r)
	a.mu.Lock()
	a.watches[c]++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.watches[c]--
		a.mu.Unlock()
	}()
	<-r.Context().Done() // a quiet watch, until the client goes
}

func (a *fakeAPI) list(w http.ResponseWriter, r *http.Request, ns string) {
	sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		status(w, http.StatusBadRequest, "BadRequest", "bad selector", "")
		return
	}
	a.mu.Lock()
	a.lists[collection(r)]++
	var items []string
	for _, g := range a.gadgets {
		if (ns != "" && g.ns != ns) || !sel.Matches(labels.Set{"app": g.app}) {
			continue
		}
		items = append(items, fmt.Sprintf(`{"metadata":{"name":%q,"namespace":%q,"resourceVersion":"7","labels":{"app":%q},`+
			`"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:color":{}}}}]},`+
			`"spec":{"color":%q}}`, g.name, g.ns, g.app, g.color))
	}
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"kind":"GadgetList","apiVersion":"example.com/v1","metadata":{"resourceVersion":"7"},"items":[%s]}`, strings.Join(items, ","))
}

// status answers a Kubernetes Status; field, if set, is the cause's.
func status(w http.ResponseWriter, code int, reason, message, field string) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: metav1.StatusReason(reason), Message: message,
	}
	if field != "" {
		st.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseType("FieldValueForbidden"), Field: field, Message: message}}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(st)
}

// listsOf returns how many lists of collection c were served.
func (a *fakeAPI) listsOf(c string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lists[c]
}

// watchesOn returns how many watches of collection c are open.
func (a *fakeAPI) watchesOn(c string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.watches[c]
}

// openWatches returns the number of open watches of every collection.
func (a *fakeAPI) openWatches() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := map[string]int{}
	for c, n := range a.watches {
		if n != 0 {
			m[c] = n
		}
	}
	return m
}

// newFakeFactory returns a Factory whose requests a serves in memory,
// without a network, so that it runs inside a testing/synctest bubble:
// the handler runs on the caller's goroutine, and a watch's request
// returns when its context ends.
func newFakeFactory(t *testing.T, a *fakeAPI, opts typed.FactoryOptions) *typed.Factory {
	t.Helper()
	opts.HTTPClient = &http.Client{Transport: handlerTransport{a}}
	f, err := typed.NewFactory(&kube.Config{Host: "https://fake-apiserver.test"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// handlerTransport serves a request with h, in memory.
type handlerTransport struct{ h http.Handler }

func (ht handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	ht.h.ServeHTTP(rec, r)
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	resp := rec.Result()
	resp.Body = io.NopCloser(resp.Body)
	return resp, nil
}

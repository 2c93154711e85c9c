// The inventory service this command keeps a cache of: an inventory of
// items served as a JSON list (GET /items, with a resourceVersion and
// cursor pages) and a stream of changes (GET /events, Server-Sent Events
// or NDJSON) that resumes from a version and answers 410 Gone for
// versions older than its history. It drops streams after a number of
// events, to show recovery. It is part of the example so that the example
// builds in any module; a real service is written in any language.

package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Item is one thing in the inventory.
type Item struct {
	metav1.ObjectMeta `json:"metadata"`
	Count             int    `json:"count"`
	Location          string `json:"location,omitempty"`
}

// change is one entry of the history.
type change struct {
	rv   uint64
	typ  string // added, modified, deleted
	item Item
	prev Item // the state before, for modified and deleted
}

// Server is the service. Its zero value is not usable: call NewServer.
type Server struct {
	mu        sync.Mutex
	items     map[string]Item
	rv        uint64
	log       []change
	compacted uint64        // versions at or below are gone from the history
	changed   chan struct{} // closed and replaced at every write

	// DropAfter, when set, ends each event stream after that many events
	// (read under the lock at each stream's start).
	DropAfter func() int
	// PageSize, when positive, pages lists by that many items.
	PageSize int
}

// NewServer returns an empty inventory.
func NewServer() *Server {
	return &Server{items: map[string]Item{}, changed: make(chan struct{})}
}

// Put creates or updates an item, and returns its new version.
func (s *Server) Put(it Item) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := it.Namespace + "/" + it.Name
	typ := "modified"
	prev, ok := s.items[key]
	if !ok {
		typ = "added"
	}
	s.rv++
	it.ResourceVersion = strconv.FormatUint(s.rv, 10)
	s.items[key] = it
	s.write(change{s.rv, typ, it, prev})
	return it.ResourceVersion
}

// Delete removes an item, if it is there.
func (s *Server) Delete(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := namespace + "/" + name
	it, ok := s.items[key]
	if !ok {
		return
	}
	delete(s.items, key)
	s.rv++
	prev := it
	it.ResourceVersion = strconv.FormatUint(s.rv, 10)
	s.write(change{s.rv, "deleted", it, prev})
}

func (s *Server) write(c change) {
	s.log = append(s.log, c)
	close(s.changed)
	s.changed = make(chan struct{})
}

// Compact forgets the history: streams from older versions get 410.
func (s *Server) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compacted = s.rv
	s.log = nil
}

// State returns every item's key and version.
func (s *Server) State() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]string, len(s.items))
	for k, it := range s.items {
		m[k] = it.ResourceVersion
	}
	return m
}

// Version returns the inventory's current version.
func (s *Server) Version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.FormatUint(s.rv, 10)
}

// ServeHTTP serves GET /items and GET /events.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/items":
		s.list(w, r)
	case "/events":
		s.events(w, r)
	default:
		http.NotFound(w, r)
	}
}

type listBody struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue,omitempty"`
	} `json:"metadata"`
	Items []Item `json:"items"`
}

// list answers the items sorted by key, from the continue cursor on.
// Every page shows the state at the first page's version (rebuilt from
// the history), as Kubernetes does; a cursor older than the history
// answers 410 Gone.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var body listBody
	items := s.items
	version := s.rv
	after, at, _ := strings.Cut(r.URL.Query().Get("continue"), "@")
	if at != "" {
		v, err := strconv.ParseUint(at, 10, 64)
		if err != nil || v < s.compacted {
			s.mu.Unlock()
			http.Error(w, "continue token too old", http.StatusGone)
			return
		}
		version, items = v, s.stateAt(v)
	}
	body.Metadata.ResourceVersion = strconv.FormatUint(version, 10)
	keys := make([]string, 0, len(items))
	for k := range items {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if after != "" && k <= after {
			continue
		}
		if s.PageSize > 0 && len(body.Items) == s.PageSize {
			body.Metadata.Continue = body.Items[len(body.Items)-1].Namespace + "/" + body.Items[len(body.Items)-1].Name + "@" + body.Metadata.ResourceVersion
			break
		}
		body.Items = append(body.Items, items[k])
	}
	s.mu.Unlock()
	if body.Items == nil {
		body.Items = []Item{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// stateAt rebuilds the items as they were at version v (not older than
// the history), undoing the later changes.
func (s *Server) stateAt(v uint64) map[string]Item {
	items := make(map[string]Item, len(s.items))
	for k, it := range s.items {
		items[k] = it
	}
	for i := len(s.log) - 1; i >= 0 && s.log[i].rv > v; i-- {
		c := s.log[i]
		key := c.item.Namespace + "/" + c.item.Name
		if c.typ == "added" {
			delete(items, key)
		} else {
			items[key] = c.prev
		}
	}
	return items
}

// events streams the changes after the version asked for (query
// resourceVersion, or the Last-Event-ID header): SSE when the client
// accepts text/event-stream first, NDJSON otherwise.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	from := r.URL.Query().Get("resourceVersion")
	if from == "" {
		from = r.Header.Get("Last-Event-ID")
	}
	since, err := strconv.ParseUint(from, 10, 64)
	if from != "" && err != nil {
		http.Error(w, "bad resourceVersion", http.StatusBadRequest)
		return
	}
	sse := strings.HasPrefix(r.Header.Get("Accept"), "text/event-stream") || r.URL.Query().Get("format") == "sse"
	s.mu.Lock()
	if from == "" {
		since = s.rv
	}
	if since < s.compacted {
		s.mu.Unlock()
		http.Error(w, "too old", http.StatusGone)
		return
	}
	budget := -1
	if s.DropAfter != nil {
		budget = s.DropAfter()
	}
	s.mu.Unlock()
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for {
		s.mu.Lock()
		if since < s.compacted {
			s.mu.Unlock()
			return // its history is gone: the client must come back and be told
		}
		// The history is in version order: start after since.
		i, _ := slices.BinarySearchFunc(s.log, since+1, func(c change, v uint64) int {
			return cmp.Compare(c.rv, v)
		})
		batch := slices.Clone(s.log[i:])
		wait := s.changed
		s.mu.Unlock()
		for _, c := range batch {
			if budget == 0 {
				return // a dropped stream
			}
			budget--
			data, _ := json.Marshal(c.item)
			if sse {
				fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", c.rv, c.typ, data)
			} else {
				fmt.Fprintf(w, `{"type":%q,"object":%s}`+"\n", c.typ, data)
			}
			since = c.rv
		}
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-wait:
		}
	}
}

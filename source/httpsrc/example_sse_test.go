package httpsrc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Product is what the shop service serves and the cache holds: a struct
// with Kubernetes-style metadata, which makes it an informer.Object (see
// Example_plainType for a type without).
type Product struct {
	metav1.ObjectMeta `json:"metadata"`
	Price             int `json:"price"`
}

// shop is a small service of the kind httpsrc keeps caches of, written in
// any language: GET /products lists the products with the shop's version,
// GET /events streams the changes after a version (the resourceVersion
// parameter, or Last-Event-ID) as Server-Sent Events, or as NDJSON to a
// client that does not ask for SSE.
type shop struct {
	mu      sync.Mutex
	version int
	history []Product     // every write, in order; Product.ResourceVersion is its version
	changed chan struct{} // closed at every write
}

func newShop() *shop { return &shop{changed: make(chan struct{})} }

// put writes a product and returns the write's version.
func (s *shop) put(name string, price int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	p := Product{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: strconv.Itoa(s.version)}, Price: price}
	s.history = append(s.history, p)
	close(s.changed)
	s.changed = make(chan struct{})
	return p.ResourceVersion
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/products":
		s.mu.Lock()
		latest := map[string]Product{}
		for _, p := range s.history {
			latest[p.Name] = p
		}
		items := make([]Product, 0, len(latest))
		for _, p := range latest {
			items = append(items, p)
		}
		body := map[string]any{"metadata": map[string]string{"resourceVersion": strconv.Itoa(s.version)}, "items": items}
		s.mu.Unlock()
		json.NewEncoder(w).Encode(body)
	case "/events":
		from := r.URL.Query().Get("resourceVersion")
		if from == "" {
			from = r.Header.Get("Last-Event-ID")
		}
		next, err := strconv.Atoi(from)
		if err != nil {
			http.Error(w, "resourceVersion must be an integer", http.StatusBadRequest)
			return
		}
		sse := strings.HasPrefix(r.Header.Get("Accept"), "text/event-stream")
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/x-ndjson")
		}
		for {
			s.mu.Lock()
			changes, changed := s.history[min(next, len(s.history)):], s.changed
			next = len(s.history)
			s.mu.Unlock()
			for _, p := range changes {
				data, _ := json.Marshal(p)
				if sse {
					fmt.Fprintf(w, "id: %s\nevent: updated\ndata: %s\n\n", p.ResourceVersion, data)
				} else {
					fmt.Fprintf(w, "{\"type\":\"updated\",\"object\":%s}\n", data)
				}
			}
			w.(http.Flusher).Flush()
			select {
			case <-changed:
			case <-r.Context().Done():
				return
			}
		}
	default:
		http.NotFound(w, r)
	}
}

// Server-Sent Events: the event name is the type, data the object, id
// the version. The shop's versions are numbers (NumericVersions), so a
// program can wait until the cache shows its own write.
func Example_sse() {
	shop := newShop()
	shop.put("chair", 40)
	srv := httptest.NewServer(shop)
	defer srv.Close()

	src, err := httpsrc.New(httpsrc.Options[*Product]{
		ListURL:         srv.URL + "/products",
		WatchURL:        srv.URL + "/events",
		Format:          httpsrc.FormatSSE,
		NumericVersions: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inf := informer.New(src, informer.Options[*Product]{})
	go inf.Run(ctx)
	if err := inf.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}

	version := shop.put("lamp", 25) // a write, seen through the stream
	if err := inf.WaitForResourceVersion(ctx, version); err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"chair", "lamp"} {
		p, _ := inf.Lister().Get(name)
		fmt.Println(name, p.Price)
	}
	// Output:
	// chair 40
	// lamp 25
}

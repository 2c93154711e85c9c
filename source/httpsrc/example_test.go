package httpsrc_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/inventory"
	"github.com/informer-go/informer/source/httpsrc"
)

// run starts an informer over src, waits until it has the inventory's
// state, and prints the items.
func run(src informer.Source[*Item], inv *inventory.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inf := informer.New(src, informer.Options[*Item]{})
	go inf.Run(ctx)
	inf.WaitForSync(ctx)
	inv.Put(Item{ObjectMeta: inventoryMeta("lamp"), Count: 3}) // a change, seen through the stream
	for len(inf.Lister().List(nil)) < 2 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	for _, key := range []string{"shop/chair", "shop/lamp"} {
		it, _ := inf.Lister().Get(key)
		fmt.Println(key, it.Count)
	}
}

func newInventory() (*inventory.Server, *httptest.Server) {
	inv := inventory.New()
	inv.Put(Item{ObjectMeta: inventoryMeta("chair"), Count: 4})
	return inv, httptest.NewServer(inv)
}

// Server-Sent Events: the event name is the type, data the object, id the
// version.
func Example_sse() {
	inv, srv := newInventory()
	defer srv.Close()
	src, _ := httpsrc.New(httpsrc.Options[*Item]{
		ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", Format: httpsrc.FormatSSE,
	})
	run(src, inv)
	// Output:
	// shop/chair 4
	// shop/lamp 3
}

// NDJSON: one {"type":...,"object":...} per line.
func Example_ndjson() {
	inv, srv := newInventory()
	defer srv.Close()
	src, _ := httpsrc.New(httpsrc.Options[*Item]{
		ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", Format: httpsrc.FormatNDJSON,
	})
	run(src, inv)
	// Output:
	// shop/chair 4
	// shop/lamp 3
}

// The Kubernetes watch shape, from a service that copies it.
func Example_kubernetesShape() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/items" {
			fmt.Fprint(w, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"namespace":"shop","name":"chair","resourceVersion":"1"},"count":4}]}`)
			return
		}
		fmt.Fprint(w, `{"type":"ADDED","object":{"metadata":{"namespace":"shop","name":"lamp","resourceVersion":"2"},"count":3}}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	src, _ := httpsrc.New(httpsrc.Options[*Item]{
		ListURL: srv.URL + "/items", WatchURL: srv.URL + "/watch", Format: httpsrc.FormatKubernetes,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inf := informer.New(src, informer.Options[*Item]{})
	go inf.Run(ctx)
	for len(inf.Lister().List(nil)) < 2 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Println(len(inf.Lister().List(nil)), "items")
	// Output: 2 items
}

// Poll mode: only a list endpoint, fetched again every PollInterval and
// compared with the previous list.
func Example_poll() {
	inv, srv := newInventory()
	defer srv.Close()
	src, _ := httpsrc.New(httpsrc.Options[*Item]{
		ListURL: srv.URL + "/items", PollInterval: 20 * time.Millisecond,
	})
	run(src, inv)
	// Output:
	// shop/chair 4
	// shop/lamp 3
}

// The wire formats the package doc shows, served as written: a list, then
// one change as SSE or as NDJSON (chosen by the Content-Type).
func Example_wireFormats() {
	const list = `{"metadata":{"resourceVersion":"42"},"items":[{"metadata":{"name":"a","resourceVersion":"41"},"count":3}]}`
	streams := []struct{ contentType, body string }{
		{"text/event-stream", "event: modified\nid: 43\ndata: {\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"43\"},\"count\":4}\n\n"},
		{"application/x-ndjson", `{"type":"modified","object":{"metadata":{"name":"a","resourceVersion":"43"},"count":4}}` + "\n"},
	}
	for _, st := range streams {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/items" {
				fmt.Fprint(w, list)
				return
			}
			w.Header().Set("Content-Type", st.contentType)
			if r.URL.Query().Get("resourceVersion") == "42" {
				fmt.Fprint(w, st.body)
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		inf := informer.New(src, informer.Options[*Item]{})
		go inf.Run(ctx)
		inf.WaitForResourceVersion(ctx, "43")
		it, _ := inf.Lister().Get("a")
		fmt.Println(st.contentType, it.Count)
		cancel()
		srv.Close()
	}
	// Output:
	// text/event-stream 4
	// application/x-ndjson 4
}

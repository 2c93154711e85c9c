package httpsrc_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// run starts an informer over src, a Source of the shop of Example_sse,
// writes a product, waits until the cache shows it, and prints the
// products.
func run(src *httpsrc.Source[*Product], shop *shop) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inf := informer.New(src, informer.Options[*Product]{})
	go inf.Run(ctx)
	inf.WaitForSync(ctx)
	inf.WaitForResourceVersion(ctx, shop.put("lamp", 25))
	for _, name := range []string{"chair", "lamp"} {
		p, _ := inf.Lister().Get(name)
		fmt.Println(name, p.Price)
	}
}

// NDJSON: one {"type":...,"object":...} per line (the shop of
// Example_sse).
func Example_ndjson() {
	shop := newShop()
	shop.put("chair", 40)
	srv := httptest.NewServer(shop)
	defer srv.Close()
	src, _ := httpsrc.New(httpsrc.Options[*Product]{
		ListURL: srv.URL + "/products", WatchURL: srv.URL + "/events", Format: httpsrc.FormatNDJSON, NumericVersions: true,
	})
	run(src, shop)
	// Output:
	// chair 40
	// lamp 25
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
// compared with the previous list (the shop of Example_sse).
func Example_poll() {
	shop := newShop()
	shop.put("chair", 40)
	srv := httptest.NewServer(shop)
	defer srv.Close()
	src, _ := httpsrc.New(httpsrc.Options[*Product]{
		ListURL: srv.URL + "/products", PollInterval: 20 * time.Millisecond, NumericVersions: true,
	})
	run(src, shop)
	// Output:
	// chair 40
	// lamp 25
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

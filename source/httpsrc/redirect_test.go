package httpsrc_test

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Options.Header's credentials never leave the host they were sent to:
// when a list, a stream or a poll is redirected to another host (or from
// https to http), the headers Header set are removed, and so are
// Authorization and Cookie; a redirect on the same host keeps them.
// (net/http removes only Authorization and Cookie, and keeps them on a
// subdomain: an X-Api-Key went to the other host.)
func TestRedirectKeepsCredentialsHome(t *testing.T) {
	var mu sync.Mutex
	leaked := map[string]string{} // path → the key the other host got
	var lists atomic.Int64
	other := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if k := r.Header.Get("X-Api-Key") + r.Header.Get("Authorization"); k != "" {
			leaked[r.URL.Path] = k
		}
		mu.Unlock()
		switch r.URL.Path {
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: 2\nevent: added\ndata: {\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"2\"}}\n\n")
		default:
			n := lists.Add(1) // a new state every time
			fmt.Fprintf(w, `{"metadata":{"resourceVersion":"%d"},"items":[{"metadata":{"name":"a%d"}}]}`, n, n)
		}
	})
	var homeKeys []string
	home := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		homeKeys = append(homeKeys, r.URL.Path+"="+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		if r.URL.Path == "/moved" { // on the same host
			http.Redirect(w, r, "/items", http.StatusFound)
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	})
	header := func(r *http.Request) error {
		r.Header.Set("X-Api-Key", "secret")
		r.Header.Set("Authorization", "Bearer secret")
		return nil
	}
	client := &http.Client{}
	for _, tc := range []struct {
		name string
		opts httpsrc.Options[*Item]
		run  func(t *testing.T, src *httpsrc.Source[*Item])
	}{
		{"list", httpsrc.Options[*Item]{ListURL: home.URL + "/items"}, func(t *testing.T, src *httpsrc.Source[*Item]) {
			if _, err := src.List(t.Context(), informer.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"stream", httpsrc.Options[*Item]{ListURL: home.URL + "/items", WatchURL: home.URL + "/events"}, func(t *testing.T, src *httpsrc.Source[*Item]) {
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if ev, err := w.Next(); err != nil || ev.Object.Name != "b" {
				t.Fatalf("Next: %v, %v", ev, err)
			}
		}},
		{"poll", httpsrc.Options[*Item]{ListURL: home.URL + "/items", PollInterval: time.Millisecond}, func(t *testing.T, src *httpsrc.Source[*Item]) {
			p, err := src.List(t.Context(), informer.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: p.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if ev, err := w.Next(); err != nil || ev.Type != informer.EventAdded {
				t.Fatalf("Next: %v, %v: want the addition a poll found", ev, err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Header, tc.opts.Client = header, client
			src, err := httpsrc.New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			tc.run(t, src)
			mu.Lock()
			defer mu.Unlock()
			for path, k := range leaked {
				t.Errorf("the other host got credentials %q on %s", k, path)
			}
			clear(leaked)
		})
	}
	if client.CheckRedirect != nil {
		t.Error("New changed the caller's Client")
	}

	// On the same host, the headers stay.
	src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: home.URL + "/moved", Header: header, Client: &http.Client{
		CheckRedirect: func(req *http.Request, via []*http.Request) error { return http.ErrUseLastResponse },
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The caller's CheckRedirect still applies: it stops at the 302.
	if _, err := src.List(t.Context(), informer.ListOptions{}); err == nil {
		t.Fatal("List followed a redirect the Client's CheckRedirect refused")
	}
	mu.Lock()
	homeKeys = nil
	mu.Unlock()
	src, err = httpsrc.New(httpsrc.Options[*Item]{ListURL: home.URL + "/moved", Header: header})
	if err != nil {
		t.Fatal(err)
	}
	src.List(t.Context(), informer.ListOptions{}) // /moved → /items → the other host
	mu.Lock()
	defer mu.Unlock()
	if len(homeKeys) < 2 || homeKeys[0] != "/moved=secret" || homeKeys[1] != "/items=secret" {
		t.Errorf("home got %v, want the key on /moved and on /items (a redirect on the same host)", homeKeys)
	}
	if len(leaked) > 0 {
		t.Errorf("the other host got credentials: %v", leaked)
	}
}

package httpsrc_test

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// TestWatchSendsTheVersion: a watch sends the version it starts from as
// Options.VersionParam (and no other parameter) and in Last-Event-ID.
func TestWatchSendsTheVersion(t *testing.T) {
	for _, param := range []string{"", "since"} {
		var query, lastEventID string
		h := func(w http.ResponseWriter, r *http.Request) {
			query, lastEventID = r.URL.RawQuery, r.Header.Get("Last-Event-ID")
			w.Header().Set("Content-Type", "application/x-ndjson")
		}
		src, err := httpsrc.New(httpsrc.Options[*Item]{
			ListURL: "http://inventory.test/items", WatchURL: "http://inventory.test/events",
			VersionParam: param, Client: inMemoryClient(h),
		})
		if err != nil {
			t.Fatal(err)
		}
		w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "42"})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		want := "since=42"
		if param == "" {
			want = httpsrc.DefaultVersionParam + "=42"
		}
		if query != want || lastEventID != "42" {
			t.Errorf("VersionParam %q: query %q and Last-Event-ID %q, want %q and 42", param, query, lastEventID, want)
		}
	}
}

// TestKubernetesBookmarkWithOwnTypes: a stream in the Kubernetes watch
// shape has its BOOKMARK events (the version in the object's metadata)
// understood whatever Options.Types maps.
func TestKubernetesBookmarkWithOwnTypes(t *testing.T) {
	h := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"created","object":{"metadata":{"name":"a","namespace":"shop","resourceVersion":"16"}}}`+"\n"+
			`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"17"}}}`+"\n")
	}
	src, err := httpsrc.New(httpsrc.Options[*Item]{
		ListURL: "http://inventory.test/items", WatchURL: "http://inventory.test/events",
		Format: httpsrc.FormatKubernetes, Types: map[string]informer.EventType{"created": informer.EventAdded},
		Client: inMemoryClient(h),
	})
	if err != nil {
		t.Fatal(err)
	}
	w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "15"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, want := range []struct {
		typ informer.EventType
		rv  string
	}{{informer.EventAdded, ""}, {informer.EventBookmark, "17"}} {
		ev, err := w.Next()
		if err != nil || ev.Type != want.typ || (want.rv != "" && ev.ResourceVersion != want.rv) {
			t.Fatalf("event %v at %q, %v; want %v at %q", ev.Type, ev.ResourceVersion, err, want.typ, want.rv)
		}
	}
}

// TestPollUnconditional304IsAnError: a 304 to a poll that asked nothing
// conditionally (the list had no ETag: a confused proxy or cache) ends the
// watch with a *StatusError; it is not taken as "nothing changed".
func TestPollUnconditional304IsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		h := func(w http.ResponseWriter, r *http.Request) {
			calls++
			if calls > 1 {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			io.WriteString(w, `{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a","namespace":"shop","resourceVersion":"1"}}]}`)
		}
		src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: "http://inventory.test/items", PollInterval: pollEvery, Client: inMemoryClient(h)})
		if err != nil {
			t.Fatal(err)
		}
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: page.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		pr := readPolls(w)
		afterPoll()
		pr.mu.Lock()
		err = pr.err
		pr.mu.Unlock()
		var se *httpsrc.StatusError
		if !errors.As(err, &se) || se.Code != http.StatusNotModified {
			t.Errorf("a poll answered 304 without asking: %v, want a *StatusError 304", err)
		}
	})
}

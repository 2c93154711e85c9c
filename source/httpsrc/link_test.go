package httpsrc_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// A list paged by Link headers whose URLs hold commas (RFC 8288 allows
// them: ?fields=id,version) is read to its last page: every object is in
// the cache. (The header was split on commas: the list ended after page
// 1, and a relist deleted every object of the later pages.)
func TestLinkPagingWithCommas(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fields") != "id,version" {
			http.Error(w, "fields lost", http.StatusBadRequest)
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page == 0 {
			page = 1
		}
		if page < 3 {
			w.Header().Set("Link", fmt.Sprintf(`</items?fields=id,version&page=%d>; rel="next", </items?fields=id,version&page=3>; rel="last"`, page+1))
		}
		fmt.Fprintf(w, `[{"metadata":{"name":"p%d-a"}},{"metadata":{"name":"p%d-b"}}]`, page, page)
	})
	src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items?fields=id,version"})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New(src, informer.Options[*Item]{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	go inf.Run(ctx)
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		t.Fatal(err, inf.LastError())
	}
	if n := len(inf.Lister().List(nil)); n != 6 {
		t.Fatalf("%d objects in the cache, want the 6 of the 3 pages", n)
	}
}

// A Link header that names a next page but does not parse fails the
// list (ErrBadPaging), rather than end it after the page it came with.
func TestLinkMalformedFailsTheList(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</items?page=2; rel="next"`) // no '>'
		fmt.Fprint(w, `[{"metadata":{"name":"a"}}]`)
	})
	src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.List(t.Context(), informer.ListOptions{})
	if !errors.Is(err, httpsrc.ErrBadPaging) {
		t.Fatalf("List: %v, want ErrBadPaging", err)
	}
}

// An informer over a list whose paging cannot be followed does not sync a
// truncated cache: LastError says ErrBadPaging at the first list, and
// Health is not synced. (Before, the list ended after its first page and
// the informer reported a synced, healthy cache of part of the
// collection.)
func TestLinkMalformedIsVisible(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</items?page=2; rel="next"`) // no '>'
		fmt.Fprint(w, `[{"metadata":{"name":"a"}}]`)
	})
	src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	go inf.Run(ctx)
	for !errors.Is(inf.LastError(), httpsrc.ErrBadPaging) {
		if ctx.Err() != nil {
			t.Fatalf("LastError %v after 10 s, want ErrBadPaging", inf.LastError())
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("ErrBadPaging in LastError %s after Run", time.Since(start).Round(time.Millisecond))
	if h := inf.Health(); h.Synced || h.Healthy() {
		t.Errorf("Health %s: want it not synced", h)
	}
}

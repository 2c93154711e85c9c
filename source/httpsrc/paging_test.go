package httpsrc_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Pages by a next URL in the body (absolute, relative, or naming another
// host: requested on the list's) and by page number. (A next URL was sent
// back as a token, ?continue=https://..., which the service refused with
// 400 forever; page numbers could not be configured.)
func TestListPaging(t *testing.T) {
	all := []string{"a", "b", "c", "d", "e"}
	// page returns the items of page n (from 1), two a page, and
	// whether there are more.
	page := func(n int) ([]string, bool) {
		lo := min(len(all), 2*(n-1))
		hi := min(len(all), lo+2)
		return all[lo:hi], hi < len(all)
	}
	itemsJSON := func(names []string) string {
		var b []string
		for _, n := range names {
			b = append(b, fmt.Sprintf(`{"metadata":{"name":%q}}`, n))
		}
		return "[" + strings.Join(b, ",") + "]"
	}
	tests := []struct {
		name string
		opts httpsrc.Options[*Item]
		// next is the body's next member for page n+1 of base, the
		// server's URL ("" when there is none).
		next func(base string, n int) string
		// notFound answers 404 past the last page instead of an empty one.
		notFound bool
	}{
		{
			name: "absolute next URL (Django REST)",
			opts: httpsrc.Options[*Item]{Items: "/results", Next: "/next"},
			next: func(base string, n int) string { return base + "/items?cursor=c" + strconv.Itoa(n) },
		},
		{
			name: "relative next URL",
			opts: httpsrc.Options[*Item]{Items: "/results", Next: "/next", Paging: httpsrc.PagingURL},
			next: func(base string, n int) string { return "?cursor=c" + strconv.Itoa(n) },
		},
		{
			name: "a next URL on the service's own address behind a proxy",
			opts: httpsrc.Options[*Item]{Items: "/results", Next: "/next"},
			next: func(base string, n int) string {
				return "http://backend.internal:8000/items?cursor=c" + strconv.Itoa(n)
			},
		},
		{
			name: "page numbers, up to an empty page",
			opts: httpsrc.Options[*Item]{Items: "/results", Paging: httpsrc.PagingNumber},
		},
		{
			name: "page numbers, up to a 404",
			opts: httpsrc.Options[*Item]{Items: "/results", Paging: httpsrc.PagingNumber, PageParam: "p"}, notFound: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var base string
			var requests []string
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				requests = append(requests, r.URL.RequestURI())
				if r.URL.Path != "/items" {
					http.NotFound(w, r)
					return
				}
				n := 1
				q := r.URL.Query()
				switch {
				case q.Has("continue"):
					http.Error(w, "unknown parameter continue", http.StatusBadRequest)
					return
				case q.Has("cursor"):
					n, _ = strconv.Atoi(strings.TrimPrefix(q.Get("cursor"), "c"))
				case q.Has("page"), q.Has("p"):
					n, _ = strconv.Atoi(q.Get("page") + q.Get("p"))
				}
				names, more := page(n)
				if len(names) == 0 && tt.notFound {
					http.Error(w, `{"detail":"Invalid page."}`, http.StatusNotFound)
					return
				}
				next := "null"
				if more && tt.next != nil {
					next = strconv.Quote(tt.next(base, n+1))
				}
				fmt.Fprintf(w, `{"count":%d,"next":%s,"previous":null,"results":%s}`, len(all), next, itemsJSON(names))
			})
			base = srv.URL
			tt.opts.ListURL, tt.opts.WatchURL = srv.URL+"/items", srv.URL+"/events"
			src, err := httpsrc.New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			opts := informer.ListOptions{}
			for range 10 {
				p, err := src.List(t.Context(), opts)
				if err != nil {
					t.Fatalf("%v (requests %q)", err, requests)
				}
				got = append(got, names(p.Items))
				if p.Continue == "" {
					break
				}
				opts.Continue = p.Continue
			}
			want := "a,b|c,d|e"
			if tt.opts.Paging == httpsrc.PagingNumber {
				want += "|" // the empty page (or 404) that ends it
			}
			if strings.Join(got, "|") != want {
				t.Errorf("pages %q, want %q (requests %q)", strings.Join(got, "|"), want, requests)
			}
		})
	}
}

// Paging options that cannot work are refused.
func TestPagingOptions(t *testing.T) {
	if _, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: "http://x/items", Paging: 9}); err == nil {
		t.Error("Paging 9 accepted")
	}
}

// A service whose next page is the page just read (it ignores the page
// parameter, or hands out the same next link or token) fails the list
// with ErrPageRepeated instead of being paged for ever, and an informer
// says so through LastError. (The pages were requested without end, each
// one's items added to a replacement that never completed.)
func TestListPagingRepeatedPage(t *testing.T) {
	tests := []struct {
		name string
		opts httpsrc.Options[*Item]
		next string // the body's next member, on every page
	}{
		{name: "page numbers, the page parameter ignored", opts: httpsrc.Options[*Item]{Items: "/results", Paging: httpsrc.PagingNumber}},
		{name: "the same next URL", opts: httpsrc.Options[*Item]{Items: "/results", Next: "/next", Paging: httpsrc.PagingURL}, next: "?cursor=c2"},
		{name: "the same next token", opts: httpsrc.Options[*Item]{Items: "/results", Next: "/next"}, next: "t2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				next := "null"
				if tt.next != "" {
					next = strconv.Quote(tt.next)
				}
				fmt.Fprintf(w, `{"next":%s,"results":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`, next)
			})
			tt.opts.ListURL, tt.opts.WatchURL = srv.URL+"/items", srv.URL+"/events"
			src, err := httpsrc.New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			opts := informer.ListOptions{}
			for range 10 {
				p, err := src.List(t.Context(), opts)
				if err != nil {
					if !errors.Is(err, httpsrc.ErrPageRepeated) {
						t.Fatalf("error %v, want ErrPageRepeated", err)
					}
					break
				}
				if p.Continue == "" {
					t.Fatal("the list ended")
				}
				opts.Continue = p.Continue
			}
			if n := requests.Load(); n > 3 {
				t.Errorf("%d pages requested, want the repeat found by the third", n)
			}

			inf := informer.New(src, informer.Options[*Item]{Logger: slog.New(slog.DiscardHandler)})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan struct{})
			go func() { inf.Run(ctx); close(done) }()
			defer func() { cancel(); <-done }()
			for deadline := time.Now().Add(10 * time.Second); !errors.Is(inf.LastError(), httpsrc.ErrPageRepeated); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("after 10 s, LastError is %v (synced %v, %d requests), want ErrPageRepeated", inf.LastError(), inf.HasSynced(), requests.Load())
				}
			}
			if inf.HasSynced() {
				t.Error("synced a list whose pages repeat")
			}
		})
	}
}

package kube

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

var timeoutSeconds = regexp.MustCompile(`timeoutSeconds=[0-9]+`)

// TestDefaultListRequests: what an informer over a Source with default
// Options sends when it lists (the server refusing streaming lists, as
// one without them does): its first list, which fills an empty cache, is
// one consistent response (no limit, no resourceVersion); after its watch
// expires, the relist is a consistent first page of DefaultPageSize, then
// pages twice as large each time, up to MaxGrownPageSize, each with the
// server's own continue token and nothing else; each watch starts from
// its list's resourceVersion.
func TestDefaultListRequests(t *testing.T) {
	const total = 9500
	var (
		mu       sync.Mutex
		requests []url.Values
		watching = make(chan struct{}, 1)
		bad      = make(chan string, 1) // a continue token the server never gave
	)
	src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "application/json")
		if q.Get("watch") != "" {
			if q.Get("sendInitialEvents") == "true" {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, kubefixture.StatusJSON(422, "Invalid", "sendInitialEvents is forbidden"))
				return
			}
			mu.Lock()
			requests = append(requests, q)
			first := len(requests) == 2
			mu.Unlock()
			if first { // the first list's watch: expired, a relist follows
				io.WriteString(w, kubefixture.EventJSON("ERROR", kubefixture.StatusJSON(410, "Expired", "too old resource version")))
				return
			}
			w.(http.Flusher).Flush()
			select {
			case watching <- struct{}{}:
			default:
			}
			<-r.Context().Done()
			return
		}
		mu.Lock()
		requests = append(requests, q)
		mu.Unlock()
		from := 0
		if c := q.Get("continue"); c != "" {
			var err error
			if from, err = strconv.Atoi(strings.TrimPrefix(c, "srv-")); err != nil {
				select {
				case bad <- c:
				default:
				}
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, kubefixture.StatusJSON(400, "BadRequest", "invalid continue token"))
				return
			}
		}
		limit, _ := strconv.Atoi(q.Get("limit"))
		to := min(total, from+limit)
		if limit == 0 {
			to = total
		}
		cont := ""
		if to < total {
			cont = fmt.Sprintf("srv-%d", to)
		}
		// One object a page: the page sizes, not the objects, are under test.
		io.WriteString(w, kubefixture.ListJSON("77", cont, kubefixture.WidgetJSON("ns", fmt.Sprintf("w%d", from), "5", "red")))
	}), Options{})
	inf := informer.New[*kubefixture.Widget](src, informer.Options[*kubefixture.Widget]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	select {
	case <-watching:
	case c := <-bad:
		cancel()
		<-done
		t.Fatalf("the server got continue=%q, not one of its tokens", c)
	}
	cancel()
	<-done

	want := []string{
		"", // the first list, in one response
		"allowWatchBookmarks=true&resourceVersion=77&timeoutSeconds=*&watch=1",
		"limit=500",
		"continue=srv-500&limit=1000",
		"continue=srv-1500&limit=2000",
		"continue=srv-3500&limit=2000",
		"continue=srv-5500&limit=2000",
		"continue=srv-7500&limit=2000",
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) != len(want)+1 {
		t.Fatalf("%d requests, want %d lists and a watch: %v", len(requests), len(want), requests)
	}
	for i, w := range want {
		got := requests[i].Encode()
		if strings.Contains(w, "timeoutSeconds=*") {
			got = timeoutSeconds.ReplaceAllString(got, "timeoutSeconds=*")
		}
		if got != w {
			t.Errorf("list request %d: %s, want %s", i, got, w)
		}
	}
	if w := requests[len(want)]; w.Get("resourceVersion") != "77" {
		t.Errorf("watch from %q, want the list's 77", w.Get("resourceVersion"))
	}
}

// TestGrowingPageTokens: the continue token that carries the next page's
// size: a page that came quickly doubles the size (capped), a slow one
// keeps it; a token that is not one of ours goes to the server as it is.
func TestGrowingPageTokens(t *testing.T) {
	next := []struct {
		size int64
		took time.Duration
		srv  string
		want string
	}{
		{500, time.Millisecond, "abc", "informer.page=1000;abc"},
		{1500, time.Millisecond, "abc", "informer.page=2000;abc"},
		{MaxGrownPageSize, time.Millisecond, "abc", "informer.page=2000;abc"},
		{1000, growPagesWithin, "abc", "informer.page=1000;abc"},
		{1000, time.Minute, "a;b", "informer.page=1000;a;b"},
		{500, time.Millisecond, "", ""}, // the last page
	}
	for _, tt := range next {
		if got := nextPage(tt.size, tt.took, tt.srv); got != tt.want {
			t.Errorf("nextPage(%d, %s, %q) = %q, want %q", tt.size, tt.took, tt.srv, got, tt.want)
		}
	}
	parse := []struct {
		token string
		size  int64
		srv   string
	}{
		{"informer.page=1000;abc", 1000, "abc"},
		{"informer.page=2000;a;b", 2000, "a;b"},
		{"abc", 0, "abc"},
		{"", 0, ""},
		{"informer.page=1000abc", 0, "informer.page=1000abc"},
		{"informer.page=x;abc", 0, "informer.page=x;abc"},
		{"informer.page=0;abc", 0, "informer.page=0;abc"},
		{"informer.page=-5;abc", 0, "informer.page=-5;abc"},
		{"informer.page=2001;abc", 0, "informer.page=2001;abc"},
	}
	for _, tt := range parse {
		size, srv := pageRequest(tt.token)
		if size != tt.size || srv != tt.srv {
			t.Errorf("pageRequest(%q) = %d, %q, want %d, %q", tt.token, size, srv, tt.size, tt.srv)
		}
	}
}

// TestFixedPagesKeepServerTokens: with a page size chosen (Options.PageSize
// or ListOptions.Limit) the continue token is the server's, and one of
// ours handed back is unwrapped but its size ignored.
func TestFixedPagesKeepServerTokens(t *testing.T) {
	var got []string
	src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Query().Encode())
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, kubefixture.ListJSON("1", "srv-tok", kubefixture.WidgetJSON("ns", "a", "1", "red")))
	}), Options{PageSize: 7})
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil || page.Continue != "srv-tok" {
		t.Fatalf("continue %q, %v; want the server's srv-tok", page.Continue, err)
	}
	page, err = src.List(t.Context(), informer.ListOptions{Continue: "informer.page=1000;srv-tok"})
	if err != nil || page.Continue != "srv-tok" {
		t.Fatalf("continue %q, %v; want the server's srv-tok", page.Continue, err)
	}
	page, err = src.List(t.Context(), informer.ListOptions{Limit: 3, Continue: "srv-tok"})
	if err != nil || page.Continue != "srv-tok" {
		t.Fatalf("continue %q, %v; want the server's srv-tok", page.Continue, err)
	}
	want := []string{"limit=7", "continue=srv-tok&limit=7", "continue=srv-tok&limit=3"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}

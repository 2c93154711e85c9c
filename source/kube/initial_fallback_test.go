package kube

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// TestInitialListTooLargeFallsBackToPages: an informer's first list asks
// for the whole collection in one response (ListOptions.Initial). A
// collection too large to send within the server's request timeout (or
// Options.ListTimeout) fails that way every time: the informer used to ask
// for it in one response again and again and never synced. After such a
// list fails, the lists page (here the server answers 504 Timeout to every
// list without a limit, and pages quickly).
func TestInitialListTooLargeFallsBackToPages(t *testing.T) {
	const total = 1200
	var (
		mu      sync.Mutex
		unpaged int
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
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		limit, _ := strconv.Atoi(q.Get("limit"))
		if limit == 0 {
			mu.Lock()
			unpaged++
			mu.Unlock()
			w.WriteHeader(http.StatusGatewayTimeout)
			io.WriteString(w, kubefixture.StatusJSON(504, "Timeout", "the request did not complete within the allowed duration"))
			return
		}
		from, _ := strconv.Atoi(strings.TrimPrefix(q.Get("continue"), "srv-"))
		to := min(total, from+limit)
		cont := ""
		if to < total {
			cont = fmt.Sprintf("srv-%d", to)
		}
		items := make([]string, 0, to-from)
		for i := from; i < to; i++ {
			items = append(items, kubefixture.WidgetJSON("ns", fmt.Sprintf("w%d", i), "5", "red"))
		}
		io.WriteString(w, kubefixture.ListJSON("77", cont, items...))
	}), Options{})
	inf := informer.New[*kubefixture.Widget](src, informer.Options[*kubefixture.Widget]{Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	if err := inf.WaitForSync(wctx); err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("not synced after %d lists in one response: %v", unpaged, err)
	}
	if n := inf.Lister().Len(); n != total {
		t.Errorf("%d objects in the cache, want %d", n, total)
	}
	mu.Lock()
	defer mu.Unlock()
	if unpaged != 1 {
		t.Errorf("%d lists in one response, want 1 (then pages)", unpaged)
	}
}

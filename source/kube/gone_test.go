package kube

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// TestGoneIsExpiredWhateverTheReason: an HTTP 410, or a watch ERROR event
// whose Status has code 410, matches informer.ErrExpired whatever the
// Status's reason says, even without a Status at all (a proxy's plain-text
// 410); so does the reason Expired under another code. Other errors do not.
func TestGoneIsExpiredWhateverTheReason(t *testing.T) {
	plain := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusGone)
		io.WriteString(w, "gone")
	}
	tests := []struct {
		name    string
		answer  http.HandlerFunc // to the list and the watch request
		event   string           // the ERROR event's Status, for a watch stream
		expired bool
	}{
		{name: "410 Status without a reason", answer: serveJSON(410, kubefixture.StatusJSON(410, "", "too old")), expired: true},
		{name: "410 Status with another reason", answer: serveJSON(410, kubefixture.StatusJSON(410, "InternalError", "too old")), expired: true},
		{name: "410 without a Status", answer: plain, expired: true},
		{name: "ERROR event 410 without a reason", event: kubefixture.StatusJSON(410, "", "too old resource version: 5 (10)"), expired: true},
		{name: "ERROR event 410 with another reason", event: kubefixture.StatusJSON(410, "BadRequest", "too old"), expired: true},
		{name: "ERROR event reason Expired under code 500", event: kubefixture.StatusJSON(500, "Expired", "too old"), expired: true},
		{name: "500 without a reason", answer: serveJSON(500, kubefixture.StatusJSON(500, "", "boom")), expired: false},
		{name: "ERROR event 500 without a reason", event: kubefixture.StatusJSON(500, "", "boom"), expired: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs []error
			if tt.answer != nil {
				src, _ := newTestSource(t, tt.answer, Options{})
				_, err := src.List(t.Context(), informer.ListOptions{})
				errs = append(errs, err)
				w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "5"})
				if w != nil {
					w.Close()
				}
				errs = append(errs, err)
			} else {
				src, _ := newTestSource(t, streamHandler(kubefixture.EventJSON("ERROR", tt.event)), Options{})
				w := watchOf(t, src, informer.WatchOptions{ResourceVersion: "5"})
				_, err := w.Next()
				errs = append(errs, err)
			}
			for _, err := range errs {
				var ae *kube.APIError
				if !errors.As(err, &ae) {
					t.Fatalf("%v (%T), want an *APIError", err, err)
				}
				if got := errors.Is(err, informer.ErrExpired); got != tt.expired {
					t.Errorf("errors.Is(%v, ErrExpired) = %v, want %v", err, got, tt.expired)
				}
			}
		})
	}
}

// TestStatusCodeMatchesWithoutStatus: the sentinels match by HTTP status
// code alone, as when a proxy answers with a page of its own instead of a
// Kubernetes Status.
func TestStatusCodeMatchesWithoutStatus(t *testing.T) {
	for code, want := range map[int]error{
		http.StatusUnauthorized:    kube.ErrUnauthorized,
		http.StatusForbidden:       kube.ErrForbidden,
		http.StatusNotFound:        kube.ErrNotFound,
		http.StatusTooManyRequests: kube.ErrTooManyRequests,
		http.StatusGone:            informer.ErrExpired,
	} {
		src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(code)
			io.WriteString(w, "<html>no</html>")
		}), Options{})
		_, err := src.List(t.Context(), informer.ListOptions{})
		var ae *kube.APIError
		if !errors.As(err, &ae) || ae.Code != code || !errors.Is(err, want) {
			t.Errorf("%d without a Status: %v, want an *APIError matching %v", code, err, want)
		}
		for _, other := range []error{kube.ErrUnauthorized, kube.ErrForbidden, kube.ErrNotFound, kube.ErrTooManyRequests, informer.ErrExpired} {
			if other != want && errors.Is(err, other) {
				t.Errorf("%d without a Status matches %v too", code, other)
			}
		}
	}
}

// TestWatchGoneWithoutReasonRelists: an informer whose watch ends with an
// ERROR event 410 that carries no reason lists again at once, and its cache
// shows the new list: the object deleted in between is gone, the one added
// is there.
func TestWatchGoneWithoutReasonRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		lists, watches := 0, 0
		h := func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			watch := r.URL.Query().Get("watch") != ""
			if watch {
				watches++
			} else {
				lists++
			}
			n, m := lists, watches
			mu.Unlock()
			switch {
			case !watch && n == 1:
				serveJSON(200, kubefixture.ListJSON("5", "", kubefixture.WidgetJSON("ns", "old", "5", "red")))(w, r)
			case !watch:
				serveJSON(200, kubefixture.ListJSON("9", "", kubefixture.WidgetJSON("ns", "new", "9", "blue")))(w, r)
			case m == 1:
				streamHandler(kubefixture.EventJSON("ERROR", kubefixture.StatusJSON(410, "", "too old resource version: 5 (8)")))(w, r)
			default:
				<-r.Context().Done() // a quiet watch, until the informer stops
			}
		}
		src := inMemorySource(t, http.HandlerFunc(h), Options{QPS: -1})
		inf := informer.New[*kubefixture.Widget](src, informer.Options[*kubefixture.Widget]{
			Logger:    quietLogger,
			Reflector: informer.ReflectorOptions{WatchList: informer.WatchListOff},
		})
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		// Long enough for any backoff: a relist is due at once, so an
		// informer that backs off and watches again instead still shows
		// the first list.
		time.Sleep(time.Minute)
		synctest.Wait()
		mu.Lock()
		n := lists
		mu.Unlock()
		if n != 2 {
			t.Errorf("%d lists, want 2 (a relist after the 410)", n)
		}
		if _, ok := inf.Lister().Get("ns/old"); ok {
			t.Error("ns/old is still in the cache")
		}
		if _, ok := inf.Lister().Get("ns/new"); !ok {
			t.Error("ns/new is not in the cache")
		}
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
}

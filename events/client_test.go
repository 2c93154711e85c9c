package events_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/informer-go/informer/events"
	"github.com/informer-go/informer/kube"
)

// TestRecorderOverHTTP: through NewEventClient and a loopback server,
// repeats become one Event with its count, and a slow server (2 s an
// answer) never makes Eventf wait: 500 calls take well under the time of
// one answer, and what does not fit the queue is dropped and counted.
func TestRecorderOverHTTP(t *testing.T) {
	server, api := newEventAPI()
	defer server.Close()
	ec, err := events.NewEventClient(&kube.Config{Host: server.URL}, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := events.NewRecorder(ec, events.Options{ReportingController: "example.com/test", QueueSize: 50, SeriesInterval: 200 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- rec.Run(ctx) }()
	for range 5 {
		rec.Eventf(cm("a"), nil, events.Normal, "Mirrored", "Update", "x")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs := api.all()
		if len(evs) == 1 && evs[0].Series != nil && evs[0].Series.Count == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events %+v; want one counted 5", evs)
		}
		time.Sleep(20 * time.Millisecond)
	}

	api.delay.Store(int64(2 * time.Second))
	start := time.Now()
	for i := range 500 {
		rec.Eventf(cm(fmt.Sprint("slow-", i)), nil, events.Normal, "Mirrored", "Update", "x")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("500 Eventf calls against a slow server took %s", d)
	}
	if st := rec.Stats(); st.Dropped < 400 {
		t.Errorf("stats %+v; want at least 400 dropped with a queue of 50", st)
	}
	api.delay.Store(0)
	cancel()
	<-done
}

// TestEventClientErrors: the client's errors keep the contract: 409 for a
// name taken, ErrNotFound for a patch of a missing event, and a refused
// write (403) is not retried.
func TestEventClientErrors(t *testing.T) {
	server, api := newEventAPI()
	defer server.Close()
	ec, _ := events.NewEventClient(&kube.Config{Host: server.URL}, kube.ClientOptions{})
	ctx := context.Background()
	ev := &events.Event{Regarding: cm("a"), Reason: "R", Action: "A", Type: events.Normal}
	ev.Namespace, ev.Name = "dst", "a.1"
	if _, err := ec.Create(ctx, ev); err != nil {
		t.Fatal(err)
	}
	var apiErr *kube.APIError
	if _, err := ec.Create(ctx, ev); !errors.As(err, &apiErr) || apiErr.Code != http.StatusConflict {
		t.Errorf("second Create = %v, want 409", err)
	}
	if _, err := ec.Patch(ctx, "dst", "gone", []byte(`{"series":{"count":2}}`)); !errors.Is(err, kube.ErrNotFound) {
		t.Errorf("Patch of a missing event = %v, want ErrNotFound", err)
	}
	got, err := ec.Patch(ctx, "dst", "a.1", []byte(`{"series":{"count":2,"lastObservedTime":"2026-01-01T00:00:00.000000Z"}}`))
	if err != nil || got.Series == nil || got.Series.Count != 2 {
		t.Errorf("Patch = %+v, %v", got, err)
	}

	api.status.Store(http.StatusForbidden)
	var calls int
	counting := countingClient{EventClient: ec, calls: &calls}
	rec, _ := events.NewRecorder(counting, events.Options{ReportingController: "example.com/test", Logger: slog.New(slog.DiscardHandler)})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- rec.Run(rctx) }()
	rec.Eventf(cm("b"), nil, events.Normal, "Mirrored", "Update", "")
	for rec.Stats().Failed == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if calls != 1 {
		t.Errorf("%d attempts of a forbidden write, want 1", calls)
	}
}

type countingClient struct {
	events.EventClient
	calls *int
}

func (c countingClient) Create(ctx context.Context, ev *events.Event) (*events.Event, error) {
	*c.calls++
	return c.EventClient.Create(ctx, ev)
}

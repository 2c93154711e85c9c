package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// healthz answers 200 while the informer is healthy (synced, running, its
// source not failing again and again), and 503 otherwise; the body says
// why, in one line.
func healthz(inf *informer.Informer[*Widget]) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := inf.Health()
		if !h.Healthy() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, h)
	}
}

func ExampleInformer_Health() {
	src := memory.New[*Widget](memory.Options{})
	src.Create(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w1"}, Color: "red"})
	inf := informer.New(src, informer.Options[*Widget]{Logger: slog.New(slog.DiscardHandler)})
	probe := func() int {
		rec := httptest.NewRecorder()
		healthz(inf)(rec, httptest.NewRequest("GET", "/healthz", nil))
		return rec.Code
	}
	fmt.Println("before Run:", inf.Health().State, probe())

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		panic(err)
	}
	h := inf.Health()
	fmt.Println("synced:", h.Synced, "failures:", h.ConsecutiveFailures, "last error:", h.LastError, probe())

	cancel()
	<-done
	fmt.Println("after Run:", inf.Health().State, probe())
	// Output:
	// before Run: starting 503
	// synced: true failures: 0 last error: <nil> 200
	// after Run: stopped 503
}

package main

import (
	"context"
	"runtime"
	"testing"
	"time"
)

func TestControllerConverges(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{Duration: 300 * time.Millisecond, Widgets: 30, Workers: 3, Fail: 0.3, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Fatalf("not converged: %+v", res)
	}
	if res.Painted < int64(res.Widgets) || res.Failures == 0 {
		t.Fatalf("every widget is painted at least once, and some jobs fail at 30%%: %+v", res)
	}
	// No goroutine left: the informer and the workers have returned.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left (was %d):\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

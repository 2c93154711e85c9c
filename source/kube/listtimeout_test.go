package kube

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
)

// TestListTimeoutDefault: with Options.ListTimeout zero, a List that the
// server never answers is given up on after DefaultListTimeout (60 s); a
// negative ListTimeout means none.
func TestListTimeoutDefault(t *testing.T) {
	for _, tt := range []struct {
		timeout time.Duration
		want    time.Duration // 0: still waiting after 10 minutes
	}{{0, DefaultListTimeout}, {-1, 0}} {
		synctest.Test(t, func(t *testing.T) {
			never := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			src := inMemorySource(t, never, Options{QPS: -1, ListTimeout: tt.timeout})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			start := time.Now()
			type result struct {
				err  error
				took time.Duration
			}
			done := make(chan result, 1)
			go func() {
				_, err := src.List(ctx, informer.ListOptions{})
				done <- result{err, time.Since(start)}
			}()
			time.Sleep(10 * time.Minute)
			synctest.Wait()
			select {
			case r := <-done:
				if tt.want == 0 {
					t.Errorf("ListTimeout %v: the list ended after %v (%v), want no timeout", tt.timeout, r.took, r.err)
				} else if r.took != tt.want || !errors.Is(r.err, context.DeadlineExceeded) || !strings.Contains(r.err.Error(), "ListTimeout") {
					t.Errorf("ListTimeout %v: the list ended after %v with %v, want DeadlineExceeded naming ListTimeout after %v", tt.timeout, r.took, r.err, tt.want)
				}
			default:
				if tt.want != 0 {
					t.Errorf("ListTimeout %v: the list still waits after 10 minutes, want an end after %v", tt.timeout, tt.want)
				}
				cancel()
				<-done
			}
		})
	}
}

package leaderelection_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/informer-go/informer/leaderelection"
	"github.com/informer-go/informer/source/kube"
)

// TestLeaseClientOverHTTP: NewLeaseClient's answers keep the contract an
// Elector relies on: ErrNotFound for a missing lease, a 409 *kube.APIError
// for a create of an existing name and a stale update, and what the
// server stored.
func TestLeaseClientOverHTTP(t *testing.T) {
	server, _ := newLeaseAPI()
	defer server.Close()
	c, err := leaderelection.NewLeaseClient(&kube.Config{Host: server.URL}, leaderelection.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Get(ctx, "ns", "l"); !errors.Is(err, kube.ErrNotFound) {
		t.Fatalf("Get of a missing lease = %v, want ErrNotFound", err)
	}
	l := &leaderelection.Lease{}
	l.Namespace, l.Name = "ns", "l"
	holder := "a"
	l.Spec.HolderIdentity = &holder
	created, err := c.Create(ctx, l)
	if err != nil || created.ResourceVersion == "" || created.Holder() != "a" {
		t.Fatalf("Create = %+v, %v", created, err)
	}
	var apiErr *kube.APIError
	if _, err := c.Create(ctx, l); !errors.As(err, &apiErr) || apiErr.Code != http.StatusConflict || apiErr.Reason != "AlreadyExists" {
		t.Errorf("second Create = %v, want 409 AlreadyExists", err)
	}
	got, err := c.Get(ctx, "ns", "l")
	if err != nil || got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if _, err := c.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, got); !errors.As(err, &apiErr) || apiErr.Code != http.StatusConflict {
		t.Errorf("stale Update = %v, want 409", err)
	}
	if _, err := c.Update(ctx, l); err == nil || !strings.Contains(err.Error(), "without a resourceVersion") {
		t.Errorf("Update without a resourceVersion = %v", err)
	}
}

// TestLeaseClientErrorBodies: an answer that is not a Status (an HTML page
// from a proxy) is a *kube.APIError with the code, which does not quote
// the body.
func TestLeaseClientErrorBodies(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>secret-ish proxy page</html>"))
	}))
	defer server.Close()
	c, _ := leaderelection.NewLeaseClient(&kube.Config{Host: server.URL}, leaderelection.ClientOptions{})
	_, err := c.Get(context.Background(), "ns", "l")
	var apiErr *kube.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != http.StatusBadGateway {
		t.Fatalf("Get = %v, want a 502 *kube.APIError", err)
	}
	if strings.Contains(err.Error(), "secret-ish") {
		t.Errorf("the error quotes the body: %v", err)
	}
}

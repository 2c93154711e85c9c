package leaderelection_test

import (
	"context"
	"errors"
	"testing"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/leaderelection"
)

// TestLeaseClientOverHTTP: NewLeaseClient's answers keep the contract an
// Elector relies on: ErrNotFound for a missing lease, ErrAlreadyExists for
// a create of an existing name, ErrConflict for a stale update, and what
// the server stored.
func TestLeaseClientOverHTTP(t *testing.T) {
	server, _ := newLeaseAPI()
	defer server.Close()
	c, err := leaderelection.NewLeaseClient(&kube.Config{Host: server.URL}, kube.ClientOptions{})
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
	if _, err := c.Create(ctx, l); !errors.Is(err, kube.ErrAlreadyExists) {
		t.Errorf("second Create = %v, want ErrAlreadyExists", err)
	}
	got, err := c.Get(ctx, "ns", "l")
	if err != nil || got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if _, err := c.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, got); !errors.Is(err, kube.ErrConflict) {
		t.Errorf("stale Update = %v, want ErrConflict", err)
	}
}

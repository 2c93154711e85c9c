package shard_test

import (
	"fmt"
	"testing"

	"github.com/informer-go/informer/shard"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apisharding "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
)

// TestHashMatchesServer: our hash is the one kube-apiserver 1.37 applies
// (apimachinery's sharding.HashField, FNV-1a 64).
func TestHashMatchesServer(t *testing.T) {
	for _, s := range []string{"", "a", "default", "3f1c2d9e-6b0a-4c55-9f8e-1a2b3c4d5e6f", "ünïcödé"} {
		if got, want := fmt.Sprintf("%016x", shard.Hash(s)), apisharding.HashField(s); got != want {
			t.Errorf("Hash(%q) = %s, server %s", s, got, want)
		}
	}
}

// pom is a runtime.Object with metadata, for apimachinery's Matches.
type pom struct{ metav1.PartialObjectMetadata }

func (p *pom) GetObjectKind() schema.ObjectKind { return &p.TypeMeta }

// TestSelectorMatchesServer: the selector string is the one the server
// echoes (its Selector.String), and the server's Matches agrees with
// Set.Contains on every object.
func TestSelectorMatchesServer(t *testing.T) {
	sets := []shard.Set{
		shard.NewSet(shard.Split(2, 0)),
		shard.NewSet(shard.Split(2, 1)),
		shard.NewSet(shard.Split(3, 1)),
		shard.NewSet(shard.Split(5, 0), shard.Split(5, 3)),
	}
	for _, s := range sets {
		var reqs []apisharding.ShardRangeRequirement
		for _, r := range s {
			start, end := fmt.Sprintf("0x%016x", r.Start), fmt.Sprintf("0x%016x", r.End)
			if r.End == 0 {
				end = "0x10000000000000000"
			}
			reqs = append(reqs, apisharding.ShardRangeRequirement{Key: string(shard.FieldUID), Start: start, End: end})
		}
		server := apisharding.NewSelector(reqs...)
		if got := s.Selector(shard.FieldUID); got != server.String() {
			t.Fatalf("Selector %q, server writes %q", got, server.String())
		}
		for i := range 2000 {
			o := &pom{}
			o.UID = types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012d", i*7919, i))
			want, err := server.Matches(o)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Contains(shard.ByUID(&o.PartialObjectMetadata)); got != want {
				t.Fatalf("uid %s in %v: we say %v, server %v", o.UID, s, got, want)
			}
		}
	}
	if shard.All().Selector(shard.FieldUID) != "" {
		t.Fatal("the whole space needs no selector")
	}
}

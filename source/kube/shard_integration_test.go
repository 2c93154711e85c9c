package kube

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/shard"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// shardedGate turns on server-side shardSelector for apiserver.Start.
const shardedGate = "KUBE_APISERVER_EXTRA_ARGS=--feature-gates=ShardedListAndWatch=true"

// TestIntegrationShard runs three sharded Sources of equal ranges over
// one namespace of a real kube-apiserver, with the ShardedListAndWatch
// gate on (a server of its own) and off (the test binary's): lists in
// pages, informers that list and watch, informers that sync from a
// streaming list, JSON and protobuf. Every object is held by exactly one
// of them; with the gate on the server did the filtering (nothing
// dropped on the client), with it off the client did (strict Sources
// fail with ErrShardIgnored instead).
func TestIntegrationShard(t *testing.T) {
	needKube(t)
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("gate=%v", gate), func(t *testing.T) {
			env := apiserver.Env()
			if gate {
				env = apiserver.Start(t, shardedGate)
			}
			cfg := kubeConfigFor(t, env, "informer-test")
			const total = 600
			var ns string
			for _, proto := range []bool{false, true} {
				t.Run(fmt.Sprintf("protobuf=%v", proto), func(t *testing.T) {
					r := kubefixture.NewREST(t, cfg, cfg.Host)
					ns = r.Namespace("shard")
					r.CreateConfigMaps(ns, "cm", total, nil)
					testShardSources(t, cfg, r, ns, total, gate, proto)
				})
			}
			t.Run("strict", func(t *testing.T) {
				set := shard.NewSet(shard.Split(3, 0))
				full, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, Shard: set, ShardStrict: true})
				if err != nil {
					t.Fatal(err)
				}
				meta, err := New[*metav1.PartialObjectMetadata](cfg, configMapsRes, Options{Namespace: ns, Shard: set, ShardStrict: true})
				if err != nil {
					t.Fatal(err)
				}
				_, err1 := full.List(t.Context(), informer.ListOptions{Limit: 50})
				_, err2 := meta.List(t.Context(), informer.ListOptions{Limit: 50})
				for _, err := range []error{err1, err2} {
					if gate && err != nil {
						t.Fatalf("gate on, strict list: %v", err)
					}
					if !gate && !errors.Is(err, ErrShardIgnored) {
						t.Fatalf("gate off, strict list: %v, want ErrShardIgnored", err)
					}
				}
				// A strict informer on a server that ignores the selector
				// holds nothing and says why.
				inf := informer.New(full, informer.Options[*kubefixture.ConfigMap]{})
				ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
				defer cancel()
				_ = inf.Run(ctx)
				n, lastErr := len(inf.Lister().List(nil)), inf.Health().LastError
				t.Logf("strict informer: %d held, last error %v", n, lastErr)
				if !gate && (n != 0 || !errors.Is(lastErr, ErrShardIgnored)) {
					t.Fatalf("gate off, strict informer: %d held, last error %v", n, lastErr)
				}
				if gate && n == 0 {
					t.Fatal("gate on, strict informer holds nothing")
				}
			})
		})
	}
}

func testShardSources(t *testing.T, cfg *kube.Config, r *kubefixture.REST, ns string, total int, gate, proto bool) {
	const n = 3
	type member struct {
		stats func() ShardStats
		list  func(ctx context.Context, opts informer.ListOptions) ([]string, string, error)
		infs  []func() map[string]string // name → uid held, one per informer
		set   shard.Set
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 2*n)
	var members []*member
	for i := range n {
		set := shard.NewSet(shard.Split(n, i))
		m := &member{set: set}
		start := func(mode informer.WatchListMode) {}
		if proto {
			src, err := New[*metav1.PartialObjectMetadata](cfg, configMapsRes, Options{Namespace: ns, Shard: set, Protobuf: kube.Protobuf[*metav1.PartialObjectMetadata]()})
			if err != nil {
				t.Fatal(err)
			}
			m.stats = src.ShardStats
			m.list = func(ctx context.Context, opts informer.ListOptions) ([]string, string, error) {
				p, err := src.List(ctx, opts)
				var names []string
				for _, o := range p.Items {
					names = append(names, o.Name)
				}
				return names, p.Continue, err
			}
			start = func(mode informer.WatchListMode) {
				inf := informer.New(src, informer.Options[*metav1.PartialObjectMetadata]{Reflector: informer.ReflectorOptions{WatchList: mode}})
				go func() { done <- inf.Run(ctx) }()
				m.infs = append(m.infs, func() map[string]string {
					out := map[string]string{}
					for _, o := range inf.Lister().List(nil) {
						out[o.Name] = string(o.UID)
					}
					return out
				})
			}
		} else {
			src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns, Shard: set})
			if err != nil {
				t.Fatal(err)
			}
			m.stats = src.ShardStats
			m.list = func(ctx context.Context, opts informer.ListOptions) ([]string, string, error) {
				p, err := src.List(ctx, opts)
				var names []string
				for _, o := range p.Items {
					names = append(names, o.Name)
				}
				return names, p.Continue, err
			}
			start = func(mode informer.WatchListMode) {
				inf := informer.New(src, informer.Options[*kubefixture.ConfigMap]{Reflector: informer.ReflectorOptions{WatchList: mode}})
				go func() { done <- inf.Run(ctx) }()
				m.infs = append(m.infs, func() map[string]string {
					out := map[string]string{}
					for _, o := range inf.Lister().List(nil) {
						out[o.Name] = string(o.UID)
					}
					return out
				})
			}
		}
		start(informer.WatchListOff)
		start(informer.WatchListOn)
		members = append(members, m)
	}

	// Paged lists: each name in exactly one member's pages.
	owner := map[string]int{}
	for i, m := range members {
		opts := informer.ListOptions{Limit: 100}
		for {
			names, cont, err := m.list(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range names {
				if j, dup := owner[name]; dup {
					t.Fatalf("%s listed by members %d and %d", name, j, i)
				}
				owner[name] = i
			}
			if cont == "" {
				break
			}
			opts.Continue = cont
		}
	}
	if len(owner) < total {
		t.Fatalf("the members listed %d ConfigMaps, want %d", len(owner), total)
	}

	// Changes while the informers watch: 60 deleted, 60 created, 60 updated.
	for i := range 60 {
		r.Must("DELETE", kubefixture.CMPath(ns, fmt.Sprintf("cm-%d", i)), nil, nil)
	}
	r.CreateConfigMaps(ns, "new", 60, nil)
	for i := 100; i < 160; i++ {
		var cm kubefixture.ConfigMap
		r.Must("GET", kubefixture.CMPath(ns, fmt.Sprintf("cm-%d", i)), nil, &cm)
		cm.Data["index"] += "-updated"
		r.Must("PUT", kubefixture.CMPath(ns, cm.Name), &cm, nil)
	}
	want := total // 600 - 60 + 60

	// Every informer holds its share, and together they hold each object once.
	deadline := time.Now().Add(30 * time.Second)
	for {
		held, bad := map[string]int{}, ""
		for i, m := range members {
			for k, inf := range m.infs {
				for name, uid := range inf() {
					if !m.set.Contains(shard.Hash(uid)) {
						t.Fatalf("member %d informer %d holds %s (uid %s) outside %v", i, k, name, uid, m.set)
					}
					if k == 0 {
						if j, dup := held[name]; dup {
							bad = fmt.Sprintf("%s held by %d and %d", name, j, i)
						}
						held[name] = i
					}
				}
				if k > 0 && len(inf()) != len(m.infs[0]()) {
					bad = fmt.Sprintf("member %d: informers hold %d and %d", i, len(m.infs[0]()), len(inf()))
				}
			}
		}
		if bad == "" && len(held) == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %d held, want %d; %s", len(held), want, bad)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var dropped, received int64
	for i, m := range members {
		st := m.stats()
		t.Logf("member %d %v: %+v", i, m.set, st)
		dropped, received = dropped+st.Dropped, received+st.Received
		if st.ServerFiltered != gate {
			t.Errorf("member %d: ServerFiltered %v with the gate %v", i, st.ServerFiltered, gate)
		}
	}
	if gate && dropped != 0 {
		t.Errorf("gate on: the client dropped %d objects the server should have filtered", dropped)
	}
	if !gate && dropped < received/2 {
		t.Errorf("gate off: the client dropped %d of %d objects, want about 2/3", dropped, received)
	}
	cancel()
	for range 2 * n {
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Error(err)
		}
	}
}

package kube

import (
	"context"
	"testing"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubefixture"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIntegrationClientReadYourWrites reads with resourceVersion "0"
// (from the cache) and checks the read-your-writes pattern through an
// informer.
func TestIntegrationClientReadYourWrites(t *testing.T) {
	cfg := kubeConfigFor(t, needKube(t), "informer-test")
	c, err := kube.NewClient[*kubefixture.ConfigMap](cfg, configMapsRes, kube.ClientOptions{FieldManager: "client-test", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := kubefixture.NewREST(t, cfg, cfg.Host)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ns := r.Namespace("client-ryw")
	src, err := New[*kubefixture.ConfigMap](cfg, configMapsRes, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New[*kubefixture.ConfigMap](src, informer.Options[*kubefixture.ConfigMap]{})
	go inf.Run(ctx)
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		cm := &kubefixture.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ryw", Namespace: ns}, Data: map[string]string{"i": string(rune('0' + i))}}
		var written *kubefixture.ConfigMap
		if i == 0 {
			written, err = c.Create(ctx, cm, kube.WriteOptions{})
		} else {
			cur, _ := inf.Lister().Get(ns + "/ryw")
			cm.ResourceVersion = cur.ResourceVersion
			written, err = c.Update(ctx, cm, kube.WriteOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := inf.WaitForResourceVersion(ctx, written.ResourceVersion); err != nil {
			t.Fatal(err)
		}
		if cur, ok := inf.Lister().Get(ns + "/ryw"); !ok || cur.ResourceVersion != written.ResourceVersion {
			t.Fatalf("after WaitForResourceVersion(%s) the cache has %v", written.ResourceVersion, cur)
		}
	}
	if got, err := c.Get(ctx, ns, "ryw", kube.GetOptions{ResourceVersion: "0"}); err != nil || got.Name != "ryw" {
		t.Errorf(`Get with resourceVersion "0": %v, %v`, got, err)
	}
}

package informerbench

import (
	"context"
	"testing"

	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/kube"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkClient: kube.Client[*corev1.ConfigMap] in JSON, no client-side
// rate limit (client-go's side has none either).
func BenchmarkClient(b *testing.B) {
	workload.Client(b, func(host string) workload.ClientOps {
		c, err := kube.NewClient[*corev1.ConfigMap](&kube.Config{Host: host},
			kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
			kube.ClientOptions{QPS: -1, FieldManager: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		cm := func() *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "bench", Labels: map[string]string{"app": "bench"}}, Data: workload.ClientData}
		}
		return workload.ClientOps{
			Create: func() error { _, err := c.Create(ctx, cm(), kube.WriteOptions{}); return err },
			Update: func() error {
				obj := cm()
				obj.ResourceVersion = "1"
				_, err := c.Update(ctx, obj, kube.WriteOptions{})
				return err
			},
			Apply: func() error { _, err := c.Apply(ctx, cm(), kube.PatchOptions{Force: true}); return err },
			Get:   func() error { _, err := c.Get(ctx, "bench", "cm", kube.GetOptions{}); return err },
		}
	})
}

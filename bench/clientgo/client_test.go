package clientgobench

import (
	"context"
	"testing"

	"github.com/informer-go/informer/bench/workload"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// BenchmarkClient: the clientset's ConfigMaps in JSON, no client-side rate
// limit (a negative QPS), as our side.
func BenchmarkClient(b *testing.B) {
	workload.Client(b, func(host string) workload.ClientOps {
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: host, ContentConfig: rest.ContentConfig{ContentType: "application/json"}, QPS: -1})
		if err != nil {
			b.Fatal(err)
		}
		cms := cs.CoreV1().ConfigMaps("bench")
		ctx := context.Background()
		cm := func() *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "bench", Labels: map[string]string{"app": "bench"}}, Data: workload.ClientData}
		}
		return workload.ClientOps{
			Create: func() error { _, err := cms.Create(ctx, cm(), metav1.CreateOptions{}); return err },
			Update: func() error {
				obj := cm()
				obj.ResourceVersion = "1"
				_, err := cms.Update(ctx, obj, metav1.UpdateOptions{})
				return err
			},
			Apply: func() error {
				ac := corev1ac.ConfigMap("cm", "bench").WithLabels(map[string]string{"app": "bench"}).WithData(workload.ClientData)
				_, err := cms.Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "bench", Force: true})
				return err
			},
			Get: func() error { _, err := cms.Get(ctx, "cm", metav1.GetOptions{}); return err },
		}
	})
}

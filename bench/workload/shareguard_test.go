package workload

import (
	"testing"

	"github.com/informer-go/informer/internal/jsondec"
	corev1 "k8s.io/api/core/v1"
)

// BenchmarkSharingHits is what structural sharing costs when nearly
// everything is shared: one op decodes sharingCostPods pods of one
// Deployment (AppendPod: one template, distinct names, uids, IPs) into
// corev1.Pod through one table, held as a cache holds them, so that
// from the third pod on their containers, volumes, labels and the rest
// are found in the table; off decodes them without one. Here the
// guard against writes into shared values (a fingerprint check per hit)
// costs the most.
func BenchmarkSharingHits(b *testing.B) {
	pods := make([][]byte, sharingCostPods)
	size := 0
	for i := range pods {
		pods[i] = AppendPod(nil, i, 1000+i)
		size += len(pods[i])
	}
	for _, on := range []bool{false, true} {
		name := "sharing=off"
		if on {
			name = "sharing=on"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			held := make([]corev1.Pod, len(pods))
			cpu0 := processCPU()
			for b.Loop() {
				var s *jsondec.Shared
				if on {
					s = jsondec.NewShared(0)
				}
				for i, data := range pods {
					held[i] = corev1.Pod{}
					if err := s.UnmarshalKube(data, &held[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			n := float64(b.N) * float64(len(pods))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/pod")
			b.ReportMetric(float64(processCPU()-cpu0)/n, "cpu-ns/pod")
		})
	}
}

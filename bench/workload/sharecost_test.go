package workload

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/jsondec"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// sharingCostPods is how many pods one op of BenchmarkSharingCost decodes.
const sharingCostPods = 2000

// BenchmarkSharingCost is what structural sharing costs when there is
// nothing to share: one op decodes a list of sharingCostPods pods, each
// distinct from every other (every string value, number, time and
// quantity differs: names, uids, labels, images, commands, env values,
// probes, volumes...), into corev1.Pod with apimachinery's semantics,
// holding them as a cache does, without a table (sharing=off) and through
// a new table per op (sharing=on, the default of source/kube). Compare the
// two with benchstat -col /sharing; the target (issue 23) is on at most
// 10% slower than off. cpu-ns/pod is the process's CPU time (the garbage
// collector's included), steadier than ns/pod on a busy machine.
func BenchmarkSharingCost(b *testing.B) {
	pods := distinctPods(b, jsondecPod, sharingCostPods)
	size := 0
	for _, p := range pods {
		size += len(p)
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

// distinctPods returns n variants of pod in which no value repeats from
// one variant to another: every string gets a suffix of its own, times
// and quantities and numbers differ. Object keys (field names, label and
// annotation keys) stay, as in a real cluster.
func distinctPods(tb testing.TB, pod []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		var v any
		if err := json.Unmarshal(pod, &v); err != nil {
			tb.Fatal(err)
		}
		suffix := fmt.Sprintf("-%d", i)
		var walk func(any) any
		walk = func(x any) any {
			switch x := x.(type) {
			case string:
				if _, err := time.Parse(time.RFC3339, x); err == nil {
					return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
				}
				if _, err := resource.ParseQuantity(x); err == nil {
					return fmt.Sprintf("%dMi", i+1)
				}
				return x + suffix
			case map[string]any:
				for k, e := range x {
					x[k] = walk(e)
				}
			case []any:
				for k, e := range x {
					x[k] = walk(e)
				}
			case float64:
				return x + float64(i)
			}
			return x
		}
		data, err := json.Marshal(walk(v))
		if err != nil {
			tb.Fatal(err)
		}
		var check corev1.Pod
		if err := json.Unmarshal(data, &check); err != nil {
			tb.Fatalf("variant %d does not decode: %v", i, err)
		}
		out[i] = data
	}
	return out
}

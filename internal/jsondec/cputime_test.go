package jsondec

import (
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestCPUTime reports CPU time (user+system, every thread, GC included)
// per pod decode for both decoders: on a shared machine it is steadier
// than wall time. Run with JSONDEC_CPUTIME=<iterations>.
func TestCPUTime(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("JSONDEC_CPUTIME"))
	if n == 0 {
		t.Skip("set JSONDEC_CPUTIME")
	}
	data := podJSON(t)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for round := 0; round < 3; round++ {
		for _, impl := range []struct {
			name string
			fn   func([]byte, any) error
		}{{"jsondec", Unmarshal}, {"encoding-json", json.Unmarshal}, {"jsondec-kube", UnmarshalKube}} {
			runtime.GC()
			start := cpu()
			for i := 0; i < n; i++ {
				var p benchPod
				if err := impl.fn(data, &p); err != nil {
					t.Fatal(err)
				}
			}
			runtime.GC()
			t.Logf("%-14s %6.1f µs CPU/op", impl.name, float64(cpu()-start)/float64(n)/1e3)
		}
	}
}

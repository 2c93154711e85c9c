//go:build !unix

package workload

import "time"

// processCPU is 0 where getrusage is missing: cpu-ns metrics read 0.
func processCPU() time.Duration { return 0 }

//go:build unix

package workload

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used so
// far, every goroutine and the garbage collector included.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

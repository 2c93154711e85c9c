package workload

import (
	"os"
	"strconv"
	"strings"
)

// PeakRSS is the process's peak resident set (VmHWM of
// /proc/self/status), in MiB; 0 where it cannot be read.
func PeakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

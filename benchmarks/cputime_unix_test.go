//go:build unix

package benchmarks

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process. The shared
// benchmark machine is often oversubscribed, which inflates wall time but
// much less CPU time, so the benchmarks report both.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build unix

package arrowpq_test

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process. Benchmarks
// report it per op next to wall time because the shared benchmark machine is
// often oversubscribed, which inflates wall time but not CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

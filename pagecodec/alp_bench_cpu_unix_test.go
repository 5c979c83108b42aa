//go:build unix

package pagecodec

import "syscall"

// cpuNanos returns the user+system CPU time of the process, GC included.
// BenchmarkALP reports throughput per CPU second because the machine is
// shared: wall time there measures the neighbours as much as the code.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

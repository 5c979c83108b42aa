//go:build linux

package snappy

import (
	"runtime"
	"syscall"
	"testing"
)

// cpuLoop runs body b.N times and reports cpu-MB/s, size bytes per second
// of this thread's CPU time: the machine is shared, and wall time measures
// the neighbours as much as the code.
func cpuLoop(b *testing.B, size int, body func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.SetBytes(int64(size))
	start := threadCPU()
	for b.Loop() {
		body()
	}
	if d := threadCPU() - start; d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/float64(d)*1e3, "cpu-MB/s")
	}
}

// threadCPU returns the user+system CPU nanoseconds of the calling thread.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

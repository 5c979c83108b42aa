//go:build unix

package benchmarks

import (
	"slices"
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

// freshPageCost returns what touching one new page of anonymous memory
// costs (the kernel's fault and zeroing): the median over rounds of
// mapping 64 MiB, writing a byte of each page and unmapping it. A read
// with the default allocator builds every batch in new memory, and what
// the runtime gave back to the kernel comes back this way.
func freshPageCost(rounds int) time.Duration {
	const size = 64 << 20
	d := touchNewMemory(rounds, size, nil)
	return d / time.Duration(size/syscall.Getpagesize())
}

// touchNewMemory returns the median over rounds of the time to map size
// bytes of anonymous memory, have advise (when not nil) mark them, write
// a byte of each page and unmap them; zero when mapping or advise fails.
func touchNewMemory(rounds, size int, advise func([]byte) bool) time.Duration {
	page := syscall.Getpagesize()
	var got []time.Duration
	for range rounds {
		start := time.Now()
		b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return 0
		}
		if advise != nil && !advise(b) {
			syscall.Munmap(b)
			return 0
		}
		for i := 0; i < size; i += page {
			b[i] = 1
		}
		elapsed := time.Since(start)
		syscall.Munmap(b)
		got = append(got, elapsed)
	}
	slices.Sort(got)
	return got[len(got)/2]
}

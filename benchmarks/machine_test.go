package benchmarks

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// machineScaling measures what n goroutines get from the machine at once:
// the same loop runs on one goroutine, then on n together (GOMAXPROCS n),
// and the result is n times the one's time over the n's wall time — the
// work of how many lone goroutines the n did in the same time. On n idle
// cores of their own it is n; two vCPUs that are hyperthreads of one core,
// or that the host shares with other guests, give less, and no reader can
// scale past it. memory picks a loop that streams over 64 MiB per
// goroutine (memory bandwidth) instead of arithmetic in registers. The
// median of rounds measurements.
func machineScaling(n int, memory bool, rounds int) float64 {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	bufs := make([][]byte, n)
	if memory {
		for i := range bufs {
			bufs[i] = make([]byte, 64<<20)
			for j := range bufs[i] {
				bufs[i][j] = byte(j)
			}
		}
	}
	work := func(i int) {
		if memory {
			b := bufs[i]
			for range 8 {
				for j := 0; j < len(b); j += 64 {
					b[j]++
				}
			}
			return
		}
		x := uint64(i + 1)
		for range 300_000_000 {
			x = x*6364136223846793005 + 1442695040888963407
			x ^= x >> 13
		}
		sinkScaling.Store(x)
	}
	run := func(k int) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		for i := range k {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work(i)
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	var got []float64
	for range rounds {
		one := run(1)
		all := run(n)
		got = append(got, float64(n)*one.Seconds()/all.Seconds())
	}
	slices.Sort(got)
	return got[len(got)/2]
}

// sinkScaling keeps the arithmetic loop's result alive.
var sinkScaling atomic.Uint64

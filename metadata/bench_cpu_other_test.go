//go:build !unix

package metadata

// cpuNanos is not available here; benchmarks then report 0 cpu-ns/op.
func cpuNanos() int64 { return 0 }

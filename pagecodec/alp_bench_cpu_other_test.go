//go:build !unix

package pagecodec

// cpuNanos is not available here; BenchmarkALP then reports no cpu-MB/s.
func cpuNanos() int64 { return 0 }

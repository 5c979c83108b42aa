//go:build !unix

package benchmarks

import "time"

func processCPU() time.Duration { return 0 }

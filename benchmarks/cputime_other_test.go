//go:build !unix

package benchmarks

import "time"

func processCPU() time.Duration { return 0 }

func freshPageCost(rounds int) time.Duration { return 0 }

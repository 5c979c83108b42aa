//go:build !linux

package benchmarks

import "errors"

func thpMode() string { return "" }

func adviseHeapHuge() (int64, error) {
	return 0, errors.New("huge page advice is for Linux")
}

func hugePageRate(rounds int) float64 { return 0 }

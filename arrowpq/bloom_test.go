package arrowpq

import (
	"math"
	"testing"
)

// TestBloomFilterBytes checks the sizing formula of BloomFilter.md against
// hand-computed values: m = -8·ndv/ln(1-fpp^(1/8)) bits.
func TestBloomFilterBytes(t *testing.T) {
	for _, tc := range []struct {
		ndv  int64
		fpp  float64
		want int
	}{
		// 1e6 values at 1%: m = 9.59e6 bits = 1.2e6 bytes -> 2 MiB.
		{1_000_000, 0.01, 2 << 20},
		// 1000 values at 1%: 1199 bytes -> 2048.
		{1000, 0.01, 2048},
		{1, 0.5, 32},
		{1 << 40, 0.001, MaxBloomFilterBytes},
	} {
		m := -8 * float64(tc.ndv) / math.Log(1-math.Pow(tc.fpp, 1.0/8))
		if got := BloomFilterBytes(tc.ndv, tc.fpp); got != tc.want || (got < MaxBloomFilterBytes && float64(got*8) < m) {
			t.Errorf("BloomFilterBytes(%d, %v) = %d, want %d (m = %.0f bits)", tc.ndv, tc.fpp, got, tc.want, m)
		}
	}
}

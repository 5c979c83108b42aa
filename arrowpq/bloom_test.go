package arrowpq

import (
	"math"
	"testing"

	"github.com/arrowpq/arrowpq/metadata"
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
		if got := bloomFilterBytes(tc.ndv, tc.fpp); got != tc.want || (got < MaxBloomFilterBytes && float64(got*8) < m) {
			t.Errorf("bloomFilterBytes(%d, %v) = %d, want %d (m = %.0f bits)", tc.ndv, tc.fpp, got, tc.want, m)
		}
	}
}

// TestBloomFilterFPP inserts 10,000 values into a filter sized for them at
// 1% and checks that every one is found and at least 99% of 10,000 others
// are not.
func TestBloomFilterFPP(t *testing.T) {
	f := newBloomFilter(bloomFilterBytes(10_000, 0.01))
	vals := make([]int64, 10_000)
	for i := range vals {
		vals[i] = int64(i) * 7919
	}
	f.insertInt64(vals)
	bitset, err := f.appendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	bitset = bitset[len(bitset)-len(f.words)*4:]
	for _, v := range vals {
		if !(&metadata.BloomFilter{Bitset: bitset}).MayContain(metadata.XXHash64Uint64(uint64(v))) {
			t.Fatalf("value %d not found", v)
		}
	}
	fp := 0
	for i := range 10_000 {
		if (&metadata.BloomFilter{Bitset: bitset}).MayContain(metadata.XXHash64Uint64(uint64(int64(i)*7919 + 1))) {
			fp++
		}
	}
	if fp > 100 {
		t.Errorf("%d false positives of 10000", fp)
	}
	t.Logf("%d false positives of 10000", fp)
}

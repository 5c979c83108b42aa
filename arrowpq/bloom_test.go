package arrowpq

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestXXHash64Vectors checks published XXH64 (seed 0) test vectors.
func TestXXHash64Vectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
		{"message digest", 0x066ed728fceeb3be},
		{"abcdefghijklmnopqrstuvwxyz", 0xcfe1f278fa89835c},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 0xaaa46907d3047814},
		{"12345678901234567890123456789012345678901234567890123456789012345678901234567890", 0xe04a477f19ee145d},
	} {
		if got := xxhash64([]byte(tc.in)); got != tc.want {
			t.Errorf("xxhash64(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

// TestXXHash64AgainstCespare compares every length up to 300 and the fixed
// width helpers with github.com/cespare/xxhash/v2.
func TestXXHash64AgainstCespare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for n := 0; n <= len(buf); n++ {
		if got, want := xxhash64(buf[:n]), xxhash.Sum64(buf[:n]); got != want {
			t.Fatalf("length %d: %#x, want %#x", n, got, want)
		}
	}
	for range 1000 {
		v := r.Uint64()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		if got, want := xxhash64Uint64(v), xxhash.Sum64(b[:]); got != want {
			t.Fatalf("uint64 %#x: %#x, want %#x", v, got, want)
		}
		if got, want := xxhash64Uint32(uint32(v)), xxhash.Sum64(b[:4]); got != want {
			t.Fatalf("uint32 %#x: %#x, want %#x", uint32(v), got, want)
		}
	}
}

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
		if !bloomCheck(bitset, xxhash64Uint64(uint64(v))) {
			t.Fatalf("value %d not found", v)
		}
	}
	fp := 0
	for i := range 10_000 {
		if bloomCheck(bitset, xxhash64Uint64(uint64(int64(i)*7919+1))) {
			fp++
		}
	}
	if fp > 100 {
		t.Errorf("%d false positives of 10000", fp)
	}
	t.Logf("%d false positives of 10000", fp)
}

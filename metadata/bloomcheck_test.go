package metadata_test

import (
	"errors"
	"os"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
)

// TestXXHash64 checks published XXH64 values (seed 0): the empty input and
// "a"/"abc" from the xxHash project's sanity checks as quoted by arrow-rs
// (parquet/src/bloom_filter) and the python-xxhash README, and the 39-byte
// README example, which takes the 32-byte stripe path.
func TestXXHash64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"", 0xEF46DB3751D8E999},
		{"a", 0xD24EC4F1A98C6E5B},
		{"abc", 0x44BC2CF5AD770999},
		{"Nobody inspects the spammish repetition", 0xFBCEA83C8A378BF1},
	} {
		if got := metadata.XXHash64([]byte(c.in)); got != c.want {
			t.Errorf("XXHash64(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

// TestMayContainHandBuilt sets, by hand, the eight bits BloomFilter.md
// names for one hash in a two-block filter and checks that exactly that
// hash (and not one that needs other bits) is reported.
func TestMayContainHandBuilt(t *testing.T) {
	salts := [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}
	f := &metadata.BloomFilter{Bitset: make([]byte, 64)}
	var h = uint64(0xFFFFFFFF_00000001) // upper half picks block 1 of 2
	if f.MayContain(h) {
		t.Fatal("empty filter may contain a value")
	}
	for i, s := range salts {
		bit := (uint32(h) * s) >> 27
		word := 32 + 4*i
		v := uint32(f.Bitset[word]) | uint32(f.Bitset[word+1])<<8 | uint32(f.Bitset[word+2])<<16 | uint32(f.Bitset[word+3])<<24
		v |= 1 << bit
		f.Bitset[word], f.Bitset[word+1], f.Bitset[word+2], f.Bitset[word+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	if !f.MayContain(h) {
		t.Error("the hash whose bits are set is reported absent")
	}
	if f.MayContain(h & 0xFFFFFFFF) { // same bits, block 0
		t.Error("a hash in the other block is reported present")
	}
	if !(&metadata.BloomFilter{Bitset: make([]byte, 31)}).MayContain(1) {
		t.Error("a malformed bitset must not rule values out")
	}
}

// TestMayContainCorpus reads the bloom filter parquet-mr wrote in
// data_index_bloom_encoding_stats.parquet (one BYTE_ARRAY column "String";
// its 14 values as DuckDB reads them) and checks a present
// value and many absent ones.
func TestMayContainCorpus(t *testing.T) {
	const path = "../../shared/testdata/parquet-testing/data/data_index_bloom_encoding_stats.parquet"
	testshared.Need(t, path)
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, _ := r.Stat()
	f, err := metadata.ReadFooter(r, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	bf, err := metadata.ReadBloomFilter(r, f, 0, 0)
	if errors.Is(err, metadata.ErrNoBloomFilter) || err != nil {
		t.Fatal(err)
	}
	if bf.Header.Hash == nil || bf.Header.Hash.XXHASH == nil {
		t.Fatalf("hash %v, want XXHASH", bf.Header.Hash)
	}
	// The 14 values as DuckDB reads them (dump.mjs --engine duckdb).
	for _, v := range []string{"Hello", "This is", "a", "test", "How", "are you", "doing ", "today",
		"the quick", "brown fox", "jumps", "over", "the lazy", "dog"} {
		if !bf.MayContain(metadata.XXHash64([]byte(v))) {
			t.Errorf("%q is in the file but the filter rules it out", v)
		}
	}
	absent := 0
	for i := range 1000 {
		if !bf.MayContain(metadata.XXHash64([]byte("absent-" + string(rune('a'+i%26)) + itoa(i)))) {
			absent++
		}
	}
	if absent < 900 {
		t.Errorf("only %d of 1000 absent values ruled out", absent)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestBloomFilterFPP inserts 10,000 values into a filter sized for them at
// 1% and checks that every one is found and at least 99% of 10,000 others
// are not.
func TestBloomFilterFPP(t *testing.T) {
	f := metadata.NewBloomFilter(metadata.BloomFilterBytes(10_000, 0.01, 128<<20))
	vals := make([]int64, 10_000)
	for i := range vals {
		vals[i] = int64(i) * 7919
	}
	for _, v := range vals {
		f.Insert(metadata.XXHash64Uint64(uint64(v)))
	}
	// Through the serialized form, as a reader sees it.
	b, err := f.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	g, n, err := metadata.ParseBloomFilter(b)
	if err != nil || n != len(b) {
		t.Fatalf("ParseBloomFilter: %d of %d bytes, %v", n, len(b), err)
	}
	bitset := g.Bitset
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

// TestBloomFilterBytesSizing checks the sizing formula of BloomFilter.md
// against hand-computed values: m = -8·ndv/ln(1-fpp^(1/8)) bits.
func TestBloomFilterBytesSizing(t *testing.T) {
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
		{1 << 40, 0.001, 128 << 20},
		{1_000_000, 0.01, 1 << 20}, // capped by maxBytes below
	} {
		maxBytes := 128 << 20
		if tc.want == 1<<20 {
			maxBytes = 1 << 20
		}
		if got := metadata.BloomFilterBytes(tc.ndv, tc.fpp, maxBytes); got != tc.want {
			t.Errorf("BloomFilterBytes(%d, %v, %d) = %d, want %d", tc.ndv, tc.fpp, maxBytes, got, tc.want)
		}
	}
}

// TestBloomFilterInsertBits: inserting one hash sets exactly the eight bits
// BloomFilter.md computes by hand, one per word of the chosen block.
func TestBloomFilterInsertBits(t *testing.T) {
	f := metadata.NewBloomFilter(64) // two blocks
	h := uint64(0x9000_0000_1234_5678)
	f.Insert(h)
	// Block: (0x90000000 * 2) >> 32 = 1.
	salts := [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}
	want := make([]byte, 64)
	for i, s := range salts {
		bit := (uint32(0x12345678) * s) >> 27
		w := uint32(1) << bit
		want[32+4*i] = byte(w)
		want[32+4*i+1] = byte(w >> 8)
		want[32+4*i+2] = byte(w >> 16)
		want[32+4*i+3] = byte(w >> 24)
	}
	if string(f.Bitset) != string(want) {
		t.Fatalf("bitset %x, want %x", f.Bitset, want)
	}
	if !f.MayContain(h) {
		t.Fatal("inserted hash not found")
	}
}

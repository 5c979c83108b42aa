package arrowpq

import "github.com/arrowpq/arrowpq/metadata"

// The split block bloom filter itself (sizing, insert, serialization,
// lookup) lives in metadata (bloomcheck.go); the column writer fills one
// per column chunk.

// BloomFilterBytes is the size of the bitset the Writer allocates, per
// column chunk, for a column whose ColumnOptions ask for a bloom filter of
// ndv distinct values at false-positive probability fpp (zero means
// DefaultBloomFilterFPP): a power of two from 32 to MaxBloomFilterBytes.
// A server writing files for clients uses it to bound the memory their
// options can ask for; it returns 0 for ndv ≤ 0 and MaxBloomFilterBytes
// for an fpp outside (0, 1), which the Writer refuses.
func BloomFilterBytes(ndv int64, fpp float64) int {
	if ndv <= 0 {
		return 0
	}
	if fpp == 0 {
		fpp = DefaultBloomFilterFPP
	}
	if !(fpp > 0 && fpp < 1) {
		return MaxBloomFilterBytes
	}
	return metadata.BloomFilterBytes(ndv, fpp, MaxBloomFilterBytes)
}

package metadata

// The split block bloom filter of BloomFilter.md, for writers and readers
// alike. The bitset is z blocks of 32 bytes, each eight little-endian 32-bit
// words. A value is hashed with XXH64 (seed 0, [XXHash64]) over its PLAIN
// encoding (byte arrays without the length prefix). The upper 32 bits of the
// hash pick the block, ((h>>32) * z) >> 32; the lower 32 bits pick one bit
// in each word: word i gets (or tests) bit (lo * salt[i]) >> 27. A value may
// be present only when all eight bits are set.

import (
	"encoding/binary"
	"math"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// bloomSalts are the eight odd constants of BloomFilter.md.
var bloomSalts = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// BloomFilterBytes returns the bitset size for ndv distinct values (> 0)
// at false-positive probability fpp (in (0, 1)): the m = -8·ndv / ln(1 -
// fpp^(1/8)) bits of BloomFilter.md, rounded up to a power of two bytes
// within [32, maxBytes] (maxBytes a power of two, at least 32).
func BloomFilterBytes(ndv int64, fpp float64, maxBytes int) int {
	m := -8 * float64(ndv) / math.Log(1-math.Pow(fpp, 1.0/8))
	n := m / 8
	if !(n < float64(maxBytes)) {
		return maxBytes
	}
	b := bloomBlockSize
	for float64(b) < n {
		b <<= 1
	}
	return b
}

// NewBloomFilter returns an empty split block filter with a bitset of
// numBytes bytes (a positive multiple of 32), xxHash and no compression.
func NewBloomFilter(numBytes int) *BloomFilter {
	return &BloomFilter{
		Header: &format.BloomFilterHeader{
			NumBytes:    int32(numBytes),
			Algorithm:   &format.BloomFilterAlgorithm{BLOCK: &format.SplitBlockAlgorithm{}},
			Hash:        &format.BloomFilterHash{XXHASH: &format.XxHash{}},
			Compression: &format.BloomFilterCompression{UNCOMPRESSED: &format.Uncompressed{}},
		},
		Bitset: make([]byte, numBytes),
	}
}

// Reset empties the filter.
func (f *BloomFilter) Reset() { clear(f.Bitset) }

// Insert adds the value whose XXH64 hash is hash. The bitset must be a
// whole number of blocks (as NewBloomFilter and the readers make it).
func (f *BloomFilter) Insert(hash uint64) {
	z := uint64(len(f.Bitset) / bloomBlockSize)
	blk := ((hash >> 32) * z) >> 32
	block := f.Bitset[blk*bloomBlockSize : (blk+1)*bloomBlockSize : (blk+1)*bloomBlockSize]
	lo := uint32(hash)
	for i, salt := range bloomSalts {
		w := block[4*i : 4*i+4 : 4*i+4]
		binary.LittleEndian.PutUint32(w, binary.LittleEndian.Uint32(w)|1<<((lo*salt)>>27))
	}
}

// AppendTo appends the filter as a file holds it, the BloomFilterHeader
// then the bitset, to dst.
func (f *BloomFilter) AppendTo(dst []byte) ([]byte, error) {
	f.Header.NumBytes = int32(len(f.Bitset))
	dst, err := Marshal(dst, f.Header)
	if err != nil {
		return dst, err
	}
	return append(dst, f.Bitset...), nil
}

// MayContain reports whether the filter may hold a value whose XXH64 hash
// is hash (see [XXHash64]). False means the value is
// definitely absent from the column chunk. A filter with an empty or
// malformed bitset (not a whole number of 32-byte blocks) says true: it
// cannot rule anything out.
func (f *BloomFilter) MayContain(hash uint64) bool {
	n := len(f.Bitset)
	if n == 0 || n%bloomBlockSize != 0 {
		return true
	}
	z := uint64(n / bloomBlockSize)
	blk := int(((hash >> 32) * z) >> 32)
	block := f.Bitset[blk*bloomBlockSize : (blk+1)*bloomBlockSize]
	lo := uint32(hash)
	for i, salt := range bloomSalts {
		word := binary.LittleEndian.Uint32(block[4*i:])
		if word&(1<<((lo*salt)>>27)) == 0 {
			return false
		}
	}
	return true
}
